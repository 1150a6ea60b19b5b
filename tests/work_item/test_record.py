"""A work item's record (work_item.record): every field read back as written, and the repository an
item belongs to is the one its record was found in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import PENDING, WorkItem, WorkKind
from landwatch.work_item.record import decode_record, encode_record
from support.queue import T, new_repository, oid


def test_record_round_trips_every_field(git_dir: Path, tmp_path: Path) -> None:
    tree = tmp_path / "odd name \udcff"  # a non-UTF-8 byte in the path survives
    full = WorkItem(WorkKind.PUSH, oid(3), git_dir, tree, oid(4), 2, oid(5), (oid(6), oid(7)))
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


def test_every_commit_a_squash_replaced_is_named_within_the_bound(git_dir: Path) -> None:
    """`rewritten` as it always was (a record of before also-rewritten reads as it did), the
    rest of a squash on one `also-rewritten` line; ids that are not ones passed over, and no
    more than MAX_REWRITTEN named in all."""
    squash = WorkItem(WorkKind.REVIEW, oid(1), git_dir, rewritten=oid(2), also_rewritten=(oid(3),))
    assert squash.also_rewritten == (oid(3),) and squash.replaced == (oid(2), oid(3))
    record = encode_record(squash, enqueued=T, producer=("host", "-", 1))
    assert b"\nrewritten " + oid(2).encode() + b"\nalso-rewritten " + oid(3).encode() in record
    older = record.replace(b"also-rewritten " + oid(3).encode() + b"\n", b"")
    assert decode_record(older, squash.id).item(git_dir).replaced == (oid(2),)
    many = " ".join([oid(4), "garbage", "ABC" * 13 + "D", *(oid(n) for n in range(6, 300))])
    odd = record.replace(oid(3).encode(), many.encode())
    decoded = decode_record(odd, squash.id).item(git_dir)
    assert decoded.replaced == (oid(2), oid(4), *(oid(n) for n in range(6, 260)))
    assert len(decoded.replaced) == w.MAX_REWRITTEN
    alone = decode_record(odd.replace(b"rewritten " + oid(2).encode(), b"rewritten -"), squash.id)
    assert alone.rewritten is None and len(alone.also_rewritten) == w.MAX_REWRITTEN
    with pytest.raises(ValueError, match="commits replaced"):
        WorkItem(
            WorkKind.REVIEW, oid(1), git_dir, rewritten=oid(2), also_rewritten=alone.also_rewritten
        )
