"""One resident process per user: an flock(2) on a file in the runtime dir, released by the
kernel however its holder dies, holding a description of the holder for every command to read.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from landwatch import layout
from landwatch.files import held_lock, private_directory
from landwatch.processes import has_ended


@dataclass(frozen=True)
class LockHolder:
    """Who holds the lock, as it wrote itself into the lock file."""

    pid: int | None
    mode: str  # foreground, detached, once
    version: str
    log: str

    @classmethod
    def parse(cls, data: bytes) -> LockHolder:
        try:
            info: Any = json.loads(data or b"{}")
        except ValueError:
            info = {}
        if not isinstance(info, dict):
            info = {}
        pid = info.get("pid")
        return cls(
            pid if isinstance(pid, int) else None,
            str(info.get("mode", "?")),
            str(info.get("version", "?")),
            str(info.get("log", "?")),
        )

    def describe(self) -> str:
        pid = "?" if self.pid is None else self.pid
        return f"pid {pid}, {self.mode}, landwatch {self.version}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class AlreadyRunning(Exception):
    """Another reviewer holds the per-user lock; the message names it."""


class InstanceLock:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or layout.REVIEWER_LOCK.path()
        self._fd = -1
        # Why the holder could not be written into the lock file (a full disk): the lock is
        # held all the same, and commands read a holder they cannot name (no pid).
        self.unwritten: OSError | None = None

    def acquire(self, holder: LockHolder) -> None:
        private_directory(self.path.parent, trusted=None)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            running = LockHolder.parse(os.read(fd, 4096))
            os.close(fd)
            raise AlreadyRunning(
                f"a reviewer is already running ({running.describe()}, log {running.log})"
            ) from None
        self._fd = fd
        os.ftruncate(fd, 0)  # frees what the last holder wrote: never a stale pid kept
        try:
            os.pwrite(fd, json.dumps(holder.as_dict()).encode(), 0)
        except OSError as error:
            self.unwritten = error

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def holder(path: Path | None = None) -> LockHolder | None:
    """The running reviewer, or None when nobody holds the lock."""
    held = held_lock(path or layout.REVIEWER_LOCK.path())
    return LockHolder.parse(held) if held is not None else None


def wait_until_released(
    timeout: float, path: Path | None = None, *, pid: int | None = None
) -> bool:
    """Whether the running reviewer let go of the lock, as it does when it ends, and (given its
    `pid`) its process ended too, within `timeout` seconds (looked at every 50 ms: nothing tells
    one process that another ended). Between the two it still runs its interpreter's exit."""
    deadline = time.monotonic() + timeout
    while holder(path) is not None or (pid is not None and not has_ended(pid)):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True
