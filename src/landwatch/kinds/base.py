"""What every kind of landed work shares: a claimed work item as the order, its lease, settling.

A kind's handler writes `handle(item, reporter)`; leases are renewed from the reporter's `alive`,
and the claim is settled (or given back with a try counted) when the job ends.
"""

from __future__ import annotations

import errno
import logging
import random
import threading
import time
from abc import abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol, TypeVar

from landwatch import work_item
from landwatch.job_queue import Job, JobKind, JobState, Reporter
from landwatch.kinds import DEFAULT_MAX_TRIES
from landwatch.review.secrets.redaction import redact_words
from landwatch.work_item import Claimed, WorkItem

log = logging.getLogger("landwatch.reviewer")

# After a failed try the item waits RETRY_FIRST, doubling at each try, at most RETRY_CAP (with
# jitter), so a failure is not retried at once: five tries take about 7 minutes, not 15 ms.
RETRY_FIRST = 30.0
RETRY_CAP = 3600.0
# A fault of the machine (below) is tried again sooner: at most this long after the disk has
# room again, the items waiting for it go on by themselves.
FAULT_RETRY_CAP = RETRY_CAP / 2
# Faults of the machine, not of the item: the disk full or read-only, I/O errors, out of memory
# or descriptors, a lock held, the network down. They pass; no try is counted, and the kind
# leaves the repository alone a while.
PASSING_ERRNOS = frozenset(
    {
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EROFS,
        errno.EIO,
        errno.ENOMEM,
        errno.ENFILE,
        errno.EMFILE,
        errno.EAGAIN,
        errno.EBUSY,
        errno.ENETDOWN,
        errno.ENETUNREACH,
        errno.EHOSTUNREACH,
        errno.ETIMEDOUT,
    }
)

R = TypeVar("R")


class Clock(Protocol):
    def time(self) -> float: ...
    def monotonic(self) -> float: ...


class SystemClock:
    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


def backoff(count: int, *, first: float, cap: float) -> float:
    """`first` after the first failure, doubling at each further one, at most `cap`."""
    return float(min(first * 2 ** max(count - 1, 0), cap))


def retry_delay(tries: int) -> float:
    """How long an item waits after its `tries`-th failed try: a backoff with ±20% jitter."""
    spread = random.uniform(0.8, 1.2)  # noqa: S311 - jitter, not a secret
    return backoff(tries, first=RETRY_FIRST, cap=RETRY_CAP) * spread


def recovery_delay(tries: int) -> float:
    """How long an item whose holder died (its lease ran out) waits: its lease already made it
    wait once, so the first comes back at once; a second death starts the backoff."""
    return 0.0 if tries <= 1 else retry_delay(tries - 1)


def passing_fault(error: BaseException | None) -> bool:
    """A fault of the machine (a full or read-only disk, ...), not of the item's own work."""
    while error is not None:
        if isinstance(error, OSError) and error.errno in PASSING_ERRNOS:
            return True
        error = error.__cause__ or error.__context__
    return False


class LeaseLost(Exception):
    """The claim was taken over (renewal found the name gone): abandon, settle nothing."""


class RetryLater(Exception):
    """Not a failure of the item: the world is not ready (offline, a lock held). The item goes
    back uncounted and the kind takes nothing more from that repository for `after` seconds."""

    def __init__(self, message: str, *, after: float) -> None:
        super().__init__(message)
        self.after = after


class GiveUp(Exception):
    """A failure no retry can mend (a push rejected as non-fast-forward): failed at once."""


class GivenUp(NamedTuple):
    """An item this reviewer gave up (moved to failed/, kept for the person), and why: what
    `landwatch reviewer --once` names as it ends, so a script knows a landing went unworked."""

    id: str
    git_dir: Path
    why: str


