"""One work directory on disk: its directories opened without following a link inside it, the
file-system steps every operation is made of, each a named crash point, and the recovery lock.

Every OSError of a step becomes one QueueError saying what was being done, so every public
function fails the same way.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Literal, overload

from landwatch import work_item as _package
from landwatch.work_item.names import (
    DONE,
    FAILED,
    KNOWN,
    MAX_RECORD_BYTES,
    RECOVERY_LOCK,
    WORK_DIRECTORY,
    QueueError,
    RecordError,
    id_of_entry,
    invalid_name,
    micros,
)
from landwatch.work_item.record import Record, decode_record

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Anything in a state directory may be garbage: a symlink, a FIFO, a directory.
GARBAGE_ERRNOS = frozenset({errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR, errno.EMLINK})


def checkpoint(step: str) -> None:
    """A named step of the protocol is done: the crash tests kill the process here (they set
    the package's `_fault_hook`, tests/support/queue.py)."""
    hook = _package._fault_hook
    if hook is not None:
        hook(step)


class WorkDirectory:
    """Directory fds of one work directory, opened without following any symlink inside it."""

    def __init__(self, git_dir: os.PathLike[str] | str, *, create: bool) -> None:
        self.git_dir = Path(git_dir)
        self.root = -1
        self._fds: dict[str, int] = {}
        work = os.path.join(git_dir, WORK_DIRECTORY)
        try:
            self.root = os.open(work, _DIRECTORY_FLAGS)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(work, 0o700)
                checkpoint("mkdir")
            self.root = os.open(work, _DIRECTORY_FLAGS)
        _require_own_directory(self.root, work)

    def fd(self, name: str) -> int:
        if name not in self._fds:
            try:
                self._fds[name] = os.open(name, _DIRECTORY_FLAGS, dir_fd=self.root)
            except FileNotFoundError:
                # Inside an existing work directory every directory is made on first use.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=self.root)
                    checkpoint("mkdir")
                self._fds[name] = os.open(name, _DIRECTORY_FLAGS, dir_fd=self.root)
            where = os.path.join(self.git_dir, WORK_DIRECTORY, name)
            _require_own_directory(self._fds[name], where)
        return self._fds[name]

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        if self.root >= 0:
            os.close(self.root)
            self.root = -1


def _require_own_directory(fd: int, where: str) -> None:
    info = os.fstat(fd)
    if info.st_uid != os.getuid():
        raise QueueError(f"{where} belongs to uid {info.st_uid}, not to you; not touching it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.fchmod(fd, 0o700)


@overload
def opened(
    git_dir: os.PathLike[str] | str, doing: str, *, create: Literal[True]
) -> AbstractContextManager[WorkDirectory]: ...


@overload
def opened(
    git_dir: os.PathLike[str] | str, doing: str, *, create: Literal[False] = ...
) -> AbstractContextManager[WorkDirectory | None]: ...


def opened(
    git_dir: os.PathLike[str] | str, doing: str, *, create: bool = False
) -> AbstractContextManager[WorkDirectory | None]:
    """The work directory, made first when `create`; else None when the repository never had
    one (or vanished). An OSError inside becomes a QueueError saying what was being `doing`."""
    return _opened(git_dir, doing, create)


@contextlib.contextmanager
def _opened(
    git_dir: os.PathLike[str] | str, doing: str, create: bool
) -> Iterator[WorkDirectory | None]:
    try:
        directory = WorkDirectory(git_dir, create=create)
    except FileNotFoundError as error:
        if create:
            raise queue_error(doing, git_dir, error) from None
        # Nothing there when we looked (a producer may be making it this instant): nothing waits.
        yield None
        return
    except OSError as error:
        if not create and error.errno in (errno.ENOTDIR, errno.ELOOP):
            work = os.path.join(git_dir, WORK_DIRECTORY)
            raise QueueError(f"{work} is not a directory; not following it") from None
        what = doing if create else "cannot open the work directory of"
        raise queue_error(what, git_dir, error) from None
    try:
        yield directory
    except OSError as error:
        raise queue_error(doing, git_dir, error) from None
    finally:
        directory.close()


def queue_error(what: str, where: os.PathLike[str] | str, error: OSError) -> QueueError:
    # Without "landwatch: ": whoever shows the line (a command, the reviewer's log) says that.
    return QueueError(f"{what} {where}: {error.strerror or error}")


# --- the steps ----------------------------------------------------------------------------------


def listdir(directory: WorkDirectory, name: str) -> list[str]:
    try:
        return os.listdir(directory.fd(name))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        if error.errno in GARBAGE_ERRNOS:
            return []
        raise


def fsync_directory(directory: WorkDirectory, name: str) -> None:
    os.fsync(directory.fd(name))
    checkpoint(f"fsync {name}")


def rename(directory: WorkDirectory, *, source: str, name: str, target: str, new: str) -> bool:
    """Move exactly `source/name`; False when it is no longer there (someone else moved it)."""
    try:
        os.rename(name, new, src_dir_fd=directory.fd(source), dst_dir_fd=directory.fd(target))
    except FileNotFoundError:
        return False
    checkpoint(f"rename {source} {target}")
    return True


def link_marker(directory: WorkDirectory, marker: str, *, target: str, new: str) -> bool:
    """Give the record of `known/marker` the name `target/new`; False when that name exists."""
    try:
        os.link(
            marker,
            new,
            src_dir_fd=directory.fd(KNOWN),
            dst_dir_fd=directory.fd(target),
            follow_symlinks=False,
        )
    except FileExistsError:
        return False
    checkpoint(f"link {target}")
    return True


def unlink(directory: WorkDirectory, where: str, name: str) -> bool:
    try:
        os.unlink(name, dir_fd=directory.fd(where))
    except FileNotFoundError:
        return False
    checkpoint(f"unlink {where}")
    return True


def lstat(directory: WorkDirectory, where: str, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=directory.fd(where), follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def is_record_file(directory: WorkDirectory, name: str) -> bool:
    """Whether done/`name` is a regular file: a directory or a link there is garbage to leave."""
    info = lstat(directory, DONE, name)
    return info is not None and stat.S_ISREG(info.st_mode)


def quarantine(directory: WorkDirectory, where: str, name: str, now: float) -> bool:
    """Move an entry that is not a record out of the way, into failed, under a safe name."""
    return rename(
        directory, source=where, name=name, target=FAILED, new=invalid_name(name, micros(now))
    )


# --- reading records ----------------------------------------------------------------------------


def open_entry(
    directory: WorkDirectory, where: str, name: str, *, append: bool = False
) -> tuple[int, int]:
    """Open a regular file of a state directory: its fd and size; RecordError when the entry
    is not one."""
    flags = (os.O_RDWR | os.O_APPEND | (_READ_FLAGS & ~os.O_RDONLY)) if append else _READ_FLAGS
    try:
        fd = os.open(name, flags, dir_fd=directory.fd(where))
    except OSError as error:
        if error.errno in GARBAGE_ERRNOS:
            raise RecordError(f"not a regular file ({error.strerror})") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RECORD_BYTES:
        os.close(fd)
        raise RecordError("not a regular file of a sane size")
    return fd, info.st_size


def read_all(fd: int, size: int) -> bytes:
    """The bytes of a record fstat found `size` long: one read as a rule, of that size (a buffer
    the size of the largest record allowed costs more to allocate than the read itself)."""
    data = os.read(fd, size + 1)
    if len(data) == size:  # fewer bytes than asked for: the end of the file
        return data
    chunks, total = [data], len(data)
    while total <= MAX_RECORD_BYTES and (chunk := os.read(fd, MAX_RECORD_BYTES + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def decode_entry(directory: WorkDirectory, where: str, name: str) -> Record:
    fd, size = open_entry(directory, where, name)
    try:
        return decode_record(read_all(fd, size), id_of_entry(name))
    finally:
        os.close(fd)


def append_line(fd: int, data: bytes, line: bytes, step: str) -> None:
    """Append `line` to the open record whose bytes are `data`, on a line of its own, synced."""
    os.write(fd, (b"" if data.endswith(b"\n") else b"\n") + line + b"\n")
    os.fsync(fd)
    checkpoint(step)


@contextlib.contextmanager
def recovery_lock(directory: WorkDirectory, *, wait: bool) -> Iterator[bool]:
    """Serialise the steps that remove dedup markers or publish a producer's item for it."""
    fd = os.open(
        RECOVERY_LOCK,
        os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=directory.root,
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
