"""The compiled secret rule set kept in landwatch's own private directory, checked at every load
against the SHA-256 of each file recorded when landwatch compiled it, and compiled again there
when anything differs: kingfisher's own cache (~/.cache) is one a repository's build can write.

Where it is comes from the environment (DIRECTORY_VARIABLE), which the front door sets to a
place of landwatch's state: the review knows nothing of the layout, and a reviewer's workers
inherit it. Without it, the rules are compiled in memory and nothing is read from disk.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar

DIRECTORY_VARIABLE = "LANDWATCH_SECRET_RULES"
# Beside kingfisher's files: `<sha256>  <name>` a line (as sha256sum writes, and checks with -c).
RECORD = "rules.sha256"
LOCK = "lock"  # held while the directory is checked, compiled into and recorded
_OURS = frozenset({RECORD, LOCK})
# A compiled database is a few megabytes; what is larger is no file kingfisher wrote.
_LARGEST = 256 << 20
_LARGEST_RECORD = 64 << 10  # and of the annex
# Less free space than this where a compiled database (about 2.5 MB) was not kept: a full disk.
_ROOM = 16 << 20
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO where a file should be opens at once instead of waiting.
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Compiled(Protocol):
    """What kingfisher's `Rules` says of its disk cache: loaded, stored or bypassed."""

    @property
    def cache_status(self) -> str: ...


C = TypeVar("C", bound=Compiled)


def _warn(message: str, *args: object) -> None:
    """One line in the log; logging is imported only then (every command of the front door
    imports this module for DIRECTORY_VARIABLE)."""
    import logging

    logging.getLogger(__name__).warning(message, *args)


def directory() -> str | None:
    """Where landwatch keeps the compiled rules (an absolute path), or None: nowhere."""
    where = os.environ.get(DIRECTORY_VARIABLE, "")
    return where if os.path.isabs(where) else None


# A file derived from the compiled rules, kept and recorded beside them: its name, and how it is
# made from the rules and the digests of kingfisher's files it was made beside.
Annex = tuple[str, Callable[[C, dict[str, str]], bytes]]


def load(build: Callable[[str | None], C], where: str | None, annex: Annex[C] | None = None) -> C:
    """`build(cache_dir)`, kingfisher's rules, read from `where` only when every file there is
    what landwatch recorded; otherwise compiled into it afresh and recorded, with the `annex`
    (kept until the rules are compiled again). `build(None)` compiles in memory: where there is
    no `where`, or it cannot be made a private directory."""
    if where is None:
        return build(None)
    try:
        fd = _private_directory(where)
    except OSError as error:
        _warn("the secret rules are not kept in %s: %s", where, error.strerror or error)
        return build(None)
    try:
        with _locked(fd):
            return _checked(build, where, fd, annex)
    except OSError as error:  # the lock, or clearing what was there
        _warn("the secret rules are not kept in %s: %s", where, error.strerror or error)
        return build(None)
    finally:
        os.close(fd)


def _checked(build: Callable[[str | None], C], where: str, fd: int, annex: Annex[C] | None) -> C:
    """The rules from `where` (open as `fd`, locked): loaded when its files are as recorded,
    else compiled into it, and what kingfisher stored recorded with the annex."""
    recorded = _recorded(fd)
    kept = recorded is not None and _digests(fd) == recorded
    if not kept:
        _clear(fd)
    rules = build(where)
    status = rules.cache_status
    annexed = annex is not None and recorded is not None and annex[0] in recorded
    if status == "stored" or (status == "loaded" and kept and annex is not None and not annexed):
        try:
            _keep(fd, rules, annex)
        except OSError as error:  # a full disk: compiled again next time, nothing worse
            _warn("the secret rules' digests were not recorded in %s: %s", where, error)
    elif status == "loaded" and not kept:
        # Nothing was left to load but what could not be removed: that is not to be trusted.
        _warn("the secret rules in %s could not be cleared; compiled in memory", where)
        return build(None)
    elif status != "loaded":
        _warn(
            "kingfisher did not keep compiled rules in %s: %s; they are compiled in every process",
            where,
            _not_kept(fd),
        )
    return rules


def _not_kept(fd: int) -> str:
    """Why kingfisher kept nothing in the directory open as `fd`, as far as its disk tells:
    kingfisher says only that it did not."""
    disk = os.fstatvfs(fd)
    free = disk.f_bavail * disk.f_frsize
    if disk.f_flag & os.ST_RDONLY:
        return "its disk is read-only"
    if free < _ROOM:
        return f"its disk is full ({free >> 10} KiB free)"
    return "a directory on the way is another user's or open to others"


def _keep(fd: int, rules: C, annex: Annex[C] | None) -> None:
    """The annex made (any older one removed) and written, then every file's digest recorded."""
    if annex is not None:
        name, make = annex
        stale = [other for other in os.listdir(fd) if other.startswith(_stem(name))]
        for other in stale:
            os.unlink(other, dir_fd=fd)
        digests = _digests(fd)
        if digests is None:
            return
        _write(fd, name, make(rules, digests))
    digests = _digests(fd)
    if digests is not None:
        _record(fd, digests)


def _stem(name: str) -> str:
    """What every version of an annex's name starts with: `anchors-` of `anchors-<id>.json`."""
    return name.split("-", 1)[0] + "-"


