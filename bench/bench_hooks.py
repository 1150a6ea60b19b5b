"""What the hooks cost git, beside the floor of any hook: `git commit` bare, with an `exit 0` hook
and with landwatch's; an amend and a 200-commit rebase the same three ways; post-rewrite's stdin
at scale.

Run by hand (`python bench/bench_hooks.py`). Every figure is a ratio to the bare run measured in
the same loop, the three setups interleaved so that they see the same machine load (and the queue
drained between two commits, as the reviewer keeps it), repositories
on a memory file system (/dev/shm) where there is one, so that disk writeback does not drown the
figure; `--disk` puts them in the temp directory's file system instead, where a person's are (a
write that makes the file system flush shows only there). `--against FILE` times a fourth setup in
the commit, amend and rebase loops, landwatch's hook with FILE as its body (`git show
REV:githooks/hook.sh`): a change to the hook measured against the hook before it, under the same
load. A loop times commits beside a post-commit hook of the person's, an `exit 0` one, alone
and kept and run by landwatch's (and by FILE); another, commits while `--waiting` landings wait
(the queue not drained). Targets (issue 16): commit <= 1.30x, rebase
<= the floor + 0.15.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchlib import git, isolated_home, new_repo
from landwatch import work_item
from landwatch.work_item import WorkItem, WorkKind

EXIT_0 = "#!/bin/sh\nexit 0\n"
EVENTS = ("post-commit", "post-merge", "post-rewrite", "post-applypatch")


def scratch_root() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


def setups(root: Path, name: str) -> dict[str, Path]:
    """The same repository three ways: no hooks, `exit 0` hooks (the floor), landwatch's."""
    made = {
        "bare": new_repo(root / f"{name}-bare", hooks=False),
        "exit 0": new_repo(root / f"{name}-exit0", hooks=False),
        "landwatch": new_repo(root / f"{name}-landwatch", hooks=True),
    }
    for event in EVENTS:
        hook = made["exit 0"] / ".git" / "hooks" / event
        hook.write_text(EXIT_0)
        hook.chmod(0o755)
    return made


def with_body(repo: Path, body: str) -> Path:
    """`repo`, whose landwatch hooks run `body` after the header install wrote."""
    from landwatch import hooks

    installed = hooks.hook_body()
    for event in EVENTS:
        hook = repo / ".git" / "hooks" / event
        text = hook.read_text()
        assert installed in text, f"{hook} is not the hook this checkout installs"
        hook.write_text(text.replace(installed, body))
    return repo


def timed_commit(repo: Path, number: int) -> float:
    (repo / "file").write_text(f"change {number}\n")
    git(repo, "add", "file")
    started = time.perf_counter()
    git(repo, "commit", "-q", "-m", f"change {number}")
    return time.perf_counter() - started


def timed_amend(repo: Path, number: int) -> float:
    """`git commit --amend` of HEAD with a change: post-commit, then post-rewrite `amend`."""
    (repo / "file").write_text(f"amended {number}\n")
    git(repo, "add", "file")
    started = time.perf_counter()
    git(repo, "commit", "-q", "--amend", "-m", f"amended {number}")
    return time.perf_counter() - started


def drain(repo: Path) -> int:
    """What a running reviewer does between two commits (untimed): publish, claim and settle
    everything, so each commit meets the queue as it is in use, drained. Reviews drained."""
    git_dir = repo / ".git"
    if not (git_dir / work_item.WORK_DIRECTORY).is_dir():
        return 0
    reviews = 0
    while (claimed := work_item.claim_next(git_dir)) is not None:
        reviews += claimed.item.kind == WorkKind.REVIEW
        work_item.settle(git_dir, claimed)
    return reviews


def interleaved(
    repos: dict[str, Path],
    count: int,
    timed: Callable[[Path, int], float],
    drained: bool = True,
) -> tuple[dict[str, list[float]], int]:
    """`count` rounds of `timed` in each of `repos` in turn, each drained after (drain) unless
    not `drained`; the times of each, and the reviews drained."""
    times: dict[str, list[float]] = {name: [] for name in repos}
    reviews = 0
    for number in range(count):
        for name, repo in repos.items():
            times[name].append(timed(repo, number))
            reviews += drain(repo) if drained else 0
    return times, reviews


