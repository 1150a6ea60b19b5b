"""The reviewer's periodic duties (daemon.duties): after a suspend, the wall clock stepped, its own
claims are renewed before anyone's are recovered."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from landwatch import files, layout, work_item
from landwatch.daemon.loop import Daemon
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler
from landwatch.kinds.project_hooks import ProjectHooksHandler
from landwatch.kinds.review import ReviewHandler
from landwatch.work_item import PENDING, WorkItem, WorkKind
from support.daemon import done_ids, journal_lines, reviewer_env, running, wait_for
from support.faketime import FakeTime
from support.kinds import FakeClock, in_process, reporter
from support.project_hooks import TODO_CHECK, committed_and_trusted, local_hooks
from support.queue import tries_of
from support.repos import Repo


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


def test_a_failing_item_keeps_its_backoff_when_the_clock_steps_back(
    repo: Repo, journal: Path, tmp_path: Path
) -> None:
    """The issue's finding, with libfaketime: a reviewer whose clock ran a day ahead, then the
    real clock. The item's stamps stayed a day ahead (past MAX_DELAY: due at once), so its
    tries 2-5 ran one after the other and it was given up; now its backoff moves with the step."""
    faked = FakeTime(tmp_path, "+1d")
    env = faked.python_env(reviewer_env(journal))
    oid = repo.head()
    id_ = f"{WorkKind.REVIEW}-{oid}"
    log = layout.REVIEWER_LOG.path()
    with running("--handler", "review=support.handlers:Failing", env=env) as reviewer:
        # Enqueued by the reviewer's own clock, a day ahead, as the item was.
        enqueue = [sys.executable, "-m", "landwatch", "enqueue", oid]
        done = subprocess.run(enqueue, cwd=repo.path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        wait_for(
            lambda: work_item.entries(repo.git_dir, PENDING) and tries_of(repo.git_dir, id_) == 1,
            "the first try",
        )
        faked.set("+0")
        reviewer.send_signal(signal.SIGHUP)  # a wake-up: the reviewer reads its clock again
        wait_for(lambda: "pending due time(s) moved" in log.read_text(), "the step noticed")
        [waiting] = work_item.entries(repo.git_dir, PENDING)
        # The first backoff (30 s, ±20%) by the real clock: nothing runs it within 0.5 s. Said
        # with the reviewer's log and the journal: once in ~20 loaded runs it was 53 s ahead.
        ahead = work_item.seconds_of(int(waiting.rpartition(".")[2])) - time.time()
        assert 20 < ahead < 37, (ahead, log.read_text(), journal_lines(journal))
        sentinel = repo.land("landed after the clock came back")
        wait_for(
            lambda: ["fail", sentinel, "0"] in journal_lines(journal),
            "the landing after the step",
        )
        assert [words for words in journal_lines(journal) if words[1] == oid] == [
            ["fail", oid, "0"]
        ]
        assert tries_of(repo.git_dir, id_) == 1


@pytest.mark.parametrize("told", [True, False], ids=["its line told", "its line untellable"])
def test_hooks_given_up_by_recovery_are_waited_for_no_more(
    repo: Repo, tmp_path: Path, told: bool
) -> None:
    """An audit: the reviewer died while the project's hooks ran, at every try, and recovery gave
    their item up; the commit's awaiting marker stayed, so under push.block = errors auto-push
    waited for them for good, and every push waited push.wait for hooks that would never run.
    Then (its second round) where the review's held line could not be told then (a full disk),
    the error ended the reviewer: it is said in the log, and the reviewer goes on."""
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    landed = repo.land("a change", {"a.py": "x = 1  \n"})  # trailing space: a line to tell
    ReviewHandler().handle(WorkItem(WorkKind.REVIEW, landed, repo.git_dir), reporter())
    marker = layout.AWAITING.path(repo.git_dir) / landed
    assert marker.is_file() and (layout.HELD.path(repo.git_dir) / landed).is_file()
    if not told:
        unread = layout.UNREAD.path(repo.git_dir)
        files.remove_tree(unread)
        unread.write_text("")  # where its marker would go, a file: the line cannot be told
    clock = FakeClock()
    hooks = ProjectHooksHandler(clock=clock)
    reviewer = in_process({WorkKind.PROJECT_HOOKS: hooks}, clock, tmp_path / "state.json")
    week = 7 * 24 * 3600.0
    while work_item.claim_next(repo.git_dir, [WorkKind.PROJECT_HOOKS], now=clock.time()):
        clock.advance(week)  # it died with the claim, whose lease ran out
        reviewer.duties.recover_all()
        clock.advance(week)  # and its backoff
    assert [given.id for given in reviewer.duties.given_up] == [f"project_hooks-{landed}"]
    assert not marker.exists()
    hooks.close()
