"""Python a handler runs outside its job's thread: a warm worker process, which keeps telling the
reporter the job is alive, so the item's lease is renewed (commands: landwatch.processes).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from landwatch.job_queue import Reporter
from landwatch.kinds.base import GiveUp, LeaseLost
from landwatch.processes import die_with_parent

if TYPE_CHECKING:  # multiprocessing is imported when a worker starts, not by status or notice
    import multiprocessing.process
    from multiprocessing.connection import Connection


class WorkerDied(Exception):
    """The worker process died under a job (crash, out of memory); the job is retried."""


class WorkerOverran(GiveUp):
    """The job ran past its limit and was ended with its worker; trying it again would only
    hold up the jobs behind it as long again."""


class WarmWorker:
    """One long-lived worker process, so imports (pygit2: ~130 ms) are paid once, not per item.

    The job's thread waits on the result in short steps, telling the reporter it is alive, so the
    lease is renewed however long the work holds the worker's GIL. The worker dies with the
    reviewer, whatever kills it; a job that must stop (its lease lost, the grace period of a
    stop run out) stops with its worker, which the next job replaces.
    """

    def __init__(self, initializer: Callable[[], object] | None = None, poll: float = 1.0) -> None:
        self._initializer = initializer
        self._poll = poll
        self._process: multiprocessing.process.BaseProcess | None = None
        self._connection: Connection | None = None
        self._busy = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _started(self) -> tuple[multiprocessing.process.BaseProcess, Connection]:
        if self._process is None or self._connection is None or not self._process.is_alive():
            self.discard()
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_serve,
                args=(theirs, self._initializer, os.getpid()),
                name="landwatch-worker",
                daemon=True,
            )
            process.start()
            theirs.close()
            self._process, self._connection = process, ours
        return self._process, self._connection

    def call(
        self,
        reporter: Reporter,
        function: Callable[..., Any],
        *args: Any,
        limit: float | None = None,
    ) -> Any:
        """`function(*args)` in the worker; past `limit` seconds the worker is ended and
        WorkerOverran raised."""
        process, connection = self._started()
        started = time.monotonic()
        self._busy = True
        try:
            try:
                connection.send((function, args))
            except (OSError, EOFError):
                raise self._died() from None
            while not connection.poll(self._poll):
                if not process.is_alive():
                    raise self._died()
                if limit is not None and time.monotonic() - started > limit:
                    self.discard()
                    raise WorkerOverran(f"did not end within {limit:g} s: stopped")
                try:
                    reporter.alive()
                except LeaseLost:
                    # Someone else holds the item now: its work here stops with this worker.
                    self.discard()
                    raise
            try:
                outcome, value = connection.recv()
            except (OSError, EOFError):
                raise self._died() from None
            except Exception as error:  # an answer that cannot be unpickled here
                raise RuntimeError(f"the worker's answer could not be read: {error}") from None
        finally:
            self._busy = False
        if outcome == "error":
            raise value
        return value

    def _died(self) -> WorkerDied:
        self.discard()
        return WorkerDied("the worker process died under the job")

    def discard(self) -> None:
        """End the worker now, whatever it is doing."""
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if connection is not None:
            connection.close()
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)

    def close(self) -> None:
        """An idle worker is asked to end; one still busy (its job handed back) is ended."""
        if self._busy or self._connection is None:
            self.discard()
            return
        with contextlib.suppress(OSError):
            self._connection.send(None)
        if self._process is not None:
            self._process.join(5)
        self.discard()


def _serve(connection: Connection, initializer: Callable[[], object] | None, parent: int) -> None:
    """The worker's loop: one (function, args) at a time, answered ("ok"|"error", value)."""
    die_with_parent(parent)
    if initializer is not None:
        initializer()
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return  # the reviewer is gone
        if request is None:
            return
        function, args = request
        try:
            answer: tuple[str, Any] = ("ok", function(*args))
        except Exception as error:
            answer = ("error", error)
        try:
            connection.send(answer)
        except (OSError, EOFError):
            return
        except Exception as error:  # an answer that cannot be pickled
            connection.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))