def with_waiting(repo: Path, count: int) -> None:
    """`count` landings waiting in `repo`'s queue, stamped now: what a reviewer that has been
    down a while leaves (none older than landwatch.staleAfter yet)."""
    git_dir = repo / ".git"
    if (git_dir / work_item.WORK_DIRECTORY).is_dir():
        now = time.time()
        for number in range(count):
            work_item.enqueue(WorkItem(WorkKind.REVIEW, f"{number:040x}", git_dir), now=now)


def prepare_rebase(repo: Path, commits: int) -> None:
    """A topic of `commits` commits on a main that moved: `git rebase main` picks them all."""
    git(repo, "switch", "-q", "-c", "topic")
    for number in range(commits):
        (repo / f"f{number}").write_text(f"{number}\n")
        git(repo, "add", f"f{number}")
        git(repo, "commit", "-q", "-m", f"topic {number}", "--no-verify")
    git(repo, "switch", "-q", "main")


def timed_rebase(repo: Path, round_: int) -> float:
    """Main moves once more, and the topic is rebased onto it again (its commits picked), the
    queue drained first as the reviewer keeps it (post-commit records even with --no-verify)."""
    git(repo, "switch", "-q", "main")
    (repo / "base").write_text(f"moved {round_}\n")
    git(repo, "add", "base")
    git(repo, "commit", "-q", "-m", f"main moves {round_}", "--no-verify")
    git(repo, "switch", "-q", "topic")
    drain(repo)
    started = time.perf_counter()
    git(repo, "rebase", "-q", "main")
    return time.perf_counter() - started


def kept_setups(root: Path, against: Path | None) -> dict[str, Path]:
    """Commits beside a hook of the person's: none, the `exit 0` hook alone, landwatch's run
    with it kept (run by its own path), and with --against's body."""
    made = {"bare": new_repo(root / "kept-bare", hooks=False)}
    names = ["exit 0", "landwatch"] + ([] if against is None else ["against"])
    for name in names:
        repo = new_repo(root / f"kept-{name.replace(' ', '')}", hooks=False)
        hook = repo / ".git" / "hooks" / "post-commit"
        hook.write_text(EXIT_0)
        hook.chmod(0o755)
        if name != "exit 0":
            from landwatch.commands import install

            install.install(repo, out=io.StringIO())
        made[name] = repo
    if against is not None:
        with_body(made["against"], against.read_text())
    return made


def chained_rewrite_repo(root: Path) -> Path:
    """A repository whose own post-rewrite hook (`cat > /dev/null`) landwatch chains, so that
    the hook reads post-rewrite's stdin whole to give it to both."""
    repo = new_repo(root / "rewrite", hooks=False)
    hook = repo / ".git" / "hooks" / "post-rewrite"
    hook.write_text("#!/bin/sh\ncat > /dev/null\n")
    hook.chmod(0o755)
    from landwatch.commands import install

    install.install(repo, out=io.StringIO())
    return repo


def rewrite_input_seconds(repo: Path, lines: int) -> float:
    """post-rewrite of an amend (which records nothing) given `lines` lines of `old new`: what
    reading and passing on its stdin costs, alone."""
    pairs = "".join(f"{n:040x} {n + 1:040x}\n" for n in range(lines))
    started = time.perf_counter()
    subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "amend"], input=pairs.encode(), cwd=repo, check=True
    )
    return time.perf_counter() - started


def against_line(ratios: dict[str, float], against: Path) -> str:
    """The line for the hook body given with --against, beside landwatch's own."""
    return (
        f"  landwatch with {against} as its hook: {ratios['against']:.2f}x "
        f"(above the floor: {ratios['against'] - ratios['exit 0']:+.2f})"
    )


