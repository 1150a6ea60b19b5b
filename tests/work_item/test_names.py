"""The grammar of the queue's names (work_item.names): an item's id is its kind and object id, SHA-1
or SHA-256 and nothing else, a claim's file name gives its id back, and each state has its
directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import PENDING, Enqueued, WorkItem, WorkKind
from support.queue import T, oid


def test_id_is_the_kind_and_oid_only(git_dir: Path) -> None:
    a = WorkItem(WorkKind.REVIEW, oid(1), git_dir, base=oid(2), tries=3)
    b = WorkItem(WorkKind.REVIEW, oid(1), Path("/elsewhere"))
    assert a.id == b.id == f"review-{oid(1)}"
    assert WorkItem(WorkKind.PUSH, oid(1), git_dir).id.startswith("push-")
    assert "/" not in a.id and "." not in a.id


@pytest.mark.parametrize(
    "bad", ["A" * 40, "a" * 39, "g" * 40, "a" * 41, "", "../" + "a" * 37, "a" * 40 + "\n"]
)
def test_item_refuses_what_is_not_an_object_id(bad: str, git_dir: Path) -> None:
    with pytest.raises(ValueError, match="object id"):
        WorkItem(WorkKind.REVIEW, bad, git_dir)


def test_sha256_object_ids_are_items_too(git_dir: Path) -> None:
    long = "b" * 64
    assert w.enqueue(WorkItem(WorkKind.REVIEW, long, git_dir), now=T) is Enqueued.ADDED
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.oid == long


def test_claim_file_name_and_id_of_entry_round_trip() -> None:
    id_ = f"review-{oid(7)}"
    name = w.claim_file_name(id_, "0123456789abcdef", T)
    assert w.id_of_entry(name) == id_
    assert w.id_of_entry(f"{id_}.{int(T * 1e6)}") == id_
    assert w.id_of_entry(id_) == id_  # an older release's claim carried no generation
    with pytest.raises(ValueError):
        w.claim_file_name("not an id", "0123456789abcdef", T)
    with pytest.raises(ValueError):
        w.claim_file_name(id_, "../x", T)


def test_state_directory_paths(git_dir: Path) -> None:
    assert w.state_directory(git_dir, PENDING) == git_dir / "landwatch" / "pending"
    assert list(w.STATES) == [w.PENDING, w.CLAIMED, w.RECOVERING, w.DONE, w.FAILED]
    with pytest.raises(ValueError):
        w.state_directory(git_dir, "tmp")


def test_a_due_time_still_ahead_moves_with_a_step_of_the_clock() -> None:
    day = 86400.0
    assert w.rebased(T + 30, -day, T - day) == T + 30 - day  # ahead of both clocks' now
    assert w.rebased(T - 5, -day, T - day) == T - 5 - day  # due at the step, ahead after it
    assert w.rebased(T - day - 10, -day, T - day) == T - day - 10  # past by both: stays
    assert w.rebased(T + 10, day, T + day) == T + 10 + day  # a step forward went past it
    assert w.rebased(T - 1, day, T + day) == T - 1
