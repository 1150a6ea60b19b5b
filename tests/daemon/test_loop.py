"""The resident process's loop (daemon.loop) with real repositories: a backlog drained with
--once, the rescan when there are no file events, two reviewers at once settling every item
once, a full disk under the state file stopping no review, and --once waiting for what backs
off or is held a while, and leaving what waits longer."""

from __future__ import annotations

import logging
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from landwatch import work_item
from landwatch.daemon.loop import LEFT_WAITING
from landwatch.job_queue import Reporter
from landwatch.kinds.base import RETRY_FIRST, ItemHandler, RetryLater
from landwatch.work_item import WorkItem, WorkKind
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
from support.queue import fill, read_only_view, tmpfs
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
    # Two instances can only run with separate state and runtime dirs (as across an upgrade that
    # moved the lock): the queue alone must keep them correct.
    processes = [
        subprocess.Popen(
            command,
            env=reviewer_env(journal, XDG_STATE_HOME=str(state), XDG_RUNTIME_DIR=str(run)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for state, run in (
            (tmp_path / "state-a", tmp_path / "run-a"),
            (tmp_path / "state-b", tmp_path / "run-b"),
        )
    ]
    for process in processes:
        assert process.wait(timeout=120) == 0
    assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in oids)
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)  # each handled once


