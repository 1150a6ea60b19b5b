"""Claiming, renewing and settling (work_item.claims), on real repositories: a claim takes only
the kinds asked for with a fresh generation, a renewal or a settling only the exact name, garbage
in pending/ never blocks a claim, and a failed item retried starts again from no tries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import CLAIMED, DONE, FAILED, PENDING, WorkItem, WorkKind
from support.queue import (
    GARBAGE,
    LEASE,
    T,
    check_invariants,
    item,
    new_repository,
    oid,
    plant,
    where,
)


def test_a_claim_for_some_kinds_never_touches_another_kind(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1, WorkKind.PUSH), now=T)
    w.enqueue(item(git_dir, 2, WorkKind.REVIEW), now=T + 1)
    claimed = w.claim_next(git_dir, [WorkKind.REVIEW], now=T + 2)
    assert claimed is not None and claimed.item.kind == WorkKind.REVIEW
    assert w.claim_next(git_dir, [WorkKind.REVIEW], now=T + 2) is None
    assert where(git_dir)[item(git_dir, 1, WorkKind.PUSH).id] == [PENDING]
    push = w.claim_next(git_dir, ["push"], now=T + 2)
    assert push is not None and push.item.kind == WorkKind.PUSH


def test_items_of_a_kind_this_release_does_not_know_are_left_alone(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    future = f"backup-{oid(2)}.{int(T * 1e6)}"
    (git_dir / "landwatch" / PENDING / future).write_bytes(b"from a newer release")
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and w.claim_next(git_dir, now=T) is None
    assert future in w.entries(git_dir, PENDING)


def test_a_claim_carries_a_fresh_generation_and_the_reading(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    first = w.claim_next(git_dir, now=T)
    assert first is not None
    assert w.requeue(git_dir, first, max_tries=5, count_try=False, now=T) == PENDING
    second = w.claim_next(git_dir, now=T)
    assert second is not None
    assert first.name != second.name
    assert first.name.endswith(f".{int(T * 1e6)}")


def test_claim_in_a_repository_without_a_queue_is_none(tmp_path: Path) -> None:
    assert w.claim_next(tmp_path / "nothing", now=T) is None
    assert w.claim_next(new_repository(tmp_path / "fresh"), now=T) is None


def test_renew_moves_the_reading_and_only_the_exact_name(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    renewed = w.renew_claim(git_dir, claimed.name, now=T + 30)
    assert renewed is not None and renewed.endswith(f".{int((T + 30) * 1e6)}")
    assert w.renew_claim(git_dir, claimed.name, now=T + 60) is None  # that name is gone
    assert w.renew_claim(git_dir, renewed, now=T + 30) == renewed  # same reading: still ours
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 30) == pytest.approx(LEASE)


def test_a_taken_over_claim_is_neither_renewed_nor_settled(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    slow = w.claim_next(git_dir, now=T)
    assert slow is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE + 1) == 1
    fast = w.claim_next(git_dir, now=T + LEASE + 1)
    assert fast is not None and fast.id == slow.id
    assert w.renew_claim(git_dir, slow.name, now=T + LEASE + 2) is None
    assert not w.settle(git_dir, slow, now=T + LEASE + 2)
    assert w.find_claim(git_dir, slow.id) == git_dir / "landwatch" / CLAIMED / fast.name
    assert w.settle(git_dir, fast, now=T + LEASE + 3)
    assert w.find_claim(git_dir, slow.id) is None
    assert check_invariants(git_dir) == {slow.id: DONE}


def test_settle_once_and_only_into_done_or_failed(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    with pytest.raises(ValueError):
        w.settle(git_dir, claimed, PENDING)
    assert w.settle(git_dir, claimed.name, DONE, now=T)
    assert not w.settle(git_dir, claimed.name, DONE, now=T)
    assert not w.settle(git_dir, claimed.name, FAILED, now=T)
    assert not w.settle(git_dir, "../../etc/passwd", DONE, now=T)
    assert where(git_dir) == {claimed.id: [DONE]}


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_in_pending_never_blocks_and_ends_in_failed(git_dir: Path, kind: str) -> None:
    w.enqueue(item(git_dir, 1), now=T + 5)
    pending = git_dir / "landwatch" / PENDING
    plant(pending, f"review-{oid(2)}.{int(T * 1e6)}", kind)  # well named, older: claimed first
    plant(pending, "no grammar at all", kind)
    plant(pending, "review-nothex.12", kind)
    claimed = w.claim_next(git_dir, now=T + 10)
    assert claimed is not None and claimed.item.oid == oid(1)
    assert w.claim_next(git_dir, now=T + 10) is None
    assert w.entries(git_dir, PENDING) == []
    assert len(w.entries(git_dir, FAILED)) == 3
    assert w.settle(git_dir, claimed, now=T + 10)
    assert "/etc/passwd" not in str(w.entries(git_dir, FAILED))
    assert Path("/etc/passwd").exists()


def test_a_failed_item_retried_is_claimable_again_from_no_tries(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    for _ in range(2):
        claimed = w.claim_next(git_dir, now=T)
        assert claimed is not None
        w.requeue(git_dir, claimed, max_tries=2, now=T)
    [failed] = w.entries(git_dir, FAILED)
    again = w.retry(git_dir, failed, now=T + 5)
    assert again is not None and w.entries(git_dir, PENDING) == [again]
    claimed = w.claim_next(git_dir, now=T + 5)
    assert claimed is not None and claimed.item.tries == 0
    assert w.retry(git_dir, failed, now=T + 6) is None  # not failed any more
    assert w.retry(git_dir, "no grammar at all", now=T + 6) is None
    for number, garbage in enumerate(("directory", "huge", "symlink", "version"), start=3):
        plant(git_dir / "landwatch" / FAILED, f"review-{oid(number)}.{int(T * 1e6)}", garbage)
        assert w.retry(git_dir, f"review-{oid(number)}.{int(T * 1e6)}", now=T + 6) is None
    # No record, or a later landwatch's (an audit: written over as this one's): left as it is.
    assert len(w.entries(git_dir, FAILED)) == 4


def test_a_record_given_up_as_garbage_is_retried_as_its_name_says(git_dir: Path) -> None:
    """An audit: status and the one line named an item given up whose record did not decode
    (torn, truncated), `enqueue` sent the person to `retry`, and `retry` said nothing was given
    up: no command reviewed the commit. Retried, it is the record its name says, with what of
    it still reads: a pull's base read as its tip alone reviewed what it brought as clean."""
    failed = git_dir / "landwatch" / FAILED
    os.makedirs(failed, mode=0o700)
    for number, garbage in enumerate(("empty", "bytes", "truncated"), start=1):
        plant(failed, f"review-{oid(number)}.{int(T * 1e6)}", garbage)
    for number, cut in (
        (7, b"landwatch-work-item"),
        (8, b"landwatch-work-item "),
        (9, b"landwatch-work-item 1\0\0"),  # torn, not another version's (audits)
    ):
        (failed / f"review-{oid(number)}.{int(T * 1e6)}").write_bytes(cut)  # an audit: refused
    pulled = item(git_dir, 4)
    cut = w.encode_record(
        WorkItem(WorkKind.REVIEW, oid(4), git_dir, base=oid(5), rewritten=oid(6)),
        enqueued=T,
        producer=w.this_producer(),
    )
    (failed / f"{pulled.id}.{int(T * 1e6)}").write_bytes(cut[: cut.index(b"\nend")])
    for name in sorted(w.entries(git_dir, FAILED)):
        again = w.retry(git_dir, name, now=T + 5)
        assert again is not None and again in w.entries(git_dir, PENDING)
    claimed = [w.claim_next(git_dir, now=T + 5) for _ in range(7)]
    assert [c.item for c in claimed if c is not None] == [
        *(item(git_dir, n) for n in (1, 2, 3)),
        WorkItem(WorkKind.REVIEW, oid(4), git_dir, base=oid(5), rewritten=oid(6)),
        *(item(git_dir, n) for n in (7, 8, 9)),
    ]
    assert w.entries(git_dir, FAILED) == []


