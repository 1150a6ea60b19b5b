"""What the hooks cost git: `git commit` with and without them, and a 200-commit rebase.

Run by hand (`python bench/bench_hooks.py`); commits are interleaved so both sides see the same
machine load. The target: the median commit with hooks <= 1.5x the bare one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import git, isolated_home, new_repo


def timed_commit(repo: Path, number: int) -> float:
    (repo / "file").write_text(f"change {number}\n")
    git(repo, "add", "file")
    started = time.perf_counter()
    git(repo, "commit", "-q", "-m", f"change {number}")
    return time.perf_counter() - started


def timed_rebase(repo: Path, commits: int) -> float:
    git(repo, "switch", "-q", "-c", "topic")
    for number in range(commits):
        (repo / f"f{number}").write_text(f"{number}\n")
        git(repo, "add", f"f{number}")
        git(repo, "commit", "-q", "-m", f"topic {number}", "--no-verify")
    git(repo, "switch", "-q", "main")
    (repo / "base").write_text("moved\n")
    git(repo, "add", "base")
    git(repo, "commit", "-q", "-m", "main moves")
    git(repo, "switch", "-q", "topic")
    started = time.perf_counter()
    git(repo, "rebase", "-q", "main")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=60)
    parser.add_argument("--rebase", type=int, default=200)
    parser.add_argument(
        "--push",
        action="store_true",
        help="with auto-push on: each landing also records a push item",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        bare = new_repo(Path(scratch) / "bare", hooks=False)
        hooked = new_repo(Path(scratch) / "hooked", hooks=True)
        if args.push:
            git(hooked, "config", "landwatch.push.remote", "origin")
        without, with_hooks = [], []
        for number in range(args.commits):
            without.append(timed_commit(bare, number))
            with_hooks.append(timed_commit(hooked, number))
        plain, hooks = statistics.median(without), statistics.median(with_hooks)
        print(
            f"git commit, median of {args.commits} interleaved: without hooks "
            f"{plain * 1000:.1f} ms, with landwatch {hooks * 1000:.1f} ms, "
            f"ratio {hooks / plain:.2f}  [target <= 1.5]"
        )
        pending = len(os.listdir(hooked / ".git" / "landwatch" / "pending"))
        print(f"  items recorded: {pending} (expected {args.commits})")

        rebase_bare = timed_rebase(new_repo(Path(scratch) / "rb-bare", hooks=False), args.rebase)
        rebase_hooked = timed_rebase(new_repo(Path(scratch) / "rb-hooked", hooks=True), args.rebase)
        print(
            f"git rebase of {args.rebase} commits: without hooks {rebase_bare:.2f} s, "
            f"with landwatch {rebase_hooked:.2f} s, ratio {rebase_hooked / rebase_bare:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
