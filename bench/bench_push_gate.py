"""What the push gate costs `git push` when there is nothing to say: a one-commit push to a local
bare remote with landwatch's pre-push (the commit's review kept and clean), beside the same push
with an `exit 0` pre-push hook (the floor) and with no hook at all; and its Python path, the same
push of a commit with no review yet and no reviewer running (`landwatch pre-push` scans it); and a
push that creates a branch (the reviewed commit on a history this clone did not review, as a
clone's is), which the gate may judge only by what the remote says it holds; and a push of main
merging a branch whose commit holds a conflict marker (reviewed, so it has a blocking marker, as a
secret's would) that the remote already holds (pushed with `--no-verify`), which the gate asks the
remote about.

Run by hand (`python bench/bench_push_gate.py`). The six setups are interleaved, so that they see
the same machine load, and each round's commit is made (and, for the reviewed one, reviewed by
`landwatch reviewer --once`) before its push is timed. The gate's hooks call a recorder in front of
the hooks' entry point, so the bench shows how often Python started on each path. Target (issue
38): within 20 ms of the `exit 0` hook, and no Python start on that path.
"""

from __future__ import annotations

import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import git, new_repo, runs_asked, scratch_home

EXIT_0 = "#!/bin/sh\nexit 0\n"
SETUPS = (
    "no hook",
    "exit 0",
    "landwatch, reviewed",
    "landwatch, unreviewed",
    "landwatch, new branch",
    "landwatch, marked held",
)
# The reviewed setups: their commit is reviewed before its push is timed.
REVIEWED = ("landwatch, reviewed", "landwatch, new branch", "landwatch, marked held")
# What the review refuses a push for by default, so that the commit holding it has a blocking
# marker: a conflict marker (spelt in parts, so that this file holds none), in place of a secret.
CONFLICTED = f"{'<' * 7} HEAD\nA = 1\n{'=' * 7}\nA = 2\n{'>' * 7} theirs\n"

TARGET_MS = 20


def pushing_repo(root: Path, name: str, *, hooks: bool) -> Path:
    """A repository (landwatch installed if `hooks`) and a bare remote, `origin`, holding main."""
    repo = new_repo(root / name, hooks=hooks)
    git(root, "init", "-q", "--bare", str(root / f"{name}.git"))
    git(repo, "remote", "add", "origin", str(root / f"{name}.git"))
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    return repo


def with_pre_push(repo: Path, text: str) -> Path:
    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_text(text)
    hook.chmod(0o755)
    return repo


def recorded(repo: Path, calls: Path) -> Path:
    """`repo`, whose pre-push hook calls a script that appends its arguments to `calls` and then
    runs the hooks' entry point: every Python start of the gate leaves a line."""
    hook = repo / ".git" / "hooks" / "pre-push"
    text = hook.read_text()
    entry = re.search(r"^LANDWATCH_ENTRY=(.*)$", text, re.MULTILINE)
    assert entry is not None, f"{hook} is not the push gate this checkout installs"
    recorder = calls.with_suffix(".sh")
    recorder.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> {shlex.quote(str(calls))}\nexec {entry[1]} "$@"\n'
    )
    recorder.chmod(0o755)
    calls.touch()
    return with_pre_push(repo, text.replace(entry[0], f"LANDWATCH_ENTRY={recorder}"))


def starts(calls: Path) -> int:
    """How many times the gate's Python was asked, by the recorder's lines."""
    return len(calls.read_text().splitlines())


def commit(repo: Path, number: int) -> None:
    (repo / "file.py").write_text(f"CHANGE = {number}\n")
    git(repo, "add", "file.py")
    git(repo, "commit", "-q", "-m", f"change {number}")


