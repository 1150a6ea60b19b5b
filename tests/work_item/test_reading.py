"""Reading the queue without changing it (work_item.reading): when the first claim expires, how many
wait and for how long, an item caught between ready/ and pending/ counted once, where the hooks
ran at the landings kept."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import PENDING
from support.queue import LEASE, T, item


def test_next_claim_expiry_and_oldest_pending_age(git_dir: Path) -> None:
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T) is None
    assert w.oldest_pending_age(git_dir, now=T) is None
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T + 10)
    w.enqueue(item(git_dir, 3), now=T + 20)
    assert w.oldest_pending_age(git_dir, now=T + 25) == pytest.approx(25)
    count, age = w.pending_summary(git_dir, now=T + 25)
    assert count == 3
    assert age == pytest.approx(25)
    w.claim_next(git_dir, now=T + 30)
    w.claim_next(git_dir, now=T + 40)
    assert w.oldest_pending_age(git_dir, now=T + 50) == pytest.approx(30)
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 50) == pytest.approx(LEASE - 20)
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 500) == pytest.approx(LEASE - 470)


def test_an_item_caught_being_published_waits_once(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    [name] = w.entries(git_dir, PENDING)
    ready = git_dir / "landwatch" / w.READY
    ready.mkdir(exist_ok=True)
    (ready / name).touch()  # linked into pending/, its ready/ name not removed yet
    assert w.pending_summary(git_dir, now=T + 5) == (1, 5.0)


def test_the_oldest_landing_is_the_record_s_time_through_a_backoff_and_a_retry(
    git_dir: Path,
) -> None:
    assert w.oldest_landing(git_dir) is None
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T + 10)
    first = w.claim_next(git_dir, now=T + 20)
    assert first is not None
    w.requeue(git_dir, first, max_tries=5, delay=600, now=T + 30)  # stamped T + 630
    assert w.oldest_landing(git_dir) == pytest.approx(T)
    second = w.claim_next(git_dir, now=T + 40)
    assert second is not None and second.item.oid == item(git_dir, 2).oid
    w.settle(git_dir, second, w.FAILED, now=T + 50)
    [failed] = w.entries(git_dir, w.FAILED)
    w.retry(git_dir, failed, now=T + 900)  # stamped anew, landed as before
    assert w.oldest_landing(git_dir) == pytest.approx(T)
    count, age = w.pending_summary(git_dir, now=T + 1000)
    assert count == 2 and age == pytest.approx(370)  # the stamps' age: T + 630 the oldest


def test_where_the_hooks_ran_is_read_from_the_records_kept_newest_first(
    git_dir: Path, tmp_path: Path
) -> None:
    """A git dir kept apart is known by the worktree its landings were recorded in: each
    record's `work-tree`, whatever its item's state (claimed, done), the newest first, once."""
    assert w.work_trees(git_dir) == []
    places = [tmp_path / "old", tmp_path / "new", tmp_path / "new", None]
    for number, place in enumerate(places, start=1):
        w.enqueue(dataclasses.replace(item(git_dir, number), work_tree=place), now=T + number)
        marker = git_dir / "landwatch" / w.KNOWN / item(git_dir, number).id
        os.utime(marker, (T + number, T + number))
    w.claim_next(git_dir, now=T + 10)  # the oldest, claimed: its record is read all the same
    assert w.work_trees(git_dir) == [tmp_path / "new", tmp_path / "old"]
    assert w.work_trees(git_dir, most=1) == []  # the newest record alone read: it names none


def test_an_item_is_in_line_until_it_is_settled(git_dir: Path) -> None:
    """in_line (the sweep's question of a linked worktree's queue): waiting, claimed or given
    back, the item is still to be done; done or given up, it is not."""
    first, second = item(git_dir, 1), item(git_dir, 2)
    assert not w.in_line(git_dir, first.id)
    assert not w.in_line(git_dir / "nowhere", first.id)
    w.enqueue(first, now=T)
    w.enqueue(second, now=T)
    assert w.in_line(git_dir, first.id)
    claimed = w.claim_next(git_dir, now=T + 1)
    assert claimed is not None and w.in_line(git_dir, claimed.item.id)
    w.settle(git_dir, claimed, now=T + 2)
    assert not w.in_line(git_dir, claimed.item.id)
    other = w.claim_next(git_dir, now=T + 3)
    assert other is not None and w.in_line(git_dir, other.item.id)
    w.settle(git_dir, other, w.FAILED, now=T + 4)
    assert not w.in_line(git_dir, other.item.id)
