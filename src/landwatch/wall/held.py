"""A run's own directory, held (flock) from before its name can be seen until it is removed: what
a run ended midway left (its worker past its budget, the reviewer killed) is removed by the next
one made beside it, never a directory still in use. The linters' workspaces and the project
hooks' checkouts are made here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from landwatch.files import remove_tree

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# A directory still named as being made (`.<prefix>…`) this long after it was made was left by
# a process killed between making it and holding it, microseconds apart: nobody will hold it.
MAKING_GRACE = 60.0


@contextlib.contextmanager
def held_directory(parent: Path | None, prefix: str) -> Iterator[Path]:
    """A private directory `<prefix>…` under `parent` (the system's temporary directory if
    None), held while the block runs and removed with all it holds after it. Those in `parent`
    nobody holds are removed first; never in the system's, which is every user's."""
    made = Path(tempfile.mkdtemp(prefix=f".{prefix}", dir=parent))
    try:
        held = os.open(made, _DIRECTORY)
    except OSError:
        remove_tree(made)
        raise
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        named = made.with_name(made.name[1:])
        os.rename(made, named)  # in sight of a sweep only once held
        made = named
        if parent is not None:
            _sweep(parent, prefix)
        yield made
    finally:
        remove_tree(made)
        os.close(held)


def _sweep(parent: Path, prefix: str) -> None:
    """The directories of `prefix` in `parent` that nobody holds, removed, and those left while
    being made (older than MAKING_GRACE)."""
    for left in parent.glob(f"{prefix}*"):
        try:
            fd = os.open(left, _DIRECTORY)
        except OSError:
            continue  # gone, or no directory
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            remove_tree(left)
        except BlockingIOError:
            pass  # another run's, still going
        finally:
            os.close(fd)
    for making in parent.glob(f".{prefix}*"):
        with contextlib.suppress(OSError):
            found = os.lstat(making)
            if stat.S_ISDIR(found.st_mode) and time.time() - found.st_mtime > MAKING_GRACE:
                remove_tree(making)
