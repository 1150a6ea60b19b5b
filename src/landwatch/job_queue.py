"""One worker per kind of slow work: FIFO, one job at a time, deduplicated by subject.

A new kind writes a `JobKind` and nothing else; the line, the dedup, the bookkeeping of finished
jobs and the shutdown are here, once.
"""

from __future__ import annotations

import collections
import enum
import itertools
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

DEFAULT_FINISHED_RETENTION = 3600.0
DEFAULT_FINISHED_KEPT = 20

Order = TypeVar("Order")
Report = TypeVar("Report")


class JobState(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass
class Progress:
    done: int = 0
    total: int | None = None
    note: str = ""


@dataclass
class Job(Generic[Order, Report]):
    id: str
    kind: str
    key: str
    order: Order
    state: JobState = JobState.QUEUED
    report: Report | None = None
    error: str | None = None
    failure: Exception | None = None  # what the kind raised, for its settle to read
    queued: float = 0.0
    started: float | None = None
    finished: float | None = None
    progress: Progress = field(default_factory=Progress)

    @property
    def ended(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED)

    def summary(self) -> dict[str, Any]:
        """What `landwatch status` shows of a job (JSON-ready)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "key": self.key,
            "state": self.state.value,
            "error": self.error,
            "queued": self.queued,
            "started": self.started,
            "finished": self.finished,
            "progress": {
                "done": self.progress.done,
                "total": self.progress.total,
                "note": self.progress.note,
            },
        }


class Reporter:
    """How a running job reports progress and proves it is alive.

    A kind may wrap it (the work-item kinds renew their lease from `alive`); the base records
    progress on the job and tells the queue's listener.
    """

    def __init__(self, job: Job[Any, Any], changed: Callable[[Job[Any, Any]], None]) -> None:
        self.job = job
        self._changed = changed

    def progress(self, done: int, total: int | None = None, note: str = "") -> None:
        self.job.progress = Progress(done, total, note)
        self.alive()
        self._changed(self.job)

    def alive(self) -> None:
        """Called often by long work; the base does nothing more than exist."""


class JobKind(ABC, Generic[Order, Report]):
    """All a new kind of work writes: its name, its subject, how to run it, what ends it."""

    name: ClassVar[str]
    FINISHED_RETENTION: ClassVar[float] = DEFAULT_FINISHED_RETENTION
    FINISHED_KEPT: ClassVar[int] = DEFAULT_FINISHED_KEPT

    @abstractmethod
    def key(self, order: Order) -> str:
        """The subject: a second order with the same key while one is queued or running is it."""

    @abstractmethod
    def run(self, order: Order, reporter: Reporter) -> Report:
        """Do the work; raise to fail the job."""

    def settle(self, job: Job[Order, Report]) -> None:  # optional: empty on purpose
        """What must happen when a job ends (done or failed); called on the worker thread."""


K = TypeVar("K", bound=JobKind[Any, Any])


class JobQueue(Generic[K]):
    """One kind's line: a worker thread running its jobs one at a time, in order."""

    def __init__(
        self,
        kind: K,
        *,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[Job[Any, Any]], None] | None = None,
    ) -> None:
        self.kind = kind
        self._clock = clock
        self._on_change = on_change
        self._lock = threading.Condition()
        self._queued: collections.deque[Job[Any, Any]] = collections.deque()
        self._running: Job[Any, Any] | None = None
        self._finished: collections.deque[Job[Any, Any]] = collections.deque()
        self._ids = itertools.count(1)
        self._closing = False
        self._worker = threading.Thread(
            target=self._work, name=f"landwatch-{kind.name}", daemon=True
        )
        self._worker.start()

    # --- the line ---

    def enqueue(self, order: Any) -> Job[Any, Any]:
        key = self.kind.key(order)
        with self._lock:
            if self._closing:
                raise RuntimeError(f"the {self.kind.name} line is closed")
            for job in self._active():
                if job.key == key:
                    return job
            job = Job(
                f"{self.kind.name}-{next(self._ids)}",
                self.kind.name,
                key,
                order,
                queued=self._clock(),
            )
            self._queued.append(job)
            self._lock.notify_all()
        self._changed(job)
        return job

    def jobs(self) -> list[Job[Any, Any]]:
        """Finished (oldest first), running, then queued jobs."""
        with self._lock:
            self._forget_old()
            running = [self._running] if self._running else []
            return [*self._finished, *running, *self._queued]

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running: a new order would start at once."""
        with self._lock:
            return self._running is None and not self._queued

    def close(self, *, timeout: float | None = None) -> list[Job[Any, Any]]:
        """Stop: queued jobs are handed back (returned, never run); the running one may finish
        within `timeout` (None: wait for it). True to its name even if it does not finish."""
        with self._lock:
            self._closing = True
            handed_back = list(self._queued)
            self._queued.clear()
            self._lock.notify_all()
        self._worker.join(timeout)
        return handed_back

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the line is idle (tests and `--once`); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._running is not None or self._queued:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._lock.wait(remaining)
        return True

    # --- the worker ---

    def _active(self) -> list[Job[Any, Any]]:
        return ([self._running] if self._running else []) + list(self._queued)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._queued and not self._closing:
                    self._lock.wait()
                if not self._queued:
                    return
                job = self._queued.popleft()
                self._running = job
                job.state, job.started = JobState.RUNNING, self._clock()
            self._changed(job)
            try:
                job.report = self.kind.run(job.order, Reporter(job, self._changed))
                job.state = JobState.DONE
            except Exception as error:  # a kind's failure is the job's, never the line's
                job.state = JobState.FAILED
                job.failure = error
                job.error = f"{type(error).__name__}: {error}" if str(error) else repr(error)
                job.progress.note = traceback.format_exception_only(error)[-1].strip()
            job.finished = self._clock()
            try:
                self.kind.settle(job)
            except Exception as error:
                job.state = JobState.FAILED
                job.error = f"settling failed: {type(error).__name__}: {error}"
            with self._lock:
                self._running = None
                self._finished.append(job)
                self._forget_old()
                self._lock.notify_all()
            self._changed(job)

    def _forget_old(self) -> None:
        """Keep finished jobs for FINISHED_RETENTION seconds, and the newest FINISHED_KEPT."""
        horizon = self._clock() - self.kind.FINISHED_RETENTION
        while len(self._finished) > self.kind.FINISHED_KEPT:
            oldest = self._finished[0]
            if oldest.finished is not None and oldest.finished >= horizon:
                break
            self._finished.popleft()

    def _changed(self, job: Job[Any, Any]) -> None:
        if self._on_change is not None:
            self._on_change(job)
