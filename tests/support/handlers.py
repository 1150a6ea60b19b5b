"""Review handlers for testing the reviewer: they write a journal line instead of reviewing.

The reviewer loads them with `--kind review=support.handlers:Noop`; the journal's path comes from
LANDWATCH_TEST_JOURNAL, and Blocking waits on the FIFO LANDWATCH_TEST_GATE (no sleeping).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler
from landwatch.kinds.running import WarmWorker
from landwatch.work_item import WorkItem, WorkKind


def journal(line: str) -> None:
    fd = os.open(
        os.environ["LANDWATCH_TEST_JOURNAL"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
    )
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


class Noop(ItemHandler[None]):
    name = WorkKind.REVIEW

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        journal(f"done {item.oid} {os.getpid()}")


class Recording(ItemHandler[None]):
    """Journals what it was asked to review: the commit and the range's base (or -)."""

    name = WorkKind.REVIEW

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        journal(f"reviewed {item.oid} {item.base or '-'}")


class Failing(ItemHandler[None]):
    name = WorkKind.REVIEW

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        journal(f"fail {item.oid} {item.tries}")
        raise RuntimeError("this handler always fails")


class Blocking(ItemHandler[None]):
    """Starts, then waits until the test writes to the gate (or kills the process)."""

    name = WorkKind.REVIEW

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        journal(f"start {item.oid}")
        with open(os.environ["LANDWATCH_TEST_GATE"], "rb") as gate:
            gate.read(1)
        journal(f"done {item.oid} {os.getpid()}")


def in_worker(oid: str) -> int:
    journal(f"done {oid} {os.getpid()}")
    return os.getpid()


class InWorker(ItemHandler[int]):
    """Runs in a warm worker process: the same process serves one item after another."""

    name = WorkKind.REVIEW

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.worker = WarmWorker(poll=0.05)

    def handle(self, item: WorkItem, reporter: Reporter) -> int:
        pid: int = self.worker.call(reporter, in_worker, item.oid)
        return pid

    def close(self) -> None:
        self.worker.close()


def blocking_in_worker(oid: str) -> int:
    journal(f"start {oid} {os.getpid()}")
    with open(os.environ["LANDWATCH_TEST_GATE"], "rb") as gate:
        gate.read(1)
    journal(f"done {oid} {os.getpid()}")
    return os.getpid()


class BlockingInWorker(InWorker):
    """Waits in its warm worker process until the test writes to the gate (or it is killed)."""

    def handle(self, item: WorkItem, reporter: Reporter) -> int:
        pid: int = self.worker.call(reporter, blocking_in_worker, item.oid)
        return pid


def never_ending(oid: str) -> int:
    """Work that never returns (a plug-in rule caught in a loop): only ending its process ends
    it."""
    journal(f"start {oid} {os.getpid()}")
    threading.Event().wait()
    return os.getpid()


class Overrunning(InWorker):
    """The commit LANDWATCH_TEST_ENDLESS names never finishes in the worker; the others do. Each
    item may take half a second before its worker is ended."""

    def handle(self, item: WorkItem, reporter: Reporter) -> int:
        work = never_ending if item.oid == os.environ["LANDWATCH_TEST_ENDLESS"] else in_worker
        pid: int = self.worker.call(reporter, work, item.oid, limit=0.5)
        return pid
