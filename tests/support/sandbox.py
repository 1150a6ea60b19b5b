"""bubblewrap for the tests that run something behind the wall: Debian's, which ./run-tests
unpacks, or the system's; `needs_bwrap` skips a test where it is not here or cannot run (user
namespaces). `AS_YOU` is the wall the person turned off (`landwatch.sandbox false`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch.wall.door import Wall, choose
from support import TOOLS

UNPACKED = TOOLS / "bubblewrap" / "usr" / "bin"
BWRAP = str(UNPACKED / "bwrap") if (UNPACKED / "bwrap").exists() else shutil.which("bwrap")
WITH_BWRAP = f"{Path(BWRAP).parent}{os.pathsep}{os.environ['PATH']}" if BWRAP else ""
AS_YOU = Wall(None, "the tests' own: landwatch.sandbox false")

# A program mapping argv[1] bytes of its own (private, writable: what RLIMIT_DATA counts), without
# touching them: no memory is used either way, so the test costs nothing where it is not bounded.
MAPPING = """\
import mmap, sys
try:
    mmap.mmap(-1, int(sys.argv[1]), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    print("held")
except OSError:
    print("refused")
"""


def usable() -> Wall | None:
    """The wall on this machine, None where bubblewrap is not here or cannot run."""
    return choose(True, WITH_BWRAP)[0] if BWRAP else None


def walled() -> Wall:
    wall = usable()
    assert wall is not None
    return wall


needs_bwrap = pytest.mark.skipif(
    usable() is None,
    reason="bubblewrap is not here, or cannot run here: ./run-tests unpacks Debian's "
    "(apt-get download bubblewrap), and it needs user namespaces",
)


@contextlib.contextmanager
def far_away(name: str) -> Iterator[Path]:
    """A directory of the person's outside /tmp (under /home), removed after: where the wall's
    tests keep what it must hide. The sandbox before the wall hid /tmp whole, so what the tests
    put under their tmp_path proved nothing of the rest of the machine."""
    root = Path("/home")
    if not root.is_dir() or not os.access(root, os.W_OK):
        pytest.skip("the wall's tests keep their secrets under /home, which is not writable here")
    place = Path(tempfile.mkdtemp(prefix=f"landwatch-test-{name}-", dir=root))
    try:
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)
