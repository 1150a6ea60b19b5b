"""Reading and writing landwatch's own files: whole or absent to every reader, private, and inside
a repository never through a link and never blocked by a FIFO.

Every file of ours outside the queue (reports, state, stamps, the registry, the entry point, the
hooks) goes through here; the queue has its own protocol in work_item. `trusted` names the
directory below which nothing is followed: a repository's git dir, whose contents a copied or
unpacked repository may have planted; None for the person's own directories, where a link is
theirs (a dotfiles manager links ~/.config/...).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat

# Not typing's, and no pathlib at run time (a path is worked on with its own methods, or with
# os.path): `landwatch prompt` reads through here at every shell prompt, and pays imports.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIRECTORY = 0o700
MAX_READ = 64 << 20
# git's pointer files hold one path and a newline (a `.git` file `gitdir: ` before it): what is
# larger is no pointer git wrote, and is not read on (a planted one could be gigabytes).
POINTER_LIMIT = 4 << 10
# Free space below this is a full disk to landwatch: a review's report and the queue's moves
# need a few pages, a large report a few hundred KiB.
LEAST_FREE = 1 << 20

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO planted where a file should be returns at once instead of waiting.
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _refused(path: Path | str, why: str) -> OSError:
    return OSError(errno.ELOOP, f"{why}; not following it", str(path))


def _named(error: OSError, path: Path | str) -> OSError:
    """`error` naming `path` whole: one raised for a name opened by its directory's fd names
    only the last part (`allowed: Read-only file system`), or nothing at all (a write)."""
    if error.errno is None or not error.strerror:
        return error
    return OSError(error.errno, error.strerror, str(path))  # the same subclass, by errno


def _make(path: Path | str) -> None:
    try:
        os.mkdir(path, PRIVATE_DIRECTORY)
    except FileNotFoundError:
        _make(os.path.dirname(os.fspath(path)) or os.curdir)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, PRIVATE_DIRECTORY)
    except FileExistsError:
        pass


def _below(path: Path | str, trusted: Path | str) -> list[str]:
    """The names from `trusted` down to `path`; ValueError when it is not below (a caller's
    mistake). Read from the two paths alone, `..` included: nothing is looked up."""
    relative = os.path.relpath(path, trusted)
    if relative == os.curdir:
        return []
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise ValueError(f"{path} is not below {trusted}")
    return relative.split(os.sep)


def _open_directory(path: Path | str, *, trusted: Path | str | None, create: bool) -> int:
    """An fd of directory `path`, made 0700 (with missing parents) when `create`."""
    if trusted is None:
        if create:
            _make(path)
        return os.open(path, _DIRECTORY)
    parts = _below(path, trusted)
    fd = os.open(trusted, _DIRECTORY)
    reached = os.fspath(trusted)
    try:
        for part in parts:
            reached = os.path.join(reached, part)
            try:
                inner = os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError as error:
                if not create:
                    raise _named(error, reached) from None
                inner = _made_below(fd, part, reached)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refused(reached, "not a directory (a link or a file)") from None
                raise _named(error, reached) from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _made_below(fd: int, part: str, reached: str) -> int:
    """Directory `part` of the directory open at `fd` made 0700 and opened; `reached` its path."""
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, PRIVATE_DIRECTORY, dir_fd=fd)
        return os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError as error:
        raise _named(error, reached) from None


def private_directory(path: Path, *, trusted: Path | None) -> Path:
    """`path` as a directory of ours, made 0700 if missing (and any missing parents); below
    `trusted`, a link or a file on the way is refused with OSError rather than followed."""
    os.close(_open_directory(path, trusted=trusted, create=True))
    return path


def write_atomic(
    path: Path,
    data: bytes | str,
    *,
    trusted: Path | None,
    mode: int = PRIVATE_FILE,
    durable: bool = True,
    make_directory: bool = True,
) -> Path:
    """Replace `path` with `data`: a temp file beside it, written, renamed over it.

    Readers see the old content or the new, never a part. `durable` also syncs the file and the
    directory, so the new content survives a power cut once this returns. The file gets exactly
    `mode` (not reduced by the umask); a link at `path` is replaced, never written through. The
    directory is made private if missing (unless `make_directory` is False: the hooks directory
    is git's). A str is written as the bytes it stands for: a path that is not UTF-8 (held with
    os.fsdecode's surrogate escapes) as that path.
    """
    payload = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    directory_fd = _open_directory(path.parent, trusted=trusted, create=make_directory)
    # os.urandom, not the secrets module: light to import (see TYPE_CHECKING).
    temporary = f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        fd = os.open(temporary, _CREATE, mode, dir_fd=directory_fd)
        try:
            os.fchmod(fd, mode)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path.name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
        if durable:
            os.fsync(directory_fd)
    except BaseException as error:
        with contextlib.suppress(OSError):  # gone already once renamed
            os.unlink(temporary, dir_fd=directory_fd)
        if isinstance(error, OSError):
            raise _named(error, path) from None  # a full disk says which file it refused
        raise
    finally:
        os.close(directory_fd)
    return path


def _open_by_name(path: Path | str, flags: int, *, trusted: Path | str | None, create: bool) -> int:
    """`path` opened (`flags`, which hold O_NOFOLLOW) by its name in its directory, that opened
    below `trusted`: a link at `path` is an OSError saying so, never followed."""
    parent, name = os.path.split(os.fspath(path))
    directory_fd = _open_directory(parent or os.curdir, trusted=trusted, create=create)
    try:
        return os.open(name, flags, PRIVATE_FILE, dir_fd=directory_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _refused(path, "a link") from None
        raise
    finally:
        os.close(directory_fd)


def read_file(path: Path | str, *, trusted: Path | str | None, limit: int = MAX_READ) -> bytes:
    """The content of the regular file `path`, at most `limit` bytes; FileNotFoundError when it
    is not there, OSError when it is a link, a FIFO or anything but a regular file."""
    fd = _open_by_name(path, _READ, trusted=trusted, create=False)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refused(path, "not a regular file")
        chunks = []
        size = 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_directory(path: Path | str) -> bool:
    """Whether `path` is a directory itself: a link to one is not, nor is what is not there."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def read_pointer(path: Path | str) -> str | None:
    """The path git's pointer file `path` holds (`commondir`, `gitdir`, a `.git` file), stripped;
    None for no pointer: missing, empty, larger than POINTER_LIMIT, a link, a FIFO, a device."""
    try:
        said = os.fsdecode(read_file(path, trusted=None, limit=POINTER_LIMIT)).strip()
    except OSError:
        return None
    # No path holds a NUL (os refuses one with ValueError), nor is one empty.
    return said if said and "\0" not in said else None


def read_head(path: Path | str, size: int) -> bytes:
    """The first `size` bytes of the regular file `path`, through a link at its name (a hook git
    runs through a link is that hook), never waiting on a FIFO; OSError for anything else."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_tail(path: Path | str, *, trusted: Path | str | None, size: int) -> bytes:
    """The last `size` bytes of the regular file `path` (a reflog's newest lines), refused as
    read_file refuses: a link, a FIFO, anything but a regular file is an OSError."""
    fd = _open_by_name(path, _READ, trusted=trusted, create=False)
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise _refused(path, "not a regular file")
        return os.pread(fd, size, max(0, found.st_size - size))
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(lock: Path, *, trusted: Path | None = None) -> Iterator[None]:
    """Hold flock(2) on the lock file `lock` (made 0600, its directory 0700; below `trusted`,
    never through a link): read, change and rewrite something without losing a concurrent
    writer's change."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = _open_by_name(lock, flags, trusted=trusted, create=True)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def held_lock(path: Path | str) -> bytes | None:
    """What the lock file `path` holds while another process holds flock(2) on it (its first
    4 KB); None when nobody does, or it is no regular file (no link followed, no FIFO waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.read(fd, 4096)
        return None  # we got the lock: nobody holds it
    finally:
        os.close(fd)


def remove(path: Path, *, trusted: Path | None) -> bool:
    """Remove the file `path` (a link there is removed, not followed); False when not there."""
    try:
        directory_fd = _open_directory(path.parent, trusted=trusted, create=False)
    except FileNotFoundError:
        return False
    try:
        os.unlink(path.name, dir_fd=directory_fd)
    except FileNotFoundError:
        return False
    finally:
        os.close(directory_fd)
    return True


def remove_tree(path: Path | str) -> bool:
    """The directory `path` removed with all it holds, whatever a program behind the wall left
    there: a directory it made unwritable (`chmod 555`), 1,000 levels deep, a link (removed,
    never followed). Whether it is gone. shutil.rmtree gave up on the first (its leftovers
    piled up at every run) and raised RecursionError on the second, failing the job.

    Without recursion or a long path: each directory met is moved up beside the first level
    and emptied there, so two descriptors are open at a time, whatever the depth."""
    try:
        top = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        os.fchmod(top, 0o700)
        pending = [entry.name for entry in os.scandir(top) if _is_directory(entry)]
        _unlink_others(top)
        while pending:
            name = pending.pop()
            with contextlib.suppress(OSError):
                os.chmod(name, 0o700, dir_fd=top)
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
                try:
                    for entry in list(os.scandir(inner)):
                        if _is_directory(entry):
                            up = f".removed-{os.urandom(8).hex()}"  # no name it could have made
                            os.chmod(entry.name, 0o700, dir_fd=inner)
                            os.rename(entry.name, up, src_dir_fd=inner, dst_dir_fd=top)
                            pending.append(up)
                    _unlink_others(inner)
                finally:
                    os.close(inner)
                os.rmdir(name, dir_fd=top)
    except OSError:
        pass
    finally:
        os.close(top)
    with contextlib.suppress(OSError):
        os.rmdir(path)
    return not os.path.lexists(path)


def _is_directory(entry: os.DirEntry[str]) -> bool:
    with contextlib.suppress(OSError):
        return entry.is_dir(follow_symlinks=False)
    return False


def _unlink_others(directory: int) -> None:
    """Everything in the directory open as `directory` but directories, unlinked."""
    for entry in list(os.scandir(directory)):
        if not _is_directory(entry):
            with contextlib.suppress(OSError):
                os.unlink(entry.name, dir_fd=directory)


def list_entries(
    path: Path | str, *, trusted: Path | str | None
) -> list[tuple[str, os.stat_result]]:
    """(name, lstat) of every entry of directory `path` (none when it is missing)."""
    try:
        directory_fd = _open_directory(path, trusted=trusted, create=False)
    except FileNotFoundError:
        return []
    found = []
    try:
        for name in os.listdir(directory_fd):
            try:
                found.append((name, os.stat(name, dir_fd=directory_fd, follow_symlinks=False)))
            except FileNotFoundError:
                continue  # removed while we looked
    finally:
        os.close(directory_fd)
    return found


def no_room(path: Path | str) -> tuple[str, str] | None:
    """Why nothing more can be written in directory `path` (its filesystem read-only or full:
    free space under LEAST_FREE or no inode left; or not writable by you) and what mends it;
    None when it can be. Read from statvfs and the mode bits: nothing is written to find out."""
    try:
        disk = os.statvfs(path)
    except OSError:
        return None  # missing or unreadable: the caller's own checks say so
    import shlex  # here: `landwatch prompt` reads through this module and pays every import

    quoted = shlex.quote(os.fspath(path))
    if disk.f_flag & os.ST_RDONLY:
        return "its filesystem is read-only", f"remount the filesystem holding {quoted} rw"
    free = disk.f_bavail * disk.f_frsize
    if disk.f_files and not disk.f_favail:
        return "its filesystem is full (no inode left)", f"make room where {quoted} is"
    if free < LEAST_FREE:
        return f"its filesystem is full ({free >> 10} KiB free)", f"make room where {quoted} is"
    if not os.access(path, os.W_OK | os.X_OK):
        return "it is not writable by you", f"chmod u+rwx {quoted}"
    return None
