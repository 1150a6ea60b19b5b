"""bubblewrap for the tests that run something sandboxed: Debian's, which ./run-tests unpacks, or
the system's; `needs_bwrap` skips a test where it is not here or cannot run (user namespaces)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from landwatch.review import sandbox
from support import TOOLS

UNPACKED = TOOLS / "bubblewrap" / "usr" / "bin"
BWRAP = str(UNPACKED / "bwrap") if (UNPACKED / "bwrap").exists() else shutil.which("bwrap")
WITH_BWRAP = f"{Path(BWRAP).parent}{os.pathsep}{os.environ['PATH']}" if BWRAP else ""


def usable() -> sandbox.Sandbox | None:
    return sandbox.find(WITH_BWRAP)[0] if BWRAP else None


needs_bwrap = pytest.mark.skipif(
    usable() is None,
    reason="bubblewrap is not here, or cannot run here: ./run-tests unpacks Debian's "
    "(apt-get download bubblewrap), and it needs user namespaces",
)