@dataclass
class Lease:
    """The claim of one running item; its name changes at every renewal."""

    git_dir: Path
    name: str
    seconds: float
    clock: Clock
    renewed_at: float
    lost: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def renew(self) -> None:
        with self._lock:
            if self.lost:
                raise LeaseLost(self.name)
            now = self.clock.time()
            renewed = work_item.renew_claim(self.git_dir, self.name, now=now)
            if renewed is None:
                self.lost = True
                raise LeaseLost(self.name)
            self.name, self.renewed_at = renewed, now

    def renew_if_due(self) -> None:
        now = self.clock.time()
        # Renew a quarter into the lease, and at once if the clock went back.
        if now - self.renewed_at >= self.seconds / 4 or now < self.renewed_at:
            self.renew()


@dataclass
class WorkOrder:
    git_dir: Path
    claimed: Claimed
    lease: Lease

    @property
    def item(self) -> WorkItem:
        return self.claimed.item


class LeasedReporter(Reporter):
    """The job's reporter, renewing the lease whenever the job shows it is alive."""

    def __init__(self, inner: Reporter, lease: Lease) -> None:  # a wrapper: no Reporter state
        self.job = inner.job
        self.inner = inner
        self.lease = lease

    def progress(self, done: int, total: int | None = None, note: str = "") -> None:
        self.inner.progress(done, total, note)
        self.alive()

    def alive(self) -> None:
        self.lease.renew_if_due()


@dataclass(frozen=True)
class Failing:
    """A kind's work in one worktree failing for a while, as status and the one line tell it:
    what is failing ("pushing to origin"), for how long, and the last error in a line."""

    kind: str
    what: str
    seconds: float
    error: str

    def __post_init__(self) -> None:
        # A push's error, and what it names (a remote given as a URL), can hold the remote's
        # password: never shown whole, as it may have been kept by an older release. By the
        # detectors at hand: status and the one line read it, and loading the maintained rule
        # set for it cost seconds (a push answer is redacted where it is made, kinds.push_answer).
        object.__setattr__(self, "what", redact_words(self.what))
        object.__setattr__(self, "error", redact_words(self.error))


