"""Requeueing, recovery and pruning (work_item.recovery): expired claims back with a try counted
until given up, live ones left alone whatever the clock did, a consumer's requeue counting a try or
not, an item keeping its place in line, done records pruned past both bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import DONE, FAILED, PENDING, Enqueued
from support.queue import LEASE, T, check_invariants, item, oid, tries_of


def test_expired_claims_return_with_a_try_counted_then_fail(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    moment = T
    for run in range(1, 4):
        claimed = w.claim_next(git_dir, now=moment)
        assert claimed is not None and claimed.item.tries == run - 1
        moment += LEASE + 1
        recovered = w.requeue_expired(git_dir, lease=LEASE, max_tries=3, now=moment)
        assert recovered.moved == 1
        if run < 3:
            assert recovered.failed == []
    assert [found.tries for found in recovered.failed] == [3]
    assert recovered.failed[0].oid == oid(1)
    assert check_invariants(git_dir) == {item(git_dir, 1).id: FAILED}


def test_a_live_claim_is_not_requeued(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE - 1) == 0
    renewed = w.renew_claim(git_dir, claimed.name, now=T + LEASE - 1)
    assert renewed is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE + 5) == 0
    assert w.settle(git_dir, renewed, now=T + LEASE + 5)


def test_readings_from_a_clock_that_jumped_back_still_expire(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    assert w.claim_next(git_dir, now=T) is not None
    # The clock went back a day: the claim's reading is in the future.
    earlier = T - 86_400
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=earlier) < 0  # type: ignore[operator]
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=earlier) == 1
    # A reading slightly ahead (within a lease) belongs to a live holder.
    assert w.claim_next(git_dir, now=earlier + 10) is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=earlier) == 0
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=earlier) == pytest.approx(LEASE + 10)


def test_consumer_requeue_counts_a_try_or_hands_back(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue(git_dir, claimed, max_tries=2, count_try=False, now=T) == PENDING
    assert tries_of(git_dir, claimed.id) == 0
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue(git_dir, claimed, max_tries=2, now=T) == PENDING
    assert w.requeue(git_dir, claimed, max_tries=2, now=T) is None  # not ours any more
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.tries == 1
    assert w.requeue(git_dir, claimed.name, max_tries=2, now=T) == FAILED
    assert check_invariants(git_dir) == {claimed.id: FAILED}


def test_a_requeued_item_keeps_its_place_in_line(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T + 1)
    first = w.claim_next(git_dir, now=T + 2)
    assert first is not None and first.item.oid == oid(1)
    w.requeue(git_dir, first, max_tries=5, now=T + 3)
    again = w.claim_next(git_dir, now=T + 4)
    assert again is not None and again.item.oid == oid(1)


def test_prune_removes_done_past_both_bounds_and_keeps_failed(git_dir: Path) -> None:
    for number in range(6):
        w.enqueue(item(git_dir, number), now=T)
        claimed = w.claim_next(git_dir, now=T)
        assert claimed is not None
        w.settle(git_dir, claimed, FAILED if number == 0 else DONE, now=T + number)
    # Kept by count: the newest two; kept by age: anything settled within 3.5 s of T+10.
    assert w.prune(git_dir, keep_seconds=6.5, keep_count=2, now=T + 10) == 3
    states = check_invariants(git_dir)
    assert sorted(states.values()) == [DONE, DONE, FAILED]
    assert item(git_dir, 0).id in states  # failed is kept for the person
    assert w.enqueue(item(git_dir, 1), now=T + 11) is Enqueued.ADDED  # pruned: new again
    assert w.enqueue(item(git_dir, 5), now=T + 11) is Enqueued.KNOWN


def test_a_backoff_counts_from_now_even_when_the_record_was_stamped_ahead(
    git_dir: Path,
) -> None:
    """An item enqueued by a clock a day ahead, then given back by the real one: it waits its
    backoff from now, where the later of the two stamps (a day ahead, past MAX_DELAY: due at
    once) made every try run straight after the last."""
    ahead = T + 86400
    w.enqueue(item(git_dir, 1), now=ahead)
    claimed = w.claim_next(git_dir, now=ahead)
    assert claimed is not None
    assert w.requeue(git_dir, claimed, max_tries=5, delay=60, now=T) == PENDING
    assert w.entries(git_dir, PENDING) == [f"{claimed.id}.{w.micros(T + 60)}"]
    assert w.claim_next(git_dir, now=T + 1) is None
    again = w.claim_next(git_dir, now=T + 60)
    assert again is not None
    # Handed back without a backoff, it is claimable now, not once the clock reaches its stamp.
    assert w.requeue(git_dir, again, max_tries=5, count_try=False, now=T + 61) == PENDING
    assert w.claim_next(git_dir, now=T + 61) is not None
