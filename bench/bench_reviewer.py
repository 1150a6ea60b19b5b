"""The resident reviewer: latency from a commit's hook returning to its item settled, and CPU
used while idle with 20 registered repositories.

Run by hand (`python bench/bench_reviewer.py`); the review handler is the no-op one the tests
use, so the figures are the reviewer's own. Targets: p50 <= 100 ms; idle < 0.2% of one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import git, isolated_home, new_repo, resident_kib, running_reviewer
from landwatch import work_item

TESTS = Path(__file__).resolve().parents[1] / "tests"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--repos", type=int, default=20)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle to measure")
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
        with running_reviewer("--kind", "review=kinds_for_tests:Noop", env=env) as reviewer:
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
