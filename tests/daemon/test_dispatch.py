"""Claiming into the queues (daemon.dispatch): an item that failed waits its backoff before its
next try, a drain looks for each kind only where its queue may have changed, and not one more item
is claimed from a repository uninstalled since the last reload."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from landwatch import registry, report_store, work_item
from landwatch.daemon.loop import SHOWN_FINISHED, Daemon
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Reporter
from landwatch.kinds.base import RETRY_CAP, RETRY_FIRST, ItemHandler
from landwatch.kinds.review import ReviewHandler
from landwatch.work_item import FAILED, WorkItem, WorkKind
from support.daemon import done_ids
from support.handlers import Noop
from support.kinds import FakeClock, in_process, settle_down
from support.repos import Repo, installed


class AlwaysFailing(ItemHandler[None]):
    name = WorkKind.REVIEW

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.tries: list[tuple[int, float]] = []  # (tries before, when)

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        self.tries.append((item.tries, self.clock.time()))
        raise RuntimeError("this handler always fails")


def test_a_handler_that_always_fails_backs_off_ends_in_failed_and_is_told(
    repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    oid = repo.land("doomed")
    clock = FakeClock()
    handler = AlwaysFailing(max_tries=3, clock=clock)
    reviewer = in_process({"review": handler}, clock, tmp_path / "state.json")
    settle_down(reviewer)
    assert len(handler.tries) == 1  # the next try waits its backoff, not a moment
    clock.advance(RETRY_FIRST * 0.79)
    settle_down(reviewer)
    assert len(handler.tries) == 1
    for _ in range(2):
        clock.advance(RETRY_CAP * 1.2)
        settle_down(reviewer)
    reviewer.shutdown()
    assert [tries for tries, _ in handler.tries] == [0, 1, 2]
    gaps = [later - earlier for (_, earlier), (_, later) in itertools.pairwise(handler.tries)]
    assert all(gap >= RETRY_FIRST * 0.8 for gap in gaps)
    assert [work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, FAILED)] == [
        f"review-{oid}"
    ]
    assert "gave up after 3 tries" in caplog.text
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert f"gave up the review of {oid[:7]}" in told


class Idle(ItemHandler[None]):
    """A push kind with nothing to do: it is only claimed for, never given an item."""

    name = WorkKind.PUSH

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        raise AssertionError("no push was recorded")


def test_a_drain_looks_for_each_kind_only_when_its_queue_may_have_changed(
    git_dir: Path, tmp_path: Path, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that ends asks its own kind to claim again there, not every kind: each claim of
    an idle kind reads pending/ again (its kept listing has nothing for it), which made a drain
    of n items cost n listings of n names."""
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    registry.register(git_dir)
    items = 60
    for number in range(items):
        work_item.enqueue(WorkItem(WorkKind.REVIEW, f"{number:040x}", git_dir))
    asked: list[tuple[str, ...]] = []
    claim_next = work_item.claim_next

    def counted(where: Path, kinds: list[str], *, now: float) -> work_item.Claimed | None:
        asked.append(tuple(kinds))
        return claim_next(where, kinds, now=now)

    monkeypatch.setattr(work_item, "claim_next", counted)
    clock = FakeClock()
    handlers = {"review": Noop(clock=clock), "push": Idle(clock=clock)}
    reviewer = in_process(handlers, clock, tmp_path / "state.json")
    settle_down(reviewer, rounds=4 * items)
    assert len(done_ids(git_dir)) == items
    assert asked.count(("push",)) <= 2  # the first look and the reload's, not one per review
    finished = [job for job in reviewer.state()["lines"]["review"] if job["state"] == "done"]
    assert len(finished) == SHOWN_FINISHED  # the state file does not grow with the flood
    reviewer.shutdown()


def test_the_reviewer_takes_nothing_more_once_a_repository_is_uninstalled(
    tmp_path: Path, repo: Repo
) -> None:
    other = installed(tmp_path / "other")
    oid = repo.land("waiting")
    elsewhere = other.land("elsewhere")
    clock = FakeClock()
    daemon = Daemon(
        {"review": ReviewHandler(clock=clock)},
        Settings(watch=False),
        clock=clock,
        state_file=tmp_path / "state.json",
    )
    daemon.reload()
    registry.unregister(repo.git_dir)  # between the reload and the next claim
    daemon.dispatch()
    daemon.queues["review"].wait_idle(120)
    daemon.shutdown()
    assert repo.pending() == [(oid, None)]
    assert work_item.entries(repo.git_dir, work_item.CLAIMED) == []
    assert other.pending() == [] and report_store.read(other.git_dir, elsewhere) is not None


def test_a_queue_that_cannot_be_used_is_logged_once_a_problem(
    repo: Repo,
    tmp_path: Path,
    journal: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file where pending/ should be fails every claim; the log says so once, not at every
    pass, and again if it comes back once mended."""
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    clock = FakeClock()
    reviewer = in_process({"review": Noop(clock=clock)}, clock, tmp_path / "state.json")
    pending = repo.git_dir / "landwatch" / "pending"

    def break_pending() -> None:
        pending.rmdir()
        pending.write_text("")

    break_pending()
    repo.land("waits")
    for _ in range(3):
        reviewer.poke(repo.git_dir)  # as the hook's file event would
        settle_down(reviewer)
    said = f"cannot claim from {repo.git_dir}: Not a directory"
    assert caplog.text.count(said) == 1
    pending.unlink()
    reviewer.poke(repo.git_dir)
    settle_down(reviewer)
    assert len(done_ids(repo.git_dir)) == 1
    break_pending()
    repo.land("waits again", "g")
    reviewer.poke(repo.git_dir)
    settle_down(reviewer)
    reviewer.shutdown()
    assert caplog.text.count(said) == 2
    assert "landwatch: " not in caplog.text
