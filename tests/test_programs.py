"""Finding a program by its name (programs.which): PATH's absolute directories only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch.programs import which


@pytest.mark.parametrize("entry", ["", ".", "bin", "./bin"])
def test_an_entry_naming_the_working_directory_finds_nothing_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """A clone's own `tool` is not found through an empty or relative PATH entry, which
    shutil.which, like a shell, reads from the working directory; an absolute one still is."""
    for place in (tmp_path, tmp_path / "bin", tmp_path / "abs"):
        place.mkdir(exist_ok=True)
        (place / "tool").write_text("#!/bin/sh\n")
        (place / "tool").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert which("tool", entry) is None
    assert which("tool", os.pathsep.join([entry, str(tmp_path / "abs")])) == str(
        tmp_path / "abs" / "tool"
    )
    monkeypatch.setenv("PATH", entry + os.pathsep)
    assert which("tool") is None
