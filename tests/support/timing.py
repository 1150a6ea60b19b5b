"""How long work takes, for tests that compare the times of one run (a scan linear in its input
takes about ten times as long on ten times the input): the process's CPU time, which other work
on a busy machine does not lengthen, the best of a few tries. And work that must end by itself
(a FIFO opened to read waits for a writer forever), run where it cannot hang the suite; a
program that might read without end (a link to /dev/zero), where it cannot take the machine."""

from __future__ import annotations

import resource
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
# Far past what any of that work takes on a loaded machine: only a wait that never ends reaches it.
ENDS_WITHIN = 60.0
# What a bounded program may hold in its own writable mappings (RLIMIT_DATA): several times what
# landwatch's commands and a reviewer draining a repository need, a small part of any machine.
BOUNDED_MEMORY = 512 << 20


def cpu_seconds(work: Callable[[], object], tries: int = 3) -> float:
    """The least CPU time `work` took in `tries` runs (a cold cache or a page fault makes one
    run long; the pattern's own time is the least)."""
    best = float("inf")
    for _ in range(tries):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def ends_by_itself(work: Callable[[], T]) -> T:
    """What `work` returns, run in a thread of its own; the test fails when it has not ended
    within ENDS_WITHIN seconds (the thread, left waiting, ends with the process)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as error:  # re-raised in the test's thread
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=ENDS_WITHIN)
    assert not thread.is_alive(), f"{work} was still waiting after {ENDS_WITHIN:.0f} s"
    if failed:
        raise failed[0]
    return done[0]


def run_bounded(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`argv` run to its end (text, captured), within ENDS_WITHIN seconds and BOUNDED_MEMORY:
    one that waits on a FIFO fails the test (TimeoutExpired), one reading /dev/zero ends on its
    own MemoryError, neither hanging the suite nor taking the machine's memory."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (BOUNDED_MEMORY, BOUNDED_MEMORY))

    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=ENDS_WITHIN,
        preexec_fn=bounded,
        cwd=cwd,
        env=env,
    )
