"""One resident process per user: an flock(2) released by the kernel however its holder dies,
on a file in the runtime dir and on one in the state dir, taken in that order (the one a
read-only state dir leaves is enough), each holding a description of the holder to read.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import time
from pathlib import Path
from typing import Any, NamedTuple

from landwatch import layout, user_dirs
from landwatch.files import held_lock, private_directory
from landwatch.processes import has_ended

# The lock in the runtime directory (commands.prompt spells it too).
RUNTIME_LOCK = "landwatch/reviewer.lock"
# What keeps the lock file from being written where it is: a read-only filesystem (a remount),
# a directory that is not writable, no room to create it. Taken read-only where it exists.
CANNOT_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})


class LockHolder(NamedTuple):
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
        return self._asdict()


class AlreadyRunning(Exception):
    """Another reviewer holds the per-user lock; the message names it."""


class NowhereToLock(Exception):
    """No place could hold the lock (a read-only state dir, and no runtime dir): no reviewer
    runs, as two could then; the message names the places and why."""


def places() -> list[Path]:
    """Where the lock is taken, in that order: the runtime dir (where there is one), which a
    read-only state dir leaves writable, then the state dir, which every reviewer sees whatever
    its environment says of the runtime dir (cron, some GUI sessions) and `landwatch status`
    reads. Two reviewers with one runtime dir meet at the first, whichever state dir they see."""
    runtime = user_dirs.runtime_directory()
    return [*([Path(runtime, RUNTIME_LOCK)] if runtime else []), layout.REVIEWER_LOCK.path()]


class InstanceLock:
    def __init__(self, *paths: Path) -> None:
        self.paths = list(paths) or places()
        self._held: list[tuple[Path, int]] = []
        # Why the holder could not be written into a lock file it holds (a full disk): commands
        # reading that file name a holder they cannot (no pid).
        self.unwritten: dict[Path, OSError] = {}
        # Where the lock file could not be written at all (a read-only state dir), and why: the
        # lock is held there read-only where the file was there (`held`), else not there.
        self.not_writable: dict[Path, OSError] = {}

    @property
    def held(self) -> list[Path]:
        return [path for path, _ in self._held]

    def acquire(self, holder: LockHolder) -> None:
        """The lock taken at every place that can hold it, or AlreadyRunning (none kept);
        NowhereToLock when none can. The holder is written into each file opened to write."""
        for path in self.paths:
            try:
                fd, refused = _opened(path)
            except OSError as error:
                if error.errno not in CANNOT_WRITE and path == self.paths[-1]:
                    self.release()  # the state dir's, not a directory, a link: said, as before
                    raise
                self.not_writable[path] = error
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                running = LockHolder.parse(os.read(fd, 4096))
                os.close(fd)
                self.release()
                raise AlreadyRunning(
                    f"a reviewer is already running ({running.describe()}, log {running.log})"
                ) from None
            self._held.append((path, fd))
            if refused is None:
                self._describe(path, fd, holder)
            else:
                self.not_writable[path] = refused
        if not self._held:
            said = "; ".join(f"{path}: {_why(error)}" for path, error in self.not_writable.items())
            raise NowhereToLock(f"the reviewer's lock cannot be taken anywhere ({said})")

    def _describe(self, path: Path, fd: int, holder: LockHolder) -> None:
        os.ftruncate(fd, 0)  # frees what the last holder wrote: never a stale pid kept
        try:
            os.pwrite(fd, json.dumps(holder.as_dict()).encode(), 0)
        except OSError as error:
            self.unwritten[path] = error

    def release(self) -> None:
        for _, fd in self._held:
            os.close(fd)
        self._held = []


# O_NONBLOCK: a FIFO at the lock's name, opened read-only, would wait for a writer for ever.
_OPEN = os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK


def _opened(path: Path) -> tuple[int, OSError | None]:
    """The lock file at `path` opened to write (made where missing), or, where it cannot be
    written (CANNOT_WRITE), opened read-only where it is there (flock needs no more), with why."""
    try:
        private_directory(path.parent, trusted=None)
        return _regular(path, os.open(path, os.O_RDWR | os.O_CREAT | _OPEN, 0o600)), None
    except OSError as error:
        if error.errno not in CANNOT_WRITE:
            raise
        try:
            fd = os.open(path, os.O_RDONLY | _OPEN)
        except OSError:
            raise error from None
        return _regular(path, fd), error


def _regular(path: Path, fd: int) -> int:
    """`fd`, of the lock file at `path`, when a regular file; else closed, and an OSError: a
    FIFO or a device there holds no description of its holder (ftruncate refuses one)."""
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    raise OSError(errno.EINVAL, "not a regular file", str(path))


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def holder(path: Path | None = None) -> LockHolder | None:
    """The running reviewer, or None when nobody holds the lock (at `path`, else at any of its
    places, the first that names a holder)."""
    for place in [path] if path is not None else places():
        held = held_lock(place)
        if held is not None:
            return LockHolder.parse(held)
    return None


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
