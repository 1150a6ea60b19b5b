"""What running the project's hooks after a landing costs beyond the hooks' own time, in a
repository of 10,000 files: the `project_hooks` kind's whole job on a 10-file commit (reading the
commit and its trust, a private sparse checkout of it, the person's pre-commit, reading what it
said, storing the result, removing the checkout), against the floor measured in the same run:
the same `pre-commit run --files ...` on the same files in the person's own worktree, which is
what the hooks cost a person who waits for them at commit time.

Run by hand (`python bench/bench_project_hooks.py`); pre-commit must be in the environment that
runs it, and bubblewrap on PATH (or unpacked by ./run-tests in .test-tools): the job runs the
hooks behind the wall, as the reviewer does. Target (issues 25 and 37): the overhead (job minus
floor) <= 300 ms per landing. Also prints what a full checkout of the 10,000 files would take
instead of the sparse one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_scale import fast_import
from benchlib import git, isolated_home, with_the_wall

PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or "pre-commit"
CONFIG = """\
repos:
- repo: local
  hooks:
  - id: no-todo
    name: no TODO left
    language: system
    entry: sh -c 'grep -Hn TODO "$@" && exit 1; exit 0' --
  - id: no-tabs
    name: no tabs
    language: system
    entry: sh -c '! grep -Hn "	" "$@"' --
    types: [python]
"""


def land(repo: Path, number: int) -> str:
    """A commit of 10 changed files spread over 10 directories; its id."""
    for file in range(10):
        path = repo / "src" / f"d{file * 97 % 1000}" / f"f{file * 1009 % 10_000}.py"
        path.write_text(f"VALUE = {number}\nOTHER = {file}  # TODO: round {number}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"Change ten files, round {number}")
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def changed(repo: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "diff", "--name-only", "HEAD~1", "HEAD"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return listed.stdout.split()


def floor(repo: Path, files: list[str]) -> float:
    """The hooks' own time: pre-commit on the commit's files, in the person's worktree."""
    started = time.perf_counter()
    subprocess.run(
        [PRE_COMMIT, "run", "--color=never", "--files", *files], cwd=repo, capture_output=True
    )
    return time.perf_counter() - started


def job(repo: Path, oid: str) -> float:
    """The kind's whole job, as its warm worker runs it."""
    from landwatch import report_store
    from landwatch.kinds.project_hooks import hooks_in_worker

    started = time.perf_counter()
    outcome = hooks_in_worker(str(repo / ".git"), oid, None)
    took = time.perf_counter() - started
    result = report_store.read_hooks(repo / ".git", oid)
    assert result is not None and result.status == "ran", (outcome, result)
    assert [f.rule for f in result.findings].count("hook:no-todo") == 10, result.findings
    return took


def full_checkout(repo: Path, scratch: Path) -> float:
    """What a whole worktree of the commit costs (what the sparse checkout avoids)."""
    target = scratch / "full"
    started = time.perf_counter()
    git(repo, "worktree", "add", "-q", "--detach", str(target), "HEAD")
    took = time.perf_counter() - started
    git(repo, "worktree", "remove", "--force", str(target))
    return took


def milliseconds(values: list[float]) -> str:
    ordered = sorted(values)
    p50 = statistics.median(ordered) * 1000
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000
    return f"p50 {p50:.0f} ms, p95 {p95:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument(
        "--without-wall",
        action="store_true",
        help="as landwatch.sandbox false: what the wall itself costs is the difference",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        os.environ["PATH"] = os.pathsep.join([str(Path(PRE_COMMIT).parent), os.environ["PATH"]])
        with_the_wall()
        from landwatch.wall.door import choose

        wall, said = choose(not args.without_wall, os.environ["PATH"])
        print(f"the wall: {said}")
        if wall is None:
            return 2
        repo = fast_import(Path(scratch) / "repo", args.files, 100)
        (repo / ".pre-commit-config.yaml").write_text(CONFIG)
        git(repo, "add", ".pre-commit-config.yaml")
        git(repo, "commit", "-q", "-m", "the project's hooks")
        if args.without_wall:
            git(repo, "config", "landwatch.sandbox", "false")
        from landwatch import trust

        pinned = trust.committed_hooks(repo / ".git")
        assert pinned is not None
        trust.approve_hooks(repo / ".git", pinned)
        for number in range(3):  # warm-up: imports, the secret rules, environments, caches
            oid = land(repo, number)
            floor(repo, changed(repo))
            job(repo, oid)
        floors, jobs, overheads = [], [], []
        for number in range(3, 3 + args.commits):
            oid = land(repo, number)
            # Alternated, so that a busy moment of the machine weighs on both alike.
            below = floor(repo, changed(repo))
            took = job(repo, oid)
            floors.append(below)
            jobs.append(took)
            overheads.append(took - below)
        full = statistics.median(full_checkout(repo, Path(scratch)) for _ in range(3))
        overhead = statistics.median(overheads) * 1000
        print(f"repository: {args.files:,} files; {args.commits} commits of 10 files each")
        print(f"floor: pre-commit run on the 10 files in the worktree: {milliseconds(floors)}")
        print(f"landwatch's project_hooks job (checkout, run, read, store): {milliseconds(jobs)}")
        print(
            f"overhead (job - floor, per landing): {milliseconds(overheads)}; job / floor = "
            f"{statistics.median(jobs) / statistics.median(floors):.2f}x  [target <= 300 ms]"
        )
        print(f"a full checkout of the {args.files:,} files instead: {full * 1000:.0f} ms")
        return 0 if overhead <= 300 else 1


if __name__ == "__main__":
    raise SystemExit(main())
