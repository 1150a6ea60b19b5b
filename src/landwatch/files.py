"""Writing landwatch's own files: whole or absent to every reader, private, never through a link.

Every file of ours outside the queue (reports, state, stamps, the registry, the entry point, the
hooks) is written by `write_atomic`; the queue has its own protocol in work_item.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIRECTORY = 0o700

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def private_directory(path: Path, *, follow_links: bool = False) -> Path:
    """`path` as a directory of ours, made 0700 if missing (and any missing parents).

    Inside a repository nothing is reached through a link (a cloned repository may plant one):
    a link there is refused with OSError. `follow_links` is for the person's own directories
    (a dotfiles manager links ~/.config/...).
    """
    _make(path)
    flags = _DIRECTORY_FLAGS if follow_links else _DIRECTORY_FLAGS | os.O_NOFOLLOW
    os.close(os.open(path, flags))  # ELOOP for a link, ENOTDIR for a file
    return path


def _make(path: Path) -> None:
    try:
        os.mkdir(path, PRIVATE_DIRECTORY)
    except FileNotFoundError:
        _make(path.parent)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, PRIVATE_DIRECTORY)
    except FileExistsError:
        pass


def write_atomic(
    path: Path,
    data: bytes | str,
    *,
    mode: int = PRIVATE_FILE,
    durable: bool = True,
    make_directory: bool = True,
    follow_links: bool = False,
) -> Path:
    """Replace `path` with `data`: a temp file beside it, written, renamed over it.

    Readers see the old content or the new, never a part. `durable` also syncs the file and the
    directory, so the new content survives a power cut once this returns. The file gets exactly
    `mode` (not reduced by the umask); a link at `path` is replaced, never written through. The
    directory is made private if missing (unless `make_directory` is False: the hooks directory
    is git's) and never reached through a link (unless `follow_links`: see private_directory).
    """
    payload = data.encode() if isinstance(data, str) else data
    if make_directory:
        private_directory(path.parent, follow_links=follow_links)
    flags = _DIRECTORY_FLAGS if follow_links else _DIRECTORY_FLAGS | os.O_NOFOLLOW
    directory_fd = os.open(path.parent, flags)
    temporary = f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(temporary, _CREATE_FLAGS, mode, dir_fd=directory_fd)
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
    except BaseException:
        with contextlib.suppress(OSError):  # gone already once renamed
            os.unlink(temporary, dir_fd=directory_fd)
        raise
    finally:
        os.close(directory_fd)
    return path
