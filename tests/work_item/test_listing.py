"""The pending listing (work_item.listing): oldest first, what another process wrote seen by the
next claim, and what the hooks left in ready/ published only when it is a whole record; an item
waiting out a backoff claimed only when it is due, and how long until then."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import FAILED, PENDING
from support.queue import GARBAGE, T, item, oid, plant


def test_claims_take_the_oldest_first(git_dir: Path) -> None:
    for number, moment in [(1, T + 5), (2, T + 1), (3, T + 3)]:
        w.enqueue(item(git_dir, number), now=moment)
    order = []
    while (claimed := w.claim_next(git_dir, now=T + 10)) is not None:
        order.append(claimed.item.oid)
    assert order == [oid(2), oid(3), oid(1)]


def test_a_new_item_from_another_process_is_seen_by_the_next_claim(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    assert w.claim_next(git_dir, now=T) is not None
    # Written behind this process's back (as a shell hook would): the empty listing re-reads.
    data = w.encode_record(item(git_dir, 2), enqueued=T, producer=("h", "-", 1))
    (git_dir / "landwatch" / w.KNOWN / item(git_dir, 2).id).write_bytes(data)
    os.link(
        git_dir / "landwatch" / w.KNOWN / item(git_dir, 2).id,
        git_dir / "landwatch" / PENDING / f"{item(git_dir, 2).id}.{int(T * 1e6)}",
    )
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.oid == oid(2)


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_in_ready_is_published_never_and_left_nowhere(git_dir: Path, kind: str) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    ready = git_dir / "landwatch" / w.READY
    ready.mkdir(exist_ok=True)
    plant(ready, f"review-{oid(2)}.{int(T * 1e6)}", kind)  # no marker of its own
    plant(ready, "no grammar at all", kind)
    assert w.publish_ready(git_dir) == 0
    assert w.entries(git_dir, w.READY) == []
    regular = kind not in ("symlink", "dangling", "directory", "fifo")
    assert len(w.entries(git_dir, FAILED)) == (0 if regular else 2)  # a doorbell is removed
    claimed = w.claim_next(git_dir, now=T + 10)
    assert claimed is not None and claimed.item.oid == oid(1)
    assert Path("/etc/passwd").exists()


def test_an_item_waiting_out_a_backoff_is_claimed_only_when_it_is_due(git_dir: Path) -> None:
    assert w.next_due(git_dir, ["review"], now=T) is None  # nothing waits
    w.enqueue(item(git_dir, 1), now=T)
    assert w.next_due(git_dir, ["review"], now=T) == 0.0  # one may be claimed now
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    w.requeue(git_dir, claimed, max_tries=5, delay=30.0, now=T)
    assert w.next_due(git_dir, ["review"], now=T + 10) == pytest.approx(20.0)
    assert w.next_due(git_dir, ["push"], now=T + 10) is None  # another kind waits for nothing
    assert w.claim_next(git_dir, now=T + 10) is None
    again = w.claim_next(git_dir, now=T + 31)
    assert again is not None and again.item.oid == oid(1)
