"""The resident process's loop with real repositories: backlogs, file events, rescans, two
reviewers at once, failing handlers, a suspend, registry changes and unusable repositories."""

from __future__ import annotations

import itertools
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout, registry, work_item
from landwatch.daemon.loop import SHOWN_FINISHED, Daemon
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Reporter
from landwatch.kinds.base import RETRY_CAP, RETRY_FIRST, ItemHandler
from landwatch.work_item import FAILED, WorkItem, WorkKind
from support.daemon import (
    done_ids,
    journal_lines,
    reviewer_command,
    reviewer_env,
    run_reviewer,
    running,
    wait_for,
)
from support.handlers import Noop
from support.kinds import FakeClock, in_process, settle_down
from support.queue import tries_of
from support.repos import Repo, installed


def test_once_drains_a_backlog_enqueued_before_it_started(tmp_path: Path, journal: Path) -> None:
    repos = [installed(tmp_path / f"repo{n}") for n in range(3)]
    oids = [
        repo.land(f"change {n} in {repo.path.name}", f"f{n}") for repo in repos for n in range(4)
    ]
    assert len(set(oids)) == 12
    result = run_reviewer("--once", "--handler", "review=support.handlers:Noop", journal=journal)
    assert result.returncode == 0, result.stderr
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)
    for repo in repos:
        assert len(done_ids(repo.git_dir)) == 4 and repo.pending() == []


def test_a_file_event_wakes_it_for_a_new_item(repo: Repo, journal: Path) -> None:
    # No rescan within the test's life: only the hook's file event can bring the item in.
    # How fast is bench_reviewer.py's business.
    command = ("--rescan", "3600", "--handler", "review=support.handlers:Noop")
    with running(*command, env=reviewer_env(journal)):
        oid = repo.land("wake up")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the item settled")


def test_without_file_events_the_rescan_picks_it_up(repo: Repo, journal: Path) -> None:
    command = ("--no-watch", "--rescan", "1", "--handler", "review=support.handlers:Noop")
    with running(*command, env=reviewer_env(journal)):
        oid = repo.land("no events")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the rescan")


def test_two_reviewers_on_one_repository_settle_every_item_once(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    oids = [repo.land(f"item {n}", f"f{n}") for n in range(30)]
    command = reviewer_command("--once", "--handler", "review=support.handlers:Noop")
    # Two instances can only run with separate state dirs (as across an upgrade that moved the
    # lock): the queue alone must keep them correct.
    processes = [
        subprocess.Popen(
            command,
            env=reviewer_env(journal, XDG_STATE_HOME=str(state)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for state in (tmp_path / "state-a", tmp_path / "state-b")
    ]
    for process in processes:
        assert process.wait(timeout=120) == 0
    assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in oids)
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)  # each handled once


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


class Gate(ItemHandler[None]):
    name = WorkKind.REVIEW

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.started = threading.Event()
        self.release = threading.Event()

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        self.started.set()
        assert self.release.wait(30)


def test_after_a_suspend_our_claims_are_renewed_before_anyone_is_requeued(
    repo: Repo, tmp_path: Path
) -> None:
    theirs_oid = repo.land("held by a reviewer that died")
    ours_oid = repo.land("ours")
    clock = FakeClock()
    theirs = work_item.claim_next(repo.git_dir, now=clock.time())
    assert theirs is not None and theirs.item.oid == theirs_oid
    gate = Gate(clock=clock)
    reviewer = Daemon(
        {WorkKind.REVIEW: gate},
        Settings(watch=False),
        clock=clock,
        state_file=tmp_path / "state.json",
    )
    reviewer.reload()
    reviewer.tick()
    assert gate.started.wait(10)
    [order] = reviewer.running_orders()
    assert order.item.oid == ours_oid
    clock.wall += 8 * 3600  # the lid was closed all night: the wall clock moved, not ours
    reviewer.tick()
    assert order.lease.renewed_at == clock.wall
    assert work_item.find_claim(repo.git_dir, order.claimed.id) == (
        repo.git_dir / "landwatch" / "claimed" / order.lease.name
    )
    assert tries_of(repo.git_dir, order.claimed.id) == 0  # ours was not requeued
    assert tries_of(repo.git_dir, theirs.id) == 1  # theirs was
    assert [oid for oid, _ in repo.pending()] == [theirs_oid]
    gate.release.set()
    assert reviewer.queues[WorkKind.REVIEW].wait_idle(10)
    assert done_ids(repo.git_dir) == [order.claimed.id]
    reviewer.shutdown()


def test_registry_changes_are_picked_up_without_restart(tmp_path: Path, journal: Path) -> None:
    with running("--handler", "review=support.handlers:Noop", env=reviewer_env(journal)):
        repo = installed(tmp_path / "late")
        oid = repo.land("after the reviewer started")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the new repository")


def test_unusable_registered_repositories_are_skipped_with_one_line(
    tmp_path: Path, journal: Path
) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "gone").mkdir()
    registry.register(tmp_path / "gone")
    registry.register(tmp_path / "plain")
    (tmp_path / "gone").rmdir()
    repo = installed(tmp_path / "repo")
    oid = repo.land("still reviewed")
    result = run_reviewer("--once", "--handler", "review=support.handlers:Noop", journal=journal)
    assert result.returncode == 0
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    skipped = [line for line in result.stderr.splitlines() if "skipping" in line]
    assert len(skipped) == 2
    assert any("it vanished" in line for line in skipped)
    assert any("not a git repository" in line for line in skipped)


def test_a_registry_that_cannot_be_read_keeps_what_was_registered_with_one_line(
    repo: Repo,
    tmp_path: Path,
    journal: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    clock = FakeClock()
    reviewer = in_process({"review": Noop(clock=clock)}, clock, tmp_path / "state.json")
    first = repo.land("before")
    settle_down(reviewer)
    registry_file = layout.REGISTRY.path()
    kept = tmp_path / "repositories.kept"
    registry_file.rename(kept)
    registry_file.symlink_to(kept)  # refused: the registry is never read through a link
    later = [repo.land(f"while it cannot be read {n}", f"f{n}") for n in range(2)]
    for _ in range(2):
        reviewer.request_reload()
        reviewer.poke(repo.git_dir)  # as the hook's file event would
        settle_down(reviewer)
    assert sorted(done_ids(repo.git_dir)) == sorted(f"review-{oid}" for oid in [first, *later])
    assert caplog.text.count("cannot read the registry") == 1
    registry_file.unlink()
    kept.rename(registry_file)
    reviewer.request_reload()
    settle_down(reviewer)
    assert reviewer.repositories == [repo.git_dir.resolve()]
    reviewer.shutdown()


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
