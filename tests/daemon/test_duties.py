"""The reviewer's periodic duties (daemon.duties): after a suspend, the wall clock stepped, its own
claims are renewed before anyone's are recovered."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from landwatch import work_item
from landwatch.daemon.loop import Daemon
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler
from landwatch.work_item import WorkItem, WorkKind
from support.daemon import (
    done_ids,
)
from support.kinds import FakeClock
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
