"""The bench's drain (bench/queue_drain.py) keeps the queue's promises while it groups its syncs:
at every crash point each item is done once or pending again, never both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from landwatch import work_item as w
from landwatch.work_item import DONE, PENDING
from queue_drain import Drain
from support.queue import T, check_invariants, every_crash, item, new_repository, recover, tries_of


def test_a_drain_at_every_crash_point(tmp_path: Path) -> None:
    """Claims and settles of one Drain, synced together: whatever the crash, each item is
    done once or pending again (a try counted once its claim was taken), never both."""
    ids: list[str] = []

    def setup(git_dir: Path) -> Callable[[], object]:
        for number in (1, 2, 3):
            w.enqueue(item(git_dir, number), now=T + number)
        ids[:] = [item(git_dir, number).id for number in (1, 2, 3)]

        def drain() -> None:
            with Drain(git_dir, sync_every=2) as queue:
                while (claimed := queue.claim_next(["review"], now=T + 10)) is not None:
                    assert queue.settle(claimed, now=T + 10)

        return drain

    def check(git_dir: Path, done_steps: int, steps: list[str]) -> None:
        recover(git_dir)
        states = check_invariants(git_dir)
        assert sorted(states) == sorted(ids)
        assert set(states.values()) <= {DONE, PENDING}
        settled = steps[:done_steps].count("rename claimed done")
        assert sorted(states.values()).count(DONE) == settled
        for id_, state in states.items():
            assert tries_of(git_dir, id_) <= (1 if state == PENDING else 0)

    steps = every_crash(tmp_path, setup, check)
    # Three settles, synced after the second and when the drain ends: two syncs, not three.
    assert steps.count("rename claimed done") == 3 and steps.count("fsync done") == 2


def test_a_drain_of_a_repository_without_a_queue_finds_nothing(tmp_path: Path) -> None:
    git_dir = new_repository(tmp_path / "repo")
    with Drain(git_dir) as queue:
        assert queue.claim_next(["review"]) is None
    assert not (git_dir / w.WORK_DIRECTORY).exists()