def test_a_full_disk_under_the_state_file_stops_no_review(
    repo: Repo,
    tmp_path: Path,
    journal: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The state file only feeds `landwatch status`: a write of it that fails is said once (and
    again once it is written again and fails anew) and the reviewer goes on. Before, the
    OSError ended the reviewer (exit 1) and the next landing waited undrained."""
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    run = tmp_path / "run"
    clock = FakeClock()
    caplog.set_level(logging.INFO, logger="landwatch")
    with tmpfs(run, "1m"):
        state = run / "reviewer.json"
        reviewer = in_process({"review": Noop(clock=clock)}, clock, state)
        try:
            filler = fill(run)
            landed = []
            for n in range(3):
                landed.append(repo.land(f"landed on a full state disk {n}", f"f{n}"))
                reviewer.poke(repo.git_dir)
                settle_down(reviewer)
                clock.advance(1.0)  # past the state file's next write
            said = [r.getMessage() for r in caplog.records if str(state) in r.getMessage()]
            assert said == [
                f"{state} cannot be written (No space left on device): `landwatch status` "
                "shows an older state; reviewing goes on"
            ]
            assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in landed)
            filler.unlink()
            repo.land("room again", "f9")
            reviewer.poke(repo.git_dir)
            settle_down(reviewer)
            assert state.exists()
            assert f"{state} is written again" in caplog.text
        finally:
            reviewer.shutdown()


class FailsFirst(ItemHandler[None]):
    """A review whose first try fails (or, with `later`, says RetryLater): then it succeeds."""

    name = WorkKind.REVIEW

    def __init__(self, *, later: float | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.later = later
        self.tries = 0

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        self.tries += 1
        if self.tries == 1 and self.later is not None:
            raise RetryLater("not now", after=self.later)
        if self.tries == 1:
            raise RuntimeError("the first try fails")


def said(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [message for message in caplog.messages if message.startswith(start)]


@pytest.mark.parametrize(
    ("later", "why"),
    [(None, "backing off"), (90.0, "review holds off that repository")],
    ids=["backoff", "hold"],
)
def test_once_waits_for_an_item_backing_off_or_held_and_says_until_when(
    repo: Repo,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    later: float | None,
    why: str,
) -> None:
    """Before, the queues were called drained while an item waited out its backoff (or its
    kind's hold): `--once` ended with exit 0, the landing unreviewed and unmentioned."""
    caplog.set_level(logging.INFO, logger="landwatch")
    oid = repo.land("its first try fails")
    clock = FakeClock()
    handler = FailsFirst(later=later, clock=clock)
    reviewer = in_process({"review": handler}, clock, tmp_path / "state.json")
    try:
        settle_down(reviewer)
        assert reviewer.drained() and repo.pending() == [(oid, None)]
        assert reviewer.once_over() is None
        assert reviewer.once_over() is None
        [line] = said(caplog, "waiting for")  # said once
        assert line.startswith(f"waiting for 1 review item(s) in {repo.git_dir}, {why}: due at ")
        wait = float(re.fullmatch(r".* \(in (\d+) s\)", line)[1])  # type: ignore[index]
        assert RETRY_FIRST * 0.8 - 1 <= wait <= max(RETRY_FIRST * 1.2, later or 0)
        assert reviewer._seconds_to_next() <= wait  # the loop wakes when it is due
        clock.advance(wait + 1)
        settle_down(reviewer)
        assert reviewer.once_over() == 0
        assert done_ids(repo.git_dir) == [f"review-{oid}"] and handler.tries == 2
    finally:
        reviewer.shutdown()


def test_once_leaves_an_item_held_longer_than_it_waits_and_says_so(
    repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A wait of an hour (push's offline backoff) is not waited out: `--once` says what it
    leaves, until when, and ends with LEFT_WAITING (75) rather than 0."""
    oid = repo.land("held for an hour")
    clock = FakeClock()
    handler = FailsFirst(later=3600.0, clock=clock)
    reviewer = in_process({"review": handler}, clock, tmp_path / "state.json")
    try:
        settle_down(reviewer)
        assert reviewer.once_over() == LEFT_WAITING
        [line] = said(caplog, "left for the next run")
        assert line.startswith(
            f"left for the next run: 1 review item(s) in {repo.git_dir}, review holds off that "
            "repository until "
        )
        assert line.endswith(" (in 60 min), past what --once waits (2 min in all)")
        assert repo.pending() == [(oid, None)]
    finally:
        reviewer.shutdown()


class AlwaysFailing(FailsFirst):
    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        self.tries += 1
        raise RuntimeError("this review always fails")


def test_once_waits_two_minutes_in_all_then_leaves_what_still_backs_off(
    repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The bound is on the time `--once` waits in all, not on each wait: an item that keeps
    failing is tried after its first two backoffs (30 s and 1 min, each within 20%), and its
    third (2 min) is past what is left of the two minutes: it is left, and said."""
    oid = repo.land("never reviewed")
    clock = FakeClock()
    handler = AlwaysFailing(clock=clock)
    reviewer = in_process({"review": handler}, clock, tmp_path / "state.json")
    started = clock.monotonic()
    try:
        settle_down(reviewer)
        while (over := reviewer.once_over()) is None:
            clock.advance(reviewer._seconds_to_next())
            settle_down(reviewer)
        assert over == LEFT_WAITING and handler.tries == 3
        assert clock.monotonic() - started <= 120
        [line] = said(caplog, "left for the next run")
        assert line.startswith(f"left for the next run: 1 review item(s) in {repo.git_dir}, ")
        assert repo.pending() == [(oid, None)]
    finally:
        reviewer.shutdown()


@pytest.mark.parametrize("published", [False, True])
def test_once_leaves_a_queue_it_cannot_use_and_says_so(repo: Repo, published: bool) -> None:
    """An audit: on a read-only disk, `--once` ended 0 with the landing still in ready/, or,
    published to pending/, took it for due at every look and spun (13 s of CPU in 30 s) before
    calling it "backing off". It is left, said, and the run ends with LEFT_WAITING."""
    oid = repo.land("on a disk gone read-only")
    if published:
        work_item.publish_ready(repo.git_dir)
    command = read_only_view(repo.path, *reviewer_command("--once", "--no-watch"))
    done = subprocess.run(command, env=reviewer_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == LEFT_WAITING, done.stderr
    assert (
        f"left for the next run: the queue of {repo.git_dir}, which cannot be used" in done.stderr
    )
    assert "backing off" not in done.stderr
    assert oid in str(repo.pending()) or oid in str(work_item.entries(repo.git_dir, "ready"))