def test_a_step_of_the_clock_moves_the_due_times_still_ahead(git_dir: Path) -> None:
    """A backoff given by the old clock waits as long by the new one, whichever way it stepped;
    a place in line a step back left ahead is due at once, and one a step forward went past
    (a landing's since) stays where it is."""
    day = 86400.0
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    w.requeue(git_dir, claimed, max_tries=5, delay=30, now=T)  # due at T + 30
    w.enqueue(item(git_dir, 2), now=T + 1)  # its place in line
    assert w.rebase_pending(git_dir, step=-day, now=T + 2 - day) == 2
    assert sorted(w.entries(git_dir, PENDING)) == sorted(
        [f"{claimed.id}.{w.micros(T + 30 - day)}", f"{item(git_dir, 2).id}.{w.micros(T + 1 - day)}"]
    )
    second = w.claim_next(git_dir, now=T + 2 - day)
    assert second is not None and second.item.oid == oid(2)
    assert w.claim_next(git_dir, now=T + 2 - day) is None  # the first waits out its backoff
    w.settle(git_dir, second)
    w.enqueue(item(git_dir, 3), now=T + 3)  # landed after a step forward, before it was seen
    assert w.rebase_pending(git_dir, step=day, now=T + 4) == 1
    assert sorted(w.entries(git_dir, PENDING)) == sorted(
        [f"{claimed.id}.{w.micros(T + 30)}", f"{item(git_dir, 3).id}.{w.micros(T + 3)}"]
    )


def test_a_done_item_run_again_is_pending_from_no_tries_and_only_a_done_one(
    git_dir: Path,
) -> None:
    first = item(git_dir, 1)
    w.enqueue(first, now=T)
    assert w.run_again(git_dir, first.id, now=T + 1) is None  # pending: it runs once
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.run_again(git_dir, first.id, now=T + 1) is None  # running
    w.settle(git_dir, claimed, now=T + 2)
    again = w.run_again(git_dir, first.id, now=T + 3)
    assert again is not None and w.entries(git_dir, PENDING) == [again]
    assert w.entries(git_dir, DONE) == [] and check_invariants(git_dir) == {first.id: PENDING}
    claimed = w.claim_next(git_dir, now=T + 3)
    assert claimed is not None and claimed.item.tries == 0
    assert w.run_again(git_dir, item(git_dir, 2).id, now=T + 4) is None  # never enqueued