class ItemHandler(JobKind[WorkOrder, R]):
    """How the items of one kind are worked: one job per claimed work item.

    `name` is the kind of the items it handles (the record's `kind`).
    """

    def __init__(self, *, max_tries: int = DEFAULT_MAX_TRIES, clock: Clock | None = None) -> None:
        self.max_tries = max_tries
        self.clock: Clock = clock or SystemClock()
        self._held_until: dict[Path, float] = {}  # repository -> when the kind may claim again
        self._faults: dict[Path, int] = {}  # passing faults in a row, per repository
        self.given_up: list[GivenUp] = []  # by this process, for `--once` to name

    def close(self) -> None:  # optional: empty on purpose
        """Release what the handler holds (a worker process) when the reviewer stops."""

    @classmethod
    def failing(cls, git_dir: Path, now: float) -> Failing | None:
        """How this kind's work in `git_dir` has been failing, if it is (`landwatch status` and
        the one line ask each kind with an item waiting there, ready, pending or claimed: one
        with nothing waiting is not failing); None: it is not, or the kind cannot tell."""
        return None

    # --- holds: a repository left alone a while (RetryLater, a fault of the machine) ---

    def not_before(self, git_dir: Path) -> float | None:
        """Wall-clock time before which the reviewer takes no item of this kind from `git_dir`
        (after a RetryLater); None when it may claim now."""
        until = self._held_until.get(git_dir)
        if until is not None and until <= self.clock.time():
            del self._held_until[git_dir]
            return None
        return until

    def released(self) -> list[Path]:
        """The repositories whose hold has run out since, forgotten: the kind may claim there."""
        return [git_dir for git_dir in list(self._held_until) if self.not_before(git_dir) is None]

    def next_release(self) -> float | None:
        """When the first hold runs out (wall clock); None when no repository is held."""
        return min(self._held_until.values(), default=None)

    def clock_stepped(self, step: float, now: float, git_dirs: list[Path]) -> None:
        """The wall clock just stepped by `step` seconds (read at `now`): every due time the kind
        keeps moves with it, as the queue's stamps do; a kind that keeps more (in `git_dirs`,
        the worktrees drained) extends this."""
        for git_dir, until in self._held_until.items():
            self._held_until[git_dir] = work_item.rebased(until, step, now)

    def gave_up(self, item: WorkItem) -> None:
        """`item`, of this kind, given up by recovery (its reviewer died with it at every try):
        what its handler settles as it ends, settled now. Nothing, for most kinds."""

    # --- a job ---

    def key(self, order: WorkOrder) -> str:
        return order.claimed.id

    def run(self, order: WorkOrder, reporter: Reporter) -> R:
        leased = LeasedReporter(reporter, order.lease)
        leased.alive()
        return self.handle(order.item, leased)

    @abstractmethod
    def handle(self, item: WorkItem, reporter: Reporter) -> R:
        """Do the work and make its result durable; raise to fail (the item is retried)."""

    def follow_up(self, job: Job[WorkOrder, R]) -> bool:
        """Whether the job, ended, recorded work items of other kinds in its worktree (the
        review asking for the project's hooks, or to share its note): the reviewer then looks
        there for every kind, without waiting for the watcher to see them."""
        return False

    def settle(self, job: Job[WorkOrder, R]) -> None:
        """The claim settled as the job ended: done, failed for good, held back uncounted, or
        given back with a try counted to wait out a backoff."""
        order = job.order
        lease = order.lease
        if lease.lost:
            log.warning("%s: claim taken over; abandoned without settling", order.claimed.id)
            return
        now = self.clock.time()
        if job.state is JobState.DONE:
            self._faults.pop(order.git_dir, None)
            if not work_item.settle(order.git_dir, lease.name, work_item.DONE, now=now):
                log.warning(
                    "%s: claim gone before settling; another reviewer has it", order.claimed.id
                )
        elif isinstance(job.failure, GiveUp):
            work_item.settle(order.git_dir, lease.name, work_item.FAILED, now=now)
            log.error("%s in %s: failed: %s", order.claimed.id, order.git_dir, job.failure)
            self.given_up.append(GivenUp(order.claimed.id, order.git_dir, str(job.failure)))
        elif (after := self._wait_uncounted(order.git_dir, job.failure)) is not None:
            # Not now: no try counted, and nothing more of this kind from there until then.
            self._held_until[order.git_dir] = now + after
            work_item.requeue(
                order.git_dir,
                lease.name,
                max_tries=self.max_tries,
                count_try=False,
                delay=after,
                now=now,
            )
            log.info("%s: %s; retrying in %.0f s", order.claimed.id, job.error, after)
        else:
            self._give_back(job, now)

    def _wait_uncounted(self, git_dir: Path, failure: BaseException | None) -> float | None:
        """How long a failure that is not the item's own keeps the kind away; None: the item's."""
        if isinstance(failure, RetryLater):
            return failure.after
        if not passing_fault(failure):
            return None
        faults = self._faults.get(git_dir, 0) + 1
        self._faults[git_dir] = faults
        return backoff(faults, first=RETRY_FIRST, cap=FAULT_RETRY_CAP)

    def _give_back(self, job: Job[WorkOrder, R], now: float) -> None:
        """A failed try counted: back to pending after a backoff, or given up at max_tries."""
        order = job.order
        tried = order.item.tries + 1
        outcome = work_item.requeue(
            order.git_dir,
            order.lease.name,
            max_tries=self.max_tries,
            delay=retry_delay(tried),
            now=now,
        )
        if outcome == work_item.FAILED:
            log.error(
                "%s in %s: gave up after %d tries: %s",
                order.claimed.id,
                order.git_dir,
                tried,
                job.error,
            )
            why = f"gave up after {tried} tries: {job.error}"
            self.given_up.append(GivenUp(order.claimed.id, order.git_dir, why))
        elif outcome == work_item.PENDING:
            log.warning(
                "%s: failed (try %d of %d), will retry: %s",
                order.claimed.id,
                tried,
                self.max_tries,
                job.error,
            )
