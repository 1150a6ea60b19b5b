"""The resident reviewer: latency from a commit's hook returning to its item settled, how many
items a second `reviewer --once` drains (and whether that stays flat as the backlog grows), and
CPU used while idle with 20 registered repositories.

Run by hand (`python bench/bench_reviewer.py`); the review handler is the no-op one the tests
use, so the figures are the reviewer's own. Targets: p50 <= 100 ms; the drain rate flat from
1,000 to 6,000 items; idle < 0.2% of one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import git, isolated_home, new_repo, resident_kib, running_reviewer
from landwatch import work_item

TESTS = Path(__file__).resolve().parents[1] / "tests"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drain_rate(scratch: Path, items: int, env: dict[str, str]) -> float:
    """Items a second `landwatch reviewer --once` works through a backlog of `items` no-op
    review items (every kind's queue running, as the reviewer's are)."""
    from landwatch import registry

    git_dir = new_repo(scratch / f"backlog-{items}", initial=False) / ".git"
    for number in range(items):
        work_item.enqueue(work_item.WorkItem(work_item.WorkKind.REVIEW, f"{number:040x}", git_dir))
    registry.register(git_dir)
    command = [sys.executable, "-m", "landwatch", "reviewer", "--once", "--no-watch"]
    started = time.perf_counter()
    subprocess.run(
        [*command, "--handler", "review=support.handlers:Noop"],
        env=env,
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - started
    registry.unregister(git_dir)
    assert len(work_item.entries(git_dir, work_item.DONE)) == items
    return items / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--repos", type=int, default=20)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle to measure")
    parser.add_argument(
        "--drain", type=int, default=6000, help="the largest backlog drained (and a sixth of it)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        repos = [
            new_repo(Path(scratch) / f"repo{n}", initial=False, hooks=True)
            for n in range(args.repos)
        ]
        env = {
            **os.environ,
            "PYTHONPATH": str(TESTS),
            "LANDWATCH_TEST_JOURNAL": str(Path(scratch) / "journal"),
        }
        rates = [drain_rate(Path(scratch), count, env) for count in (args.drain // 6, args.drain)]
        print(
            f"reviewer --once, no-op reviews: {rates[0]:.0f} items/s through {args.drain // 6}, "
            f"{rates[1]:.0f} items/s through {args.drain}  [target: flat]"
        )
        with running_reviewer("--handler", "review=support.handlers:Noop", env=env) as reviewer:
            latencies = []
            target = repos[0]
            done = target / ".git" / "landwatch" / "done"
            for number in range(args.commits):
                (target / "file").write_text(f"{number}\n")
                git(target, "add", "file")
                before = len(os.listdir(done)) if done.exists() else 0
                git(target, "commit", "-q", "-m", f"change {number}")
                returned = time.perf_counter()
                while (len(os.listdir(done)) if done.exists() else 0) == before:
                    time.sleep(0.0005)
                latencies.append(time.perf_counter() - returned)
            latencies.sort()
            p50 = statistics.median(latencies) * 1000
            p95 = latencies[int(len(latencies) * 0.95) - 1] * 1000
            print(
                f"hook returned -> item settled, {args.commits} commits: p50 {p50:.0f} ms, "
                f"p95 {p95:.0f} ms  [target p50 <= 100 ms]"
            )
            assert work_item.entries(target / ".git", work_item.PENDING) == []

            time.sleep(2)  # let the last state write and log flush settle before measuring
            before_cpu, started = cpu_seconds(reviewer.pid), time.monotonic()
            time.sleep(args.idle)
            used = cpu_seconds(reviewer.pid) - before_cpu
            elapsed = time.monotonic() - started
            resident = resident_kib(reviewer.pid)
            print(
                f"idle with {args.repos} registered repositories over {elapsed:.0f} s: "
                f"{used:.2f} s of CPU = {100 * used / elapsed:.3f}% of one core  [target < 0.2%]; "
                f"resident {resident / 1024:.0f} MB  [target < 80 MB]"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