def marked_branch_merged(repo: Path, number: int) -> None:
    """A branch whose commit holds CONFLICTED, reviewed (its blocking marker made), pushed with
    the gate skipped, and merged into main: the merge is the commit the push is timed for."""
    git(repo, "switch", "-q", "-c", f"side-{number}")
    (repo / f"side{number}.py").write_text(CONFLICTED)
    git(repo, "add", f"side{number}.py")
    git(repo, "commit", "-q", "-m", f"side {number}")
    review_kept()
    git(repo, "push", "-q", "--no-verify", "origin", f"side-{number}")
    git(repo, "switch", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-edit", f"side-{number}")


def review_kept() -> None:
    """What the reviewer does between a commit and its push: every recorded commit reviewed."""
    subprocess.run(
        [sys.executable, "-m", "landwatch", "reviewer", "--once"],
        check=True,
        stderr=subprocess.DEVNULL,
    )


def timed_push(repo: Path, refspec: str = "main") -> float:
    started = time.perf_counter()
    git(repo, "push", "-q", "origin", refspec)
    return time.perf_counter() - started


def main() -> None:
    runs = runs_asked(__doc__, 30, "pushes of each")
    with scratch_home("bench-push-gate-") as root:
        reviewed_calls, unreviewed_calls = root / "reviewed-calls", root / "unreviewed-calls"
        new_branch_calls = root / "new-branch-calls"
        marked_calls = root / "marked-calls"
        repos = {
            "no hook": pushing_repo(root, "none", hooks=False),
            "exit 0": with_pre_push(pushing_repo(root, "exit0", hooks=False), EXIT_0),
            "landwatch, reviewed": recorded(
                pushing_repo(root, "reviewed", hooks=True), reviewed_calls
            ),
            "landwatch, unreviewed": recorded(
                pushing_repo(root, "unreviewed", hooks=True), unreviewed_calls
            ),
            "landwatch, new branch": recorded(
                pushing_repo(root, "new-branch", hooks=True), new_branch_calls
            ),
            "landwatch, marked held": recorded(
                pushing_repo(root, "marked", hooks=True), marked_calls
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in SETUPS}
        for number in range(runs + 1):
            for name in SETUPS:
                if name == "landwatch, marked held":
                    marked_branch_merged(repos[name], number)
                else:
                    commit(repos[name], number)
                if name in REVIEWED:
                    review_kept()
                new = name == "landwatch, new branch"
                took = timed_push(repos[name], f"main:refs/heads/new-{number}" if new else "main")
                if number:  # the first round warms the caches
                    times[name].append(took)
        python = {
            "reviewed": starts(reviewed_calls),
            "unreviewed": starts(unreviewed_calls),
            "new branch": starts(new_branch_calls),
            "marked held": starts(marked_calls),
        }
    median = {name: statistics.median(taken) * 1e3 for name, taken in times.items()}
    over = {name: median[name] - median["exit 0"] for name in SETUPS}
    print(f"git push of one commit to a local bare remote, {runs} of each, interleaved")
    print("  median (min) ms, the median over the exit 0 hook's, and its ratio to it")
    for name, taken in times.items():
        ratio = median[name] / median["exit 0"]
        print(
            f"  {name:<22} {median[name]:6.1f} ({min(taken) * 1e3:5.1f})  {over[name]:+6.1f}"
            f"  x{ratio:.2f}"
        )
    print(
        f"the gate, the review kept and clean: {over['landwatch, reviewed']:+.1f} ms over exit 0"
        f"  [target <= {TARGET_MS}]; Python started {python['reviewed']} times (expected 0)"
    )
    print(
        f"the gate's Python path, no review yet: {over['landwatch, unreviewed']:+.1f} ms over "
        f"exit 0; Python started {python['unreviewed']} times (expected {runs + 1})"
    )
    print(
        f"a push creating a branch, the review kept and clean: "
        f"{over['landwatch, new branch']:+.1f} ms over exit 0; Python started "
        f"{python['new branch']} times of {runs + 1}"
    )
    print(
        f"a push of a merge bringing in a marked commit the remote holds: "
        f"{over['landwatch, marked held']:+.1f} ms over exit 0; Python started "
        f"{python['marked held']} times of {runs + 1}"
    )


if __name__ == "__main__":
    main()
