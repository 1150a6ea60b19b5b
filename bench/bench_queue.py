"""Queue figures: enqueue latency, oldest-pending age on a backlog, and drain throughput.

Run by hand (`python bench/bench_queue.py`); prints figures against the targets in docs/queue.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import new_repo
from landwatch import work_item as w
from landwatch.work_item import WorkItem, WorkKind
from queue_drain import Drain


def new_git_dir(root: Path, name: str) -> Path:
    return new_repo(root / name, initial=False) / ".git"


def fill(git_dir: Path, count: int) -> list[float]:
    latencies = []
    for number in range(count):
        started = time.perf_counter()
        w.enqueue(WorkItem(WorkKind.REVIEW, f"{number:040x}", git_dir))
        latencies.append(time.perf_counter() - started)
    return latencies


def drain(git_dir: Path, *, grouped: bool = True) -> tuple[int, float]:
    """Claim and settle everything with a no-op handler: through one `Drain` (directories opened
    once, settles synced together), or (`grouped=False`) one call each, every settle synced."""
    w.forget_listing(git_dir)
    started = time.perf_counter()
    drained = 0
    if grouped:
        with Drain(git_dir) as queue:
            while (claimed := queue.claim_next(list(WorkKind))) is not None:
                queue.settle(claimed)
                drained += 1
    else:
        while (claimed := w.claim_next(git_dir)) is not None:
            w.settle(git_dir, claimed)
            drained += 1
    return drained, time.perf_counter() - started


def rename_floor(root: Path, count: int) -> float:
    """Items a second through the same steps done plainly: pending -> claimed -> done, one read
    of the record each, no checks, no durability; the rate a drain is measured against."""
    base = root / "floor"
    for name in ("pending", "claimed", "done"):
        (base / name).mkdir(parents=True)
    record = b"landwatch-work-item 1\nkind review\noid " + b"0" * 40 + b"\nend\n"
    for number in range(count):
        (base / "pending" / f"review-{number:040x}.{number}").write_bytes(record)
    started = time.perf_counter()
    for name in os.listdir(base / "pending"):
        claimed = base / "claimed" / f"{name}.claim"
        os.rename(base / "pending" / name, claimed)
        with open(claimed, "rb") as file:
            file.read()
        os.rename(claimed, base / "done" / name)
    return count / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backlog", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        root = Path(scratch)
        git_dir = new_git_dir(root, "backlog")
        latencies = fill(git_dir, args.backlog)
        median = statistics.median(latencies) * 1000
        p95 = statistics.quantiles(latencies, n=20)[-1] * 1000
        print(f"enqueue (with fsync): median {median:.2f} ms, p95 {p95:.2f} ms  [target <= 2 ms]")

        ages = []
        for _ in range(7):
            started = time.perf_counter()
            w.oldest_pending_age(git_dir)
            ages.append(time.perf_counter() - started)
        print(
            f"oldest_pending_age on {args.backlog} pending: median "
            f"{statistics.median(ages) * 1000:.1f} ms  [target <= 20 ms]"
        )

        floor = rename_floor(root, args.backlog)
        drained, seconds = drain(git_dir)
        print(
            f"drain {drained} through one Drain (no-op handler): {seconds:.2f} s, "
            f"{drained / seconds:.0f} items/s; the plain rename loop {floor:.0f} items/s: "
            f"{drained / seconds / floor:.0%} of it  [target >= 50%]"
        )
        single = new_git_dir(root, "single")
        fill(single, args.backlog)
        drained, seconds = drain(single, grouped=False)
        print(
            f"  one call each, every settle synced: {drained / seconds:.0f} items/s "
            f"({drained / seconds / floor:.0%})"
        )

        print("growth (per-item cost should stay flat: n log n or better, not n^2):")
        for size in (1_000, 4_000, 16_000):
            sized = new_git_dir(root, f"growth-{size}")
            fill(sized, size)
            drained, seconds = drain(sized)
            print(f"  {size:>6} items: {seconds / drained * 1e6:7.1f} us/item")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
