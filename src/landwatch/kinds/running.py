"""Work a handler runs outside its job's thread: Python in a warm worker process, and commands
with a timeout; both keep telling the reporter the job is alive, so the item's lease is renewed.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import subprocess
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landwatch.job_queue import Reporter
from landwatch.kinds.base import LeaseLost


class WorkerDied(Exception):
    """The worker process died under a job (crash, out of memory); the job is retried."""


class WarmWorker:
    """One long-lived worker process, so imports (pygit2: ~130 ms) are paid once, not per item.

    The job's thread waits on the result in short steps, telling the reporter it is alive, so the
    lease is renewed however long the work holds the worker's GIL.
    """

    def __init__(self, initializer: Callable[[], object] | None = None, poll: float = 1.0) -> None:
        self._initializer = initializer
        self._poll = poll
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=self._initializer,
            )
        return self._pool

    def call(self, reporter: Reporter, function: Callable[..., Any], *args: Any) -> Any:
        future = self._executor().submit(function, *args)
        try:
            while True:
                try:
                    return future.result(timeout=self._poll)
                except concurrent.futures.TimeoutError:
                    reporter.alive()
        except BrokenProcessPool:
            self._pool = None
            raise WorkerDied("the worker process died under the job") from None
        except LeaseLost:
            # The work goes on in the worker until it ends; a fresh worker takes the next job.
            self.discard()
            raise

    def discard(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


@dataclass(frozen=True)
class CommandResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False


def run_command(
    command: list[str],
    *,
    reporter: Reporter,
    timeout: float,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    poll: float = 1.0,
) -> CommandResult:
    """Run a command (never with a terminal: stdin is /dev/null), telling the reporter the job
    is alive while it runs, so a long push or gc keeps its lease; killed after `timeout`."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            stdout, stderr = process.communicate(
                timeout=min(poll, max(0.0, deadline - time.monotonic()))
            )
            return CommandResult(process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                process.kill()
                stdout, stderr = process.communicate()
                return CommandResult(process.returncode, stdout, stderr, timed_out=True)
            try:
                reporter.alive()
            except LeaseLost:
                process.kill()
                process.communicate()
                raise