def said(
    what: str,
    times: dict[str, list[float]],
    against: Path | None,
    *,
    floor: str = "exit 0 hooks",
    target: str = "",
    seconds: bool = False,
) -> dict[str, float]:
    """Print the line of one loop, `what` it timed: the bare run, then the floor and landwatch's
    hooks as ratios to it, and landwatch's above the floor (and --against's line); the ratios."""
    ratios = median_ratios(times)
    bare = statistics.median(times["bare"])
    shown = f"{bare:.2f} s" if seconds else f"{bare * 1000:.1f} ms"
    print(
        f"{what}: bare {shown}; {floor} {ratios['exit 0']:.2f}x, landwatch "
        f"{ratios['landwatch']:.2f}x (above the floor: "
        f"{ratios['landwatch'] - ratios['exit 0']:+.2f}){f'  [target {target}]' if target else ''}"
    )
    if against is not None:
        print(against_line(ratios, against))
    return ratios


def median_ratios(times: dict[str, list[float]]) -> dict[str, float]:
    bare = statistics.median(times["bare"])
    return {name: statistics.median(values) / bare for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=60)
    parser.add_argument("--rebase", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=6, help="rebases of each setup, after one")
    parser.add_argument("--rewrite-lines", type=int, default=20000)
    parser.add_argument("--waiting", type=int, default=2000, help="landings waiting, last loop")
    parser.add_argument(
        "--push", action="store_true", help="with auto-push on: a landing records a push item too"
    )
    parser.add_argument(
        "--disk", action="store_true", help="repositories on the temp directory's file system"
    )
    parser.add_argument(
        "--against", type=Path, metavar="FILE", help="also time landings with this hook body"
    )
    args = parser.parse_args()
    root_dir = None if args.disk else scratch_root()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-", dir=root_dir) as scratch:
        root = Path(scratch)
        isolated_home(root)
        where = "memory" if str(root).startswith("/dev/shm") else "disk"
        print(f"repositories in {root} ({where})")
        commit_repos = setups(root, "commit")
        if args.against is not None:
            against = new_repo(root / "commit-against", hooks=True)
            commit_repos["against"] = with_body(against, args.against.read_text())
        if args.push:
            for name in ("landwatch", "against"):
                if name in commit_repos:
                    git(commit_repos[name], "config", "landwatch.push.remote", "origin")
        commit_times, reviews = interleaved(commit_repos, args.commits, timed_commit)
        what = f"git commit, median of {args.commits} interleaved"
        said(what, commit_times, args.against, floor="exit 0 hook", target="<= 1.30")
        expected = args.commits * (2 if args.against is not None else 1)
        print(f"  review items recorded and drained: {reviews} (expected {expected})")

        amend_times, _ = interleaved(commit_repos, args.commits, timed_amend)
        what = f"git commit --amend, median of {args.commits} interleaved"
        said(what, amend_times, args.against)

        rebase_repos = setups(root, "rebase")
        if args.against is not None:
            against = new_repo(root / "rebase-against", hooks=True)
            rebase_repos["against"] = with_body(against, args.against.read_text())
        for repo in rebase_repos.values():
            prepare_rebase(repo, args.rebase)
        rebase_times: dict[str, list[float]] = {name: [] for name in rebase_repos}
        for round_ in range(args.rounds + 1):
            for name, repo in rebase_repos.items():
                took = timed_rebase(repo, round_)
                if round_:  # the first round warms the caches
                    rebase_times[name].append(took)
        what = f"git rebase of {args.rebase} commits, median of {args.rounds}"
        said(what, rebase_times, args.against, target="<= +0.15", seconds=True)

        kept_repos = kept_setups(root, args.against)
        kept_times, _ = interleaved(kept_repos, args.commits, timed_commit)
        what = f"git commit beside a kept `exit 0` post-commit hook, median of {args.commits}"
        said(what, kept_times, args.against, floor="that hook alone")

        for repo in commit_repos.values():
            with_waiting(repo, args.waiting)
        waiting_times, _ = interleaved(commit_repos, args.commits, timed_commit, drained=False)
        what = f"git commit with {args.waiting} landings waiting (no reviewer), median of "
        said(what + str(args.commits), waiting_times, args.against, floor="exit 0 hook")

        chained = chained_rewrite_repo(root)
        small = rewrite_input_seconds(chained, args.rewrite_lines // 10)
        large = rewrite_input_seconds(chained, args.rewrite_lines)
        print(
            f"post-rewrite reading {args.rewrite_lines // 10} lines: {small:.2f} s, "
            f"{args.rewrite_lines}: {large:.2f} s (x{large / small:.1f} for 10x the lines; "
            f"linear is about 10)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
