"""The package's own API (work_item/__init__): no function crashes on garbage anywhere in the queue,
the oldest pending age opens no record, and the seed contract's second names are the same
operations."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import CLAIMED, DONE, FAILED, RECOVERING
from support.queue import GARBAGE, LEASE, T, item, oid, plant


def test_oldest_pending_age_opens_no_record(git_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    opened: list[str] = []
    real_open = os.open

    def counting_open(path: str, *args: int, **kwargs: int) -> int:
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    assert w.oldest_pending_age(git_dir, now=T + 1) == pytest.approx(1)
    assert opened and all(not name.startswith("review-") for name in opened), opened


@pytest.mark.parametrize("kind", GARBAGE)
@pytest.mark.parametrize("state", [CLAIMED, RECOVERING, DONE, FAILED, w.KNOWN, w.TMP])
def test_garbage_anywhere_never_crashes_a_function(git_dir: Path, kind: str, state: str) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    directory = git_dir / "landwatch" / state
    directory.mkdir(exist_ok=True)
    names = [
        f"review-{oid(3)}",
        f"review-{oid(4)}.0123456789abcdef.5",
        f"review-{oid(6)}.12",  # named as a settled item, or a producer's temp file
        f"prune.review-{oid(5)}.7",  # named as a prune intent
        "x y",
        ".hidden",
    ]
    for name in names:
        plant(directory, name, kind)
    w.enqueue(item(git_dir, 2), now=T)
    for moment in (T, T + LEASE * 100):
        w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=moment)
        w.next_claim_expiry(git_dir, lease=LEASE, now=moment)
        w.oldest_pending_age(git_dir, now=moment)
        w.find_claim(git_dir, f"review-{oid(3)}")
        w.prune(git_dir, keep_seconds=0, keep_count=0, now=moment)
    got = set()
    while (claimed := w.claim_next(git_dir, now=T + LEASE * 100)) is not None:
        got.add(claimed.item.oid)
        assert w.settle(git_dir, claimed, now=T)
    assert {oid(1), oid(2)} <= got


def test_the_second_names_the_seed_contract_gives_are_the_same_operations() -> None:
    assert w.claim_next_of is w.claim_next
    assert w.settle_named is w.settle
    assert w.requeue_expired_reporting is w.requeue_expired
    assert w.Recovered(2, []) == 2 and w.Recovered(2, []).moved == 2
