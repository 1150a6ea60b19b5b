"""A run's own directory (wall.held): held from before its name can be seen until it is removed;
the next one made beside it removes what runs ended midway left, never a directory in use."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from landwatch.wall.held import MAKING_GRACE, held_directory
from support.sandbox import holding


def test_a_directory_is_removed_after_its_block_however_it_ends(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), held_directory(tmp_path, "run-") as place:
        (place / "deep" / "er").mkdir(parents=True)
        (place / "deep" / "er").chmod(0o500)
        assert place.name.startswith("run-") and place.parent == tmp_path
        raise RuntimeError("a run that went wrong")
    assert list(tmp_path.iterdir()) == []


def test_what_a_run_ended_midway_left_is_removed_by_the_next_never_a_running_one(
    tmp_path: Path,
) -> None:
    with holding(tmp_path, "run-") as (_, running), holding(tmp_path, "run-") as (killed, left):
        killed.kill()
        killed.wait()
        other = tmp_path / "other-1"  # another prefix's: not this sweep's
        other.mkdir()
        assert sorted(tmp_path.iterdir()) == sorted([left, running, other])
        with held_directory(tmp_path, "run-") as place:
            assert sorted(tmp_path.iterdir()) == sorted([running, place, other])
        assert (running / "tmp-left").exists()


def test_a_directory_left_while_being_made_is_removed_once_nobody_can_be_making_it(
    tmp_path: Path,
) -> None:
    """Killed between making its directory (`.run-…`) and holding it, a run left a name no
    sweep of held ones sees: past MAKING_GRACE it is removed; a younger one may be another
    run's, microseconds from being held, and is left."""
    old, young = tmp_path / ".run-old", tmp_path / ".run-young"
    old.mkdir()
    young.mkdir()
    made = time.time() - MAKING_GRACE - 5
    os.utime(old, (made, made))
    with held_directory(tmp_path, "run-") as place:
        assert sorted(tmp_path.iterdir()) == sorted([young, place])


def test_the_system_s_temporary_directory_is_every_user_s_and_is_not_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    left = tmp_path / "run-left"
    left.mkdir()
    with held_directory(None, "run-") as place:
        assert place.parent == tmp_path
    assert list(tmp_path.iterdir()) == [left]
