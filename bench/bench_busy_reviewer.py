"""What a busy reviewer costs the person's other work: a `git commit` (in a repository of theirs)
and a task that keeps both cores busy (two processes of fixed work, as a build's), each timed
with no reviewer, beside a reviewer reviewing large landings at its default priority
(`landwatch.reviewer.niceness` 10), and beside one at niceness 0 (the priority it had before).

Run by hand (`python bench/bench_busy_reviewer.py`). Figures are ratios to the same work with no
reviewer, the three setups interleaved round by round so that they see the same machine; a
round whose reviewer ran out of work before its timing ended is said and not counted.
Target: beside the busy reviewer at its default, <= 1.10x for both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchlib import git, installed_home, new_repo, running_reviewer

LINE = "    value_{n} = compute(alpha={n}, beta='text {n}')  # a comment\n"
# Fixed work for one process of the task: about 0.15 s of one core here.
WORK = "sum(i * i for i in range(2_500_000))"
# Each setup, and the reviewer's landwatch.reviewer.niceness in it (None: no reviewer).
SETUPS = {
    "no reviewer": None,
    "busy reviewer, niceness 10 (default)": "10",
    "busy reviewer, niceness 0": "0",
}
NAMES = list(SETUPS)


def land_large(repo: Path, tag: str, commits: int, files: int) -> None:
    """`commits` landings of `files` new 60-line files each: queued for the reviewer by the hook."""
    for commit in range(commits):
        for index in range(files):
            path = repo / f"pkg{index % 20}" / f"{tag}_{commit}_{index}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(LINE.format(n=n + index + commit) for n in range(60)))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{tag}: landing {commit}")


def commit_ms(repo: Path, runs: int, tag: str) -> float:
    """The median wall time of `git commit` of a one-line change, in milliseconds."""
    timings = []
    for number in range(runs):
        (repo / "file").write_text(f"{tag} {number}\n")
        git(repo, "add", "file")
        started = time.perf_counter()
        git(repo, "commit", "-q", "-m", f"{tag} {number}")
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def task_ms(runs: int) -> float:
    """The median wall time of two processes of WORK side by side, in milliseconds."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        both = [subprocess.Popen([sys.executable, "-c", WORK]) for _ in range(2)]
        for process in both:
            process.wait()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def waiting(repo: Path) -> int:
    """Items still pending or claimed in `repo`'s review queue."""
    work = repo / ".git" / "landwatch"
    return sum(len(os.listdir(work / state)) for state in ("pending", "claimed"))


def timed_round(
    setup: str, landed: Path, person: Path, args: argparse.Namespace, tag: str
) -> tuple[float, float] | None:
    """The commit's and the task's times in `setup`; None when the reviewer ran dry first."""

    def measure() -> tuple[float, float]:
        return commit_ms(person, args.commits, tag), task_ms(args.tasks)

    niceness = SETUPS[setup]
    if niceness is None:
        return measure()
    git(person, "config", "--global", "landwatch.reviewer.niceness", niceness)
    land_large(landed, tag, args.landings, args.files)
    with running_reviewer():
        claimed = landed / ".git" / "landwatch" / "claimed"
        while not os.listdir(claimed):  # the first review under way
            time.sleep(0.01)
        figures = measure()
        busy = waiting(landed) > 0
    return figures if busy else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--commits", type=int, default=25, help="commits timed a round")
    parser.add_argument("--tasks", type=int, default=3, help="tasks timed a round")
    parser.add_argument("--landings", type=int, default=10, help="large landings queued a round")
    parser.add_argument("--files", type=int, default=600, help="files in each large landing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-busy-") as scratch:
        root = Path(scratch)
        installed_home(root)
        person = new_repo(root / "person")
        landed = new_repo(root / "landed", hooks=True)
        results: dict[str, list[tuple[float, float]]] = {setup: [] for setup in SETUPS}
        for number in range(args.rounds):
            order = NAMES[number % 3 :] + NAMES[: number % 3]
            for setup in order:
                got = timed_round(setup, landed, person, args, f"r{number}s{NAMES.index(setup)}")
                if got is None:
                    print(f"round {number}, {setup}: the reviewer ran out of work; not counted")
                else:
                    results[setup].append(got)
        report(results)
    return 0


def report(results: dict[str, list[tuple[float, float]]]) -> None:
    alone = results[NAMES[0]]
    floor_commit = statistics.median(commit for commit, _ in alone)
    floor_task = statistics.median(task for _, task in alone)
    print(f"{len(alone)} rounds; medians of the rounds' medians, and ratios to no reviewer")
    measure: list[tuple[str, Callable[[tuple[float, float]], float], float]] = [
        ("git commit", lambda pair: pair[0], floor_commit),
        ("two processes of fixed work", lambda pair: pair[1], floor_task),
    ]
    for what, pick, floor in measure:
        for setup in SETUPS:
            rounds = results[setup]
            if not rounds:
                print(f"  {what:28} {setup:38} no round counted")
                continue
            value = statistics.median(pick(pair) for pair in rounds)
            target = "  [target <= 1.10x]" if setup == NAMES[1] else ""
            print(f"  {what:28} {setup:38} {value:7.1f} ms {value / floor:5.2f}x{target}")


if __name__ == "__main__":
    raise SystemExit(main())
