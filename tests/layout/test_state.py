"""landwatch's versioned state files read whole: none, one this release reads, one it cannot read
(each way said in words a person can act on), one a newer release wrote; and written with the
format this release writes, over nothing it could not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landwatch import layout
from landwatch.layout import Place, Scope
from landwatch.layout.state import StateError, read_state, write_state
from support.repos import Repo

# A repository's versioned state file, as a `Place` names one.
KEPT = Place("kept.json", Scope.REPOSITORY, "tests", "a versioned state file", format=1)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\x00garbage{", "cannot be read (not JSON)"),
        # An audit: nested past the stack (planted in an unpacked repository), status failed.
        (b"[" * 100_000 + b"]" * 100_000, "cannot be read (not JSON)"),
        (b"[1, 2]", "cannot be read (not a file landwatch wrote: no format)"),
        (b'{"reflogs": {}}', "cannot be read (not a file landwatch wrote: no format)"),
        (b'{"format": true}', "cannot be read (not a file landwatch wrote: no format)"),
        (b'{"format": 0}', "cannot be read (format 0, which no landwatch writes)"),
    ],
)
def test_a_state_file_that_cannot_be_read_is_said_not_taken_for_none(
    repo: Repo, content: bytes, why: str
) -> None:
    path = KEPT.path(repo.git_dir)
    path.write_bytes(content)
    with pytest.raises(StateError) as raised:
        read_state(KEPT, repo.git_dir)
    assert str(raised.value) == f"{path} {why}" and not raised.value.newer
    assert raised.value.fix == f"mend it, or move it aside to start afresh (mv {path} {path}.aside)"


def test_a_newer_release_s_file_is_told_apart_and_a_write_refused_in_one_line(
    tmp_path: Path,
) -> None:
    path = layout.TRUST.path()
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 2, "approvals": {}}')
    with pytest.raises(StateError) as raised:
        read_state(layout.TRUST)
    error = raised.value
    assert error.newer and str(error) == (
        f"{path} was written by a newer landwatch (format 2; this one reads 1)"
    )
    refused = error.refusing("nothing was approved")
    assert str(refused) == (
        f"{error}: nothing was approved, so as not to lose what it holds; upgrade landwatch to "
        f"the release that wrote it, or move it aside to start afresh (mv {path} {path}.aside)"
    )


def test_none_is_none_and_what_is_written_is_read_back_with_its_format(repo: Repo) -> None:
    assert read_state(KEPT, repo.git_dir) is None
    write_state(KEPT, {"remote": "origin", "format": 7}, repo.git_dir)
    kept = read_state(KEPT, repo.git_dir)
    assert kept == {"format": 1, "remote": "origin"}
    path = KEPT.path(repo.git_dir)
    assert json.loads(path.read_text()) == kept and path.stat().st_mode & 0o777 == 0o600


def test_a_repository_s_state_file_is_never_read_through_a_link(repo: Repo, tmp_path: Path) -> None:
    """A copied or unpacked repository may have planted a link where its state is kept."""
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"format": 1}')
    KEPT.path(repo.git_dir).symlink_to(elsewhere)
    with pytest.raises(StateError, match="cannot be read"):
        read_state(KEPT, repo.git_dir)


def test_every_versioned_state_file_is_one_place() -> None:
    assert layout.state_places() == (layout.TRUST, layout.SWEEP_STATE, layout.SHARE_UNDO)
