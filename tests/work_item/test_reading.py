"""Reading the queue without changing it (work_item.reading): when the first claim expires, how many
wait and for how long, an item caught between ready/ and pending/ counted once."""

from __future__ import annotations

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
