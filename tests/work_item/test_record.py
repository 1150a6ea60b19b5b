"""A work item's record (work_item.record): every field read back as written, and the repository an
item belongs to is the one its record was found in."""

from __future__ import annotations

import os
from pathlib import Path

from landwatch import work_item as w
from landwatch.work_item import PENDING, WorkItem, WorkKind
from support.queue import T, new_repository, oid


def test_record_round_trips_every_field(git_dir: Path, tmp_path: Path) -> None:
    tree = tmp_path / "odd name \udcff"  # a non-UTF-8 byte in the path survives
    full = WorkItem(WorkKind.PUSH, oid(3), git_dir, tree, oid(4), tries=2)
    w.enqueue(full, now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert claimed.item == full
    assert claimed.id == full.id


def test_the_repository_is_where_the_record_was_found(git_dir: Path, tmp_path: Path) -> None:
    w.enqueue(WorkItem(WorkKind.REVIEW, oid(1), git_dir), now=T)
    other = new_repository(tmp_path / "other")
    # A record moved into another repository belongs to that repository, whatever it says.
    (other / "landwatch" / PENDING).mkdir(parents=True)
    name = w.entries(git_dir, PENDING)[0]
    os.rename(git_dir / "landwatch" / PENDING / name, other / "landwatch" / PENDING / name)
    claimed = w.claim_next(other, now=T)
    assert claimed is not None and claimed.item.git_dir == other
