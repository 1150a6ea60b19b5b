"""What every kind shares, against real faults: a full disk is a passing fault (no try burned,
the repository left alone a while), a failed try waits a backoff, and nothing is lost."""

from __future__ import annotations

import errno
import shutil
import subprocess
from pathlib import Path

from landwatch import work_item
from landwatch.job_queue import Reporter
from landwatch.kinds.base import (
    RETRY_CAP,
    RETRY_FIRST,
    ItemHandler,
    RetryLater,
    backoff,
    passing_fault,
    retry_delay,
)
from landwatch.kinds.review import ReviewHandler
from landwatch.work_item import FAILED, PENDING, WorkItem, WorkKind
from support.daemon import done_ids
from support.kinds import FakeClock, in_process, settle_down
from support.queue import fill, tmpfs, tries_of
from support.repos import Repo, installed
from support.tokens import random_text


def assert_every_review_done(repo: Repo, oids: list[str]) -> None:
    """The review of every commit in `oids` is done, and nothing was given up."""
    assert set(done_ids(repo.git_dir)) >= {f"review-{oid}" for oid in oids}
    assert work_item.entries(repo.git_dir, FAILED) == []


def test_backoffs_double_up_to_their_cap_with_jitter() -> None:
    assert [backoff(n, first=30, cap=3600) for n in (1, 2, 3, 8, 9)] == [30, 60, 120, 3600, 3600]
    for tries in range(1, 10):
        exact = backoff(tries, first=RETRY_FIRST, cap=RETRY_CAP)
        assert exact * 0.8 <= retry_delay(tries) <= exact * 1.2


def test_machine_faults_are_told_from_the_item_s_own_failures() -> None:
    assert passing_fault(OSError(errno.ENOSPC, "No space left on device"))
    assert passing_fault(OSError(errno.EROFS, "Read-only file system"))
    try:
        try:
            raise OSError(errno.EIO, "Input/output error")
        except OSError as error:
            raise RuntimeError("the report could not be written") from error
    except RuntimeError as wrapped:
        assert passing_fault(wrapped)
    assert not passing_fault(ValueError("the item's own fault"))
    assert not passing_fault(FileNotFoundError(errno.ENOENT, "gone"))


def test_a_full_disk_burns_no_try_and_loses_nothing(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with tmpfs(disk, "4m"):
        repo = installed(disk / "repo")
        oids = [repo.land(f"landed {n}", f"f{n}") for n in range(5)]
        filler = fill(disk)
        clock = FakeClock()
        handler = ReviewHandler(clock=clock)
        reviewer = in_process({"review": handler}, clock, tmp_path / "state.json")
        try:
            settle_down(reviewer)
            pending = work_item.entries(repo.git_dir, PENDING)
            assert len(pending) == 5 and work_item.entries(repo.git_dir, FAILED) == []
            assert all(tries_of(repo.git_dir, f"review-{oid}") == 0 for oid in oids)
            assert handler.next_release() is not None  # the repository is left alone a while
            clock.advance(RETRY_CAP)  # still full: still not counted
            settle_down(reviewer)
            assert len(work_item.entries(repo.git_dir, PENDING)) == 5
            filler.unlink()  # space again
            clock.advance(RETRY_CAP)
            settle_down(reviewer)
        finally:
            reviewer.shutdown()
        assert_every_review_done(repo, oids)
        shutil.rmtree(repo.path)


def test_a_read_only_disk_burns_no_try_and_loses_nothing(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with tmpfs(disk, "8m"):
        repo = installed(disk / "repo")
        oids = [repo.land(f"landed {n}", f"f{n}") for n in range(3)]
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        clock = FakeClock()
        reviewer = in_process({"review": ReviewHandler(clock=clock)}, clock, tmp_path / "s.json")
        try:
            for _ in range(3):
                settle_down(reviewer)
                clock.advance(RETRY_CAP)
            # Waiting still, in pending/ or (never published, the disk read-only) in ready/.
            assert work_item.pending_summary(repo.git_dir)[0] == 3
            assert all(tries_of(repo.git_dir, f"review-{oid}") == 0 for oid in oids)
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
            clock.advance(RETRY_CAP)
            settle_down(reviewer)
        finally:
            reviewer.shutdown()
        assert_every_review_done(repo, oids)
        shutil.rmtree(repo.path)


class NotNow(ItemHandler[None]):
    name = WorkKind.REVIEW

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        raise RetryLater("the world is not ready", after=300)


def test_a_hold_on_a_repository_moves_with_a_step_of_the_clock(repo: Repo, tmp_path: Path) -> None:
    """After a day's step back a hold of 5 minutes is still 5 minutes, not a day and 5 minutes;
    the item's own stamp moved with it."""
    clock = FakeClock()
    kind = NotNow(clock=clock)
    reviewer = in_process({WorkKind.REVIEW: kind}, clock, tmp_path / "state.json")
    repo.land("not now")
    settle_down(reviewer)
    assert kind.not_before(repo.git_dir) == clock.time() + 300
    clock.wall -= 86400
    reviewer.tick()
    assert kind.not_before(repo.git_dir) == clock.time() + 300
    [waiting] = work_item.entries(repo.git_dir, PENDING)
    assert waiting.endswith(f".{work_item.micros(clock.time() + 300)}")
    reviewer.shutdown()


FAILING = """
import sys
from landwatch.kinds.base import Failing
from landwatch.review.secrets import provider_rules
failing = Failing("push", "pushing to origin", 60.0, sys.argv[1])
print(provider_rules.loaded())
print(failing.error)
"""


def test_a_failing_kind_is_told_redacted_without_loading_the_rule_set() -> None:
    """`status` and the one line read a failing kind's last error: redacting it loaded
    kingfisher's rule set, compiled in memory where its cache is not at hand (22 s of `status`
    while a push failed); the detectors at hand redact it, as the reviewer's log is."""
    import sys

    password = random_text("failing", 16)
    error = f"fatal: unable to access 'https://bob:{password}@h.example/r.git/'"
    ran = subprocess.run(
        [sys.executable, "-c", FAILING, error], capture_output=True, text=True, check=True
    )
    loaded, shown = ran.stdout.splitlines()
    assert loaded == "False" and password not in shown and "h.example" in shown
