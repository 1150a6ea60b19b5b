"""How long work takes, for tests that compare the times of one run (a scan linear in its input
takes about ten times as long on ten times the input): the process's CPU time, which other work
on a busy machine does not lengthen, the best of a few tries."""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(work: Callable[[], object], tries: int = 3) -> float:
    """The least CPU time `work` took in `tries` runs (a cold cache or a page fault makes one
    run long; the pattern's own time is the least)."""
    best = float("inf")
    for _ in range(tries):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best