def kept(where: str, name: str) -> tuple[bytes, dict[str, str]] | None:
    """The annex `name` in `where` and the record, when the record holds the annex as it is;
    None otherwise (the rules never compiled there, compiled by another version, or altered).
    Read without the lock: a compile under way at worst makes this None."""
    try:
        fd = os.open(where, _DIRECTORY)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if found.st_uid != os.geteuid() or stat.S_IMODE(found.st_mode) & 0o077:
            return None
        recorded = _recorded(fd)
        if recorded is None or name not in recorded:
            return None
        data = _read(fd, name)
        import hashlib  # 3 ms, only where a digest is made

        if data is None or hashlib.sha256(data).hexdigest() != recorded[name]:
            return None
        return data, recorded
    except OSError:
        return None
    finally:
        os.close(fd)


def unusable(where: str) -> str | None:
    """Why `where` cannot keep the compiled rules, made as `load` makes it (a read-only home in
    CI, a link); None where it can."""
    try:
        fd = _private_directory(where)
        try:  # the lock `load` opens to write first (an audit: a read-only mount); held by
            # another process, it is busy, not unusable, and never waited on here (an audit)
            lock = os.open(
                LOCK,
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                0o600,
                dir_fd=fd,
            )
            os.close(lock)
        finally:
            os.close(fd)
    except OSError as error:
        return error.strerror or str(error)
    return None


def _private_directory(path: str) -> int:
    """An fd of the directory `path`, ours and made 0700 (created with its missing parents);
    OSError when it is a link, not a directory, or another user's."""
    try:
        try:
            fd = os.open(path, _DIRECTORY)
        except FileNotFoundError:
            _make(path)
            fd = os.open(path, _DIRECTORY)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise OSError(error.errno, "a link or a file, not followed", path) from None
        raise
    try:
        found = os.fstat(fd)
        if found.st_uid != os.geteuid():
            raise OSError(errno.EPERM, "another user's directory", path)
        if stat.S_IMODE(found.st_mode) != 0o700:
            os.fchmod(fd, 0o700)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _make(path: str) -> None:
    """`path` and its missing parents made, each 0700."""
    parent = os.path.dirname(path)
    if parent != path and not os.path.isdir(parent):
        _make(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    """flock(2) on the directory's lock file: one process checks and compiles at a time, and
    the others then load what it recorded."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    lock = os.open(LOCK, flags, 0o600, dir_fd=fd)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)


def _digests(fd: int) -> dict[str, str] | None:
    """The SHA-256 of every file in the directory but landwatch's own; None when one is not a
    private regular file of ours (a link, a directory, a FIFO, another's, too large)."""
    digests = {}
    for name in os.listdir(fd):
        if name in _OURS:
            continue
        try:
            digests[name] = _digest(fd, name)
        except OSError:
            return None
    return digests


def _digest(fd: int, name: str) -> str:
    """The SHA-256 of the private regular file `name`, opened without following a link."""
    file = os.open(name, _READ, dir_fd=fd)
    try:
        found = os.fstat(file)
        if not stat.S_ISREG(found.st_mode) or found.st_uid != os.geteuid():
            raise OSError(errno.EPERM, "not a regular file of ours", name)
        if found.st_mode & 0o077 or found.st_size > _LARGEST:
            raise OSError(errno.EPERM, "open to others, or too large", name)
        import hashlib  # 3 ms, only where a digest is made

        digest = hashlib.sha256()
        while chunk := os.read(file, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(file)


def _recorded(fd: int) -> dict[str, str] | None:
    """What landwatch recorded when it compiled: name to SHA-256; None when the record is
    missing, not a private regular file, or not one landwatch writes."""
    data = _read(fd, RECORD)
    if data is None:
        return None
    recorded = {}
    try:
        for line in data.decode("ascii").splitlines():
            digest, name = line.split("  ", 1)
            if len(digest) != 64 or digest.strip("0123456789abcdef") or not _plain(name):
                return None
            recorded[name] = digest
    except ValueError:  # not ASCII, a line without its two spaces
        return None
    return recorded


def _read(fd: int, name: str) -> bytes | None:
    """The small file `name` whole, when it is a private regular file of ours; else None."""
    try:
        file = os.open(name, _READ, dir_fd=fd)
    except OSError:
        return None
    try:
        found = os.fstat(file)
        if not stat.S_ISREG(found.st_mode) or found.st_mode & 0o077:
            return None
        if found.st_uid != os.geteuid():
            return None
        data = os.read(file, _LARGEST_RECORD + 1)
    finally:
        os.close(file)
    return data if len(data) <= _LARGEST_RECORD else None


def _plain(name: str) -> bool:
    return name not in _OURS and name not in ("", ".", "..") and "/" not in name


def _clear(fd: int) -> None:
    """Everything in the directory removed but the lock, the record first (a process that dies
    here leaves nothing a later one takes for recorded); links are removed, never followed."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(RECORD, dir_fd=fd)
    for name in os.listdir(fd):
        if name == LOCK:
            continue
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            os.rmdir(name, dir_fd=fd)  # an empty one; anything more is an OSError to say


def _record(fd: int, digests: dict[str, str]) -> None:
    """The record written whole, 0600."""
    text = "".join(f"{digest}  {name}\n" for name, digest in sorted(digests.items()))
    _write(fd, RECORD, text.encode("ascii"))


def _write(fd: int, name: str, data: bytes) -> None:
    """`name` written whole (a temp file renamed over it), 0600."""
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    file = os.open(temporary, flags, 0o600, dir_fd=fd)
    try:
        os.fchmod(file, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(file, view) :]
    finally:
        os.close(file)
    os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
