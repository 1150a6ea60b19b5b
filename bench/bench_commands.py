"""What a person waits for from landwatch's commands (issue 40's table): each installed command,
as a shell runs it, beside a bare `python -c pass` of the same interpreter, interleaved, in the
same run, with the target each ratio is held to.

Run by hand (`python bench/bench_commands.py`). `landwatch prompt` in every state it can be in
(nothing to say, unread findings, the project's hooks held back for want of trust, an item
given up, a stale queue, outside every repository), `landwatch show HEAD`, `landwatch status`
and `landwatch --version`, each through the launcher install.sh leaves. The reviews' rows (a
review by hand, the first review) are bench_review.py's, the rebase's bench_hooks.py's.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import git, installed_launcher, new_repo, runs_asked, scratch_home


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def with_findings(repo: Path) -> None:
    for number in range(3):
        (repo / f"f{number}.txt").write_text("trailing  \n")
        git(repo, "add", f"f{number}.txt")
        git(repo, "commit", "-q", "-m", f"finding {number}")
    subprocess.run(
        [sys.executable, "-m", "landwatch", "reviewer", "--once"],
        check=True,
        stderr=subprocess.DEVNULL,
    )


def given_up(repo: Path) -> None:
    from landwatch import work_item

    git(repo, "commit", "-q", "--allow-empty", "-m", "to give up")
    work_item.publish_ready(repo / ".git")
    claimed = work_item.claim_next(repo / ".git")
    assert claimed is not None
    work_item.requeue(repo / ".git", claimed, max_tries=1)


def stale(repo: Path) -> None:
    """A landing waiting longer than landwatch.staleAfter (600 s) with no reviewer running."""
    from landwatch import work_item

    git(repo, "commit", "-q", "--allow-empty", "-m", "waits")
    oid = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    item = work_item.WorkItem(work_item.WorkKind.REVIEW, oid, repo / ".git")
    work_item.enqueue(item, now=time.time() - 3600)


def hooks_held_back(repo: Path) -> None:
    """The project's hooks held back for want of trust, not told yet (what trust records)."""
    from landwatch import trust

    trust.held_back(repo / ".git", "0" * 64, trust.HOOKS)


# What any command that reads a kept review must do before landwatch's own code runs: the
# standard library such a command uses, and git asked for the git dir and the commit (one
# process, as `show` asks). Its ratio is the floor under `show`'s and `status`'s.
FLOOR = (
    "import argparse, dataclasses, enum, json, pathlib, re, subprocess, typing\n"
    "subprocess.run(['git', 'rev-parse', '--absolute-git-dir', '--verify', 'HEAD^{commit}'],"
    " capture_output=True)\n"
)


def status_floor(repositories: list[Path]) -> str:
    """The floor under `status`: the same standard library, and the two git processes it asks
    of each registered repository (its hooks' directory, its landwatch.* settings)."""
    asked = [
        [
            *("git", "rev-parse", "--is-bare-repository", "--path-format=absolute", "--git-dir"),
            *("--git-common-dir", "--git-path", "hooks", "--show-toplevel"),
        ],
        ["git", "config", "--get-regexp", "^landwatch[.]"],
    ]
    return (
        "import argparse, dataclasses, enum, json, pathlib, re, subprocess, typing\n"
        f"for cwd in {[str(repository) for repository in repositories]!r}:\n"
        f"    for argv in {asked!r}:\n"
        "        subprocess.run(argv, cwd=cwd, capture_output=True)\n"
    )


def main() -> None:
    runs = runs_asked(__doc__, 30)
    with scratch_home("bench-commands-") as root:
        command = str(installed_launcher(root))
        quiet = new_repo(root / "quiet", hooks=True)
        unread = new_repo(root / "unread", hooks=True)
        rare = new_repo(root / "given-up", hooks=True)
        held = new_repo(root / "held-back", hooks=True)
        waiting = new_repo(root / "stale", hooks=False)
        with_findings(unread)
        given_up(rare)
        hooks_held_back(held)
        stale(waiting)
        said = subprocess.run([command, "prompt"], cwd=unread, capture_output=True, text=True)
        print(f"the line: {said.stdout.strip()}")
        from landwatch import layout

        entry = str(layout.ENTRY_POINT.path())  # the hooks': sh, then python -I -m landwatch
        outside = root / "nowhere"
        outside.mkdir()
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], quiet, 0.0),
            "landwatch prompt, nothing to say": ([command, "prompt"], quiet, 2.0),
            "landwatch prompt, 3 unread reviews": ([command, "prompt"], unread, 2.0),
            "landwatch prompt --color, 3 unread": ([command, "prompt", "--color"], unread, 2.0),
            "the hooks' entry point, 3 unread": ([entry, "prompt"], unread, 2.0),
            "landwatch prompt, hooks held back": ([command, "prompt"], held, 2.0),
            "landwatch prompt, an item given up": ([command, "prompt"], rare, 2.0),
            "landwatch prompt, a stale queue": ([command, "prompt"], waiting, 2.0),
            "landwatch prompt, outside a repository": ([command, "prompt"], outside, 2.0),
            "the floor: stdlib and one git rev-parse": ([sys.executable, "-c", FLOOR], unread, 0.0),
            "landwatch show HEAD": ([command, "show", "HEAD"], unread, 4.0),
            "the floor: stdlib and status's git": (
                [sys.executable, "-c", status_floor([quiet, unread, rare, held])],
                unread,
                0.0,
            ),
            "landwatch status": ([command, "status"], unread, 5.0),
            "landwatch --version": ([command, "--version"], quiet, 1.5),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, (argv, cwd, _) in cases.items():
                times[name].append(timed(argv, cwd))
    bare = statistics.median(times["python -c pass"])
    print(f"{runs} runs of each, interleaved; median (min) ms, the median's ratio to bare, target")
    for name, taken in times.items():
        median, target = statistics.median(taken), cases[name][2]
        verdict = "" if not target else ("  within" if median / bare <= target else "  OVER")
        print(
            f"  {name:<40} {median * 1e3:6.1f} ({min(taken) * 1e3:5.1f})  {median / bare:5.2f}x"
            + (f"  <= {target}x{verdict}" if target else "")
        )


if __name__ == "__main__":
    main()
