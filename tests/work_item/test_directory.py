"""The file-system steps of the queue (work_item.directory): a state or work directory that is a
link is refused, nothing written through it; a record read in one read, never more than the cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import PENDING
from landwatch.work_item.directory import read_all
from support.queue import T, item


def test_symlinked_state_directory_is_not_followed(git_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / "landwatch").mkdir(mode=0o700)
    (git_dir / "landwatch" / PENDING).symlink_to(elsewhere)
    with pytest.raises(w.QueueError):
        w.enqueue(item(git_dir, 1), now=T)
    assert list(elsewhere.iterdir()) == []


def test_symlinked_work_directory_is_refused(git_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / "landwatch").symlink_to(elsewhere)
    with pytest.raises(w.QueueError):
        w.enqueue(item(git_dir, 1), now=T)
    with pytest.raises(w.QueueError):
        w.claim_next(git_dir, now=T)
    assert list(elsewhere.iterdir()) == []


def test_a_record_is_read_in_one_read_and_whole_when_it_grew_since_fstat(tmp_path: Path) -> None:
    path = tmp_path / "record"
    path.write_bytes(b"x" * 100)
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        assert read_all(fd, size) == b"x" * 100
        os.lseek(fd, 0, os.SEEK_SET)
        path.write_bytes(b"x" * 100 + b"y" * (w.MAX_RECORD_BYTES + 10))  # grew since
        data = read_all(fd, size)
        assert data.startswith(b"x" * 100 + b"y")
        assert len(data) == w.MAX_RECORD_BYTES + 1  # enough to be refused, no more
    finally:
        os.close(fd)
