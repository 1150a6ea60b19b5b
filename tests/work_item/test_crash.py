"""Kill the process after every file-system step of every queue operation, then recover.

Each test first lists the steps an uninterrupted run takes, then crashes a child after step 1,
2, ... n in turn, so no crash point is sampled away; a recovery pass must restore every invariant.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import support.queue as support_queue
from landwatch import work_item as w
from landwatch.work_item import (
    CLAIMED,
    DONE,
    FAILED,
    KNOWN,
    PENDING,
    READY,
    RECOVERING,
    Enqueued,
    WorkItem,
    WorkKind,
)
from support.queue import (
    PausedChild,
    check_invariants,
    crash_at,
    enqueue_as_the_hooks,
    every_crash,
    item,
    known_markers,
    new_repository,
    oid,
    recover,
    temp_files,
    tries_of,
    where,
)

T = support_queue.T
LEASE = support_queue.LEASE
LATER = support_queue.LATER


def reached(step: str, done_steps: int, steps: list[str]) -> bool:
    return step in steps[:done_steps]


def claimed_item(git_dir: Path) -> w.Claimed:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    return claimed


# --- producers ---------------------------------------------------------------------------------


def test_enqueue_is_whole_or_absent_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        return lambda: w.enqueue(item(git_dir, 1), now=T)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        states = check_invariants(git_dir)
        assert temp_files(git_dir) == []
        published = reached("link known", done_steps, steps)
        assert states == ({item(git_dir, 1).id: PENDING} if published else {})
        again = w.enqueue(item(git_dir, 1), now=LATER)
        assert again is (Enqueued.KNOWN if published else Enqueued.ADDED)
        claimed = w.claim_next(git_dir, now=LATER)
        assert claimed is not None and claimed.item == item(git_dir, 1)

    steps = every_crash(tmp_path, setup, check)
    assert steps == [
        *["mkdir"] * 4,
        "create tmp",
        "write tmp",
        "link known",
        "link pending",
        "fsync known",
        "fsync pending",
        "unlink tmp",
    ]


def ready_names(git_dir: Path) -> list[str]:
    ready = git_dir / w.WORK_DIRECTORY / READY
    return sorted(os.listdir(ready)) if ready.is_dir() else []


def test_the_hooks_enqueue_is_whole_or_absent_at_every_crash_point(tmp_path: Path) -> None:
    """The hooks' steps (no link, no process): a marker cut short ends in failed/ once its
    producer is surely gone; a whole one is published, by its ready/ name or by recovery."""

    def setup(git_dir: Path) -> Callable[[], object]:
        return lambda: enqueue_as_the_hooks(item(git_dir, 1), now=T)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        assert ready_names(git_dir) == []
        if not reached("hooks: marker created", done_steps, steps):
            assert check_invariants(git_dir) == {}
        elif not reached("hooks: marker written", done_steps, steps):
            # Torn (its record does not decode): in failed/, told, never lost silently.
            assert where(git_dir) == {item(git_dir, 1).id: [FAILED]}
        else:
            assert check_invariants(git_dir) == {item(git_dir, 1).id: PENDING}
            claimed = w.claim_next(git_dir, now=LATER)
            assert claimed is not None and claimed.item == item(git_dir, 1)
            assert w.claim_next(git_dir, now=LATER) is None

    steps = every_crash(tmp_path, setup, check)
    assert steps == ["hooks: marker created", "hooks: marker written", "hooks: ready created"]


def test_publishing_what_the_hooks_left_at_every_crash_point(tmp_path: Path) -> None:
    """Published once: a ready/ name left by a publisher that died after its link is only
    removed, even after the item was claimed meanwhile."""

    def setup(git_dir: Path) -> Callable[[], object]:
        assert enqueue_as_the_hooks(item(git_dir, 1), now=T) is Enqueued.ADDED
        return lambda: w.publish_ready(git_dir)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        claimed = w.claim_next(git_dir, now=T)  # publishes first, if nobody did
        assert claimed is not None and claimed.item == item(git_dir, 1)
        assert w.publish_ready(git_dir) == 0 and ready_names(git_dir) == []
        w.forget_listing(git_dir)
        assert w.claim_next(git_dir, now=T) is None
        assert w.settle(git_dir, claimed, now=T)
        recover(git_dir)
        assert check_invariants(git_dir) == {item(git_dir, 1).id: DONE}

    steps = every_crash(tmp_path, setup, check)
    assert steps == ["mkdir", "link pending", "unlink ready"]  # mkdir: pending/, on first use


def test_a_ready_name_with_no_marker_or_a_strange_one_is_only_removed(tmp_path: Path) -> None:
    git_dir = new_repository(tmp_path / "repo")
    w.ensure_work_directory(git_dir)
    ready = git_dir / w.WORK_DIRECTORY / READY
    (ready / f"{item(git_dir, 1).id}.{int(T * 1e6)}").touch()  # its marker is gone
    (ready / "not a name").touch()
    os.mkfifo(ready / f"{item(git_dir, 2).id}.1")  # never opened: moved into failed/ unread
    assert w.publish_ready(git_dir) == 0
    assert ready_names(git_dir) == []
    [quarantined] = w.entries(git_dir, FAILED)
    assert quarantined.startswith("invalid-")
    assert check_invariants(git_dir) == {w.id_of_entry(quarantined): FAILED}


@pytest.mark.parametrize("state", [PENDING, CLAIMED, DONE, FAILED])
def test_a_replayed_enqueue_changes_nothing_at_any_crash_point(tmp_path: Path, state: str) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        w.enqueue(item(git_dir, 1), now=T)
        if state != PENDING:
            claimed = w.claim_next(git_dir, now=T)
            assert claimed is not None
            if state != CLAIMED:
                assert w.settle(git_dir, claimed, state, now=T)
        return lambda: w.enqueue(item(git_dir, 1), now=T + 1)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        assert where(git_dir) == {item(git_dir, 1).id: [state]}
        recover(git_dir, now=T + 2)  # before the claim's lease runs out
        assert check_invariants(git_dir) == {item(git_dir, 1).id: state}
        assert tries_of(git_dir, item(git_dir, 1).id) == 0

    every_crash(tmp_path, setup, check)


# --- consumers ---------------------------------------------------------------------------------


def test_claim_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        w.enqueue(item(git_dir, 1), now=T)
        return lambda: w.claim_next(git_dir, now=T)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        assert check_invariants(git_dir) == {item(git_dir, 1).id: PENDING}
        # The claim that died counts as a try once it was taken, never more than once.
        taken = reached("rename pending claimed", done_steps, steps)
        assert tries_of(git_dir, item(git_dir, 1).id) == (1 if taken else 0)

    every_crash(tmp_path, setup, check)


def test_claim_of_an_undecodable_record_at_every_crash_point(tmp_path: Path) -> None:
    garbage = f"{item(Path('.'), 2).id}.{int(T * 1e6)}"

    def setup(git_dir: Path) -> Callable[[], object]:
        w.enqueue(item(git_dir, 1), now=T + 1)
        (git_dir / "landwatch" / PENDING / garbage).write_bytes(b"landwatch-work-item 1\nkind")
        return lambda: w.claim_next(git_dir, now=T + 1)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        claimed = w.claim_next(git_dir, now=LATER)
        assert claimed is not None and claimed.item.oid == item(git_dir, 1).oid
        assert where(git_dir) == {item(git_dir, 1).id: [CLAIMED], item(git_dir, 2).id: [FAILED]}

    every_crash(tmp_path, setup, check)


def test_renew_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        return lambda: w.renew_claim(git_dir, claimed.name, now=T + 30)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 30) in (
            pytest.approx(LEASE - 30),
            pytest.approx(LEASE),
        )
        recover(git_dir)
        assert check_invariants(git_dir) == {item(git_dir, 1).id: PENDING}
        assert tries_of(git_dir, item(git_dir, 1).id) == 1

    every_crash(tmp_path, setup, check)


@pytest.mark.parametrize("state", [DONE, FAILED])
def test_settle_happens_exactly_once_at_every_crash_point(tmp_path: Path, state: str) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        return lambda: w.settle(git_dir, claimed, state, now=T + 1)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        settled = reached(f"rename claimed {state}", done_steps, steps)
        expected = state if settled else PENDING
        assert check_invariants(git_dir) == {item(git_dir, 1).id: expected}
        assert tries_of(git_dir, item(git_dir, 1).id) == (0 if settled else 1)

    every_crash(tmp_path, setup, check)


@pytest.mark.parametrize("max_tries", [1, 5])
def test_requeue_expired_counts_one_try_at_every_crash_point(
    tmp_path: Path, max_tries: int
) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed_item(git_dir)
        return lambda: w.requeue_expired(
            git_dir, lease=LEASE, max_tries=max_tries, now=T + LEASE + 1
        )

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir, now=T + LEASE + 2, max_tries=max_tries)
        expected = FAILED if max_tries == 1 else PENDING
        assert check_invariants(git_dir) == {item(git_dir, 1).id: expected}
        assert tries_of(git_dir, item(git_dir, 1).id) == 1

    steps = every_crash(tmp_path, setup, check)
    assert "append try" in steps


@pytest.mark.parametrize("count_try", [True, False])
def test_consumer_requeue_at_every_crash_point(tmp_path: Path, count_try: bool) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        return lambda: w.requeue(git_dir, claimed, max_tries=5, count_try=count_try, now=T + 1)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir, now=T + LEASE + 2)
        assert check_invariants(git_dir) == {item(git_dir, 1).id: PENDING}
        # A hand-back interrupted before it reached pending is finished as an expiry: one try.
        handed_back = reached(f"rename {RECOVERING} {PENDING}", done_steps, steps)
        expected = 1 if count_try or not handed_back else 0
        assert tries_of(git_dir, item(git_dir, 1).id) == expected

    every_crash(tmp_path, setup, check)


def test_requeue_with_a_backoff_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        return lambda: w.requeue(git_dir, claimed, max_tries=5, delay=600, now=T + 1)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir, now=T + LEASE + 2)
        assert check_invariants(git_dir) == {item(git_dir, 1).id: PENDING}
        [name] = w.entries(git_dir, PENDING)
        if reached(f"rename {RECOVERING} {PENDING}", done_steps, steps):
            assert name.endswith(f".{int((T + 601) * 1e6)}")  # waits its backoff
        assert tries_of(git_dir, item(git_dir, 1).id) == 1

    every_crash(tmp_path, setup, check)


def test_retry_of_a_failed_item_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        assert w.requeue(git_dir, claimed, max_tries=1, now=T + 1) == FAILED
        [name] = w.entries(git_dir, FAILED)
        return lambda: w.retry(git_dir, name, now=T + 2)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir, now=T + 3)
        states = check_invariants(git_dir)
        if reached(f"rename {FAILED} {PENDING}", done_steps, steps):
            assert states == {item(git_dir, 1).id: PENDING}
            assert tries_of(git_dir, item(git_dir, 1).id) == 0
        else:  # still given up; a retry again finishes it
            assert states == {item(git_dir, 1).id: FAILED}
            [name] = w.entries(git_dir, FAILED)
            assert w.retry(git_dir, name, now=T + 4) is not None
            assert tries_of(git_dir, item(git_dir, 1).id) == 0

    steps = every_crash(tmp_path, setup, check)
    assert steps[0] == "append reset"


def test_retry_of_a_torn_record_keeps_its_base_at_every_crash_point(tmp_path: Path) -> None:
    """A pull's record cut short (no `end`), given up: retried, it is the record its name says
    with the base it held, whatever step a retry died at (an audit: cut first, then written, a
    retry killed between left an empty record, and the next one lost the base)."""

    def setup(git_dir: Path) -> Callable[[], object]:
        pulled = WorkItem(WorkKind.REVIEW, oid(1), git_dir, base=oid(2))
        assert w.enqueue(pulled, now=T) is Enqueued.ADDED
        marker = git_dir / "landwatch" / KNOWN / pulled.id
        data = marker.read_bytes()
        marker.write_bytes(data[: data.index(b"\nend") + 1])  # the same inode, cut short
        assert w.claim_next(git_dir, now=T) is None  # it does not decode: given up
        [name] = w.entries(git_dir, FAILED)
        return lambda: w.retry(git_dir, name, now=T + 2)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir, now=T + 3)
        if not reached(f"rename {FAILED} {PENDING}", done_steps, steps):
            [name] = w.entries(git_dir, FAILED)
            assert w.retry(git_dir, name, now=T + 4) is not None
        claimed = w.claim_next(git_dir, now=T + 5)
        assert claimed is not None and claimed.item.base == oid(2)

    steps = every_crash(tmp_path, setup, check)
    assert steps[:2] == ["write a garbage record's name's", "cut it to its length"]


# --- pruning and recovery ----------------------------------------------------------------------


def test_prune_never_resurrects_at_any_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        claimed = claimed_item(git_dir)
        assert w.settle(git_dir, claimed, now=T)
        return lambda: w.prune(git_dir, keep_seconds=0, keep_count=0, now=T + 10)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        states = check_invariants(git_dir)
        if reached(f"rename {DONE} tmp", done_steps, steps):
            assert states == {}
            assert known_markers(git_dir) == set()
        else:
            assert states == {item(git_dir, 1).id: DONE}
        assert temp_files(git_dir) == []

    every_crash(tmp_path, setup, check)


def _untidy(git_dir: Path) -> None:
    """A work directory as crashes leave it: an orphan marker, a half-requeued claim, an expired
    claim, a half-done prune and a stray temp file, all at once."""
    w.enqueue(item(git_dir, 2), now=T)
    w.enqueue(item(git_dir, 3), now=T)
    w.enqueue(item(git_dir, 4), now=T)
    assert crash_at(3, lambda: w.enqueue(item(git_dir, 1), now=T))  # after "link known"
    assert item(git_dir, 1).id in known_markers(git_dir)
    claims = collections.deque([w.claim_next(git_dir, now=T) for _ in range(3)])
    first, second, third = claims
    assert first and second and third
    # Interrupted half way through requeueing: moved to recovering, try appended, not moved on.
    assert crash_at(2, lambda: w.requeue(git_dir, first, max_tries=5, now=T + 1))
    assert w.settle(git_dir, third, now=T)
    assert crash_at(1, lambda: w.prune(git_dir, keep_seconds=0, keep_count=0, now=T + 5))
    assert crash_at(1, lambda: w.enqueue(item(git_dir, 5), now=T))  # a temp file, no marker


def test_recovery_itself_at_every_crash_point(tmp_path: Path) -> None:
    def setup(git_dir: Path) -> Callable[[], object]:
        _untidy(git_dir)
        return lambda: w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=LATER)

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        states = check_invariants(git_dir)
        assert states == {item(git_dir, n).id: PENDING for n in (1, 2, 3)}
        assert [tries_of(git_dir, item(git_dir, n).id) for n in (1, 2, 3)] == [0, 1, 1]
        assert temp_files(git_dir) == []

    steps = every_crash(tmp_path, setup, check)
    assert {"unlink known", "link pending", "append try", "unlink tmp"} <= set(steps)


def test_a_live_producer_between_its_two_links_is_left_to_finish(tmp_path: Path) -> None:
    git_dir = new_repository(tmp_path / "repo")
    w.enqueue(item(git_dir, 2), now=T)  # the directories exist
    producer = PausedChild("link known", lambda: w.enqueue(item(git_dir, 1), now=T))
    # However late it is, a producer that is alive may still publish: recovery must not.
    recover(git_dir)
    assert where(git_dir) == {item(git_dir, 2).id: [PENDING]}
    assert producer.resume() == 0
    assert check_invariants(git_dir) == {item(git_dir, n).id: PENDING for n in (1, 2)}


def test_a_dead_producer_is_published_for_only_after_the_grace(tmp_path: Path) -> None:
    git_dir = new_repository(tmp_path / "repo")
    w.enqueue(item(git_dir, 2), now=T)
    producer = PausedChild("link known", lambda: w.enqueue(item(git_dir, 1), now=T))
    producer.kill()
    # A shell producer's `ln` may outlive a killed hook for a moment: wait out the grace.
    recover(git_dir, now=T + w.ORPHAN_GRACE / 2)
    assert item(git_dir, 1).id not in where(git_dir)
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + w.ORPHAN_GRACE + 1) == 1
    assert check_invariants(git_dir) == {item(git_dir, n).id: PENDING for n in (1, 2)}
