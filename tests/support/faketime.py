"""libfaketime (Debian's package) for the processes a test starts: their wall clock moved by an
offset the test changes while they run, their monotonic clock left alone, as a clock step is.

./run-tests unpacks the package into .test-tools (LANDWATCH_TEST_TOOLS); a machine where it could
not be had skips the tests that need it, and says why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support import ROOT

TOOLS = Path(os.environ.get("LANDWATCH_TEST_TOOLS", ROOT / ".test-tools"))
# Its sitecustomize.py gives the faked Pythons a time.sleep that libfaketime does not break.
SITE = Path(__file__).with_name("faketime_site")
# Where the package puts it, unpacked into the tools or installed.
_LIBRARY = "usr/lib/*/faketime/libfaketime.so.1"


def library() -> Path:
    """libfaketime.so.1, or the test is skipped with the reason."""
    for root in (TOOLS / "faketime", Path("/")):
        found = sorted(root.glob(_LIBRARY))
        if found:
            return found[0]
    pytest.skip(f"libfaketime is not here (./run-tests unpacks Debian's faketime into {TOOLS})")


class FakeTime:
    """The environment of a process whose wall clock runs `offset` from the real one, and the
    offset changed while it runs: a step of its clock, seen at its next reading."""

    def __init__(self, directory: Path, offset: str = "+0") -> None:
        self.file = directory / "faketime-offset"
        self.set(offset)
        self.env = {
            "LD_PRELOAD": str(library()),
            "FAKETIME_TIMESTAMP_FILE": str(self.file),
            "FAKETIME_NO_CACHE": "1",  # read the offset at every reading: a step is seen at once
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",  # a step moves the wall clock only
        }

    def python_env(self, env: dict[str, str]) -> dict[str, str]:
        """`env` (a landwatch process's) with the faked clock, and the time.sleep that works
        under it first on the path."""
        path = os.pathsep.join(filter(None, (str(SITE), env.get("PYTHONPATH", ""))))
        return {**env, **self.env, "PYTHONPATH": path}

    def set(self, offset: str) -> None:
        """`+1d`, `-3600`, `+0` (libfaketime's relative offsets)."""
        temporary = self.file.with_suffix(".new")
        temporary.write_text(offset + "\n")
        temporary.replace(self.file)  # whole, never half a line read by the process
