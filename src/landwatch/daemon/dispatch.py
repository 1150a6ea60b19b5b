"""Claiming into the queues: one JobQueue per kind, fed one claimed item at a time from the
worktrees poked since (round robin), only while that queue is idle (no claim ever waits in a
queue), never from a repository the kind asked to leave alone for a while.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from landwatch import work_item
from landwatch.daemon.repositories import Repositories
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Job, JobQueue, JobState
from landwatch.kinds.base import Clock, ItemHandler, Lease, WorkOrder

log = logging.getLogger("landwatch.reviewer")


class Waiting(NamedTuple):
    """A kind's items in a worktree that none may claim yet: when the first may (wall clock),
    and whether the kind holds off the repository (RetryLater, a fault), or only a backoff."""

    git_dir: Path
    kind: str
    pending: int  # the kind's pending items there
    until: float
    held: bool


class Dispatcher:
    """The queues of the kinds, and which worktrees each kind should look at again."""

    def __init__(
        self,
        handlers: dict[str, ItemHandler[Any]],
        settings: Settings,
        clock: Clock,
        repositories: Repositories,
        on_change: Callable[[Job[Any, Any]], None],
    ) -> None:
        self.handlers = handlers
        self.settings = settings
        self.clock = clock
        self.repositories = repositories
        self.queues: dict[str, JobQueue[Any]] = {
            kind: JobQueue(handler, clock=clock.time, on_change=on_change)
            for kind, handler in handlers.items()
        }
        self._dirty: dict[str, list[Path]] = {kind: [] for kind in handlers}
        self._lock = threading.Lock()
        self._due: dict[Path, float] = {}  # monotonic: when an item backing off there is due
        # The worktrees and kinds whose last claim failed (a read-only disk): nothing of theirs
        # comes due by waiting; `--once` leaves them.
        self._unusable: set[tuple[Path, str]] = set()
        self.reload_wanted = False  # a repository left the registry since the last reload
        # Called before each claim: a step of the wall clock is noticed (and every due time
        # moved with it) before a claim reads the new clock; between a tick's look and its
        # claims, a far-future stamp of the old clock counted as due at once. It answers the
        # wall time it looked at, which the claim then uses: a step after that look is the next
        # claim's to notice, never read by this one first.
        self.before_claim: Callable[[], float] = self.clock.time

    def poke(self, git_dir: Path, kinds: list[str] | None = None) -> None:
        """Something changed in `git_dir`'s queue: read it again and look at it (for `kinds`,
        or all)."""
        work_item.forget_listing(git_dir)
        self.look_again(git_dir, kinds)

    def look_again(self, git_dir: Path, kinds: list[str] | None = None) -> None:
        """Look at `git_dir` again with the listing kept: after a job of ours ended there,
        nothing new was published (what a job gives back, the queue lists again itself)."""
        with self._lock:
            for kind in self._dirty if kinds is None else kinds:
                if git_dir not in self._dirty[kind]:
                    self._dirty[kind].append(git_dir)

    def drained(self) -> bool:
        with self._lock:
            dirty = any(self._dirty.values())
        return not dirty and all(queue.idle for queue in self.queues.values())

    def dispatch(self, stopping: Callable[[], bool]) -> None:
        """For every kind whose queue is idle, claim one item there."""
        for kind, queue in self.queues.items():
            while not stopping() and queue.idle:
                with self._lock:
                    if not self._dirty[kind]:
                        break
                    git_dir = self._dirty[kind][0]
                claimed = self._claim(kind, git_dir)
                if claimed is None:
                    continue
                with self._lock:
                    # Round robin: the next claim of this kind comes from the next repository.
                    self._dirty[kind].append(git_dir)
                lease = Lease(
                    git_dir, claimed.name, self.settings.lease, self.clock, self.clock.time()
                )
                log.info(
                    "%s: %s in %s (try %d)",
                    kind,
                    claimed.item.oid[:12],
                    git_dir,
                    claimed.item.tries + 1,
                )
                queue.enqueue(WorkOrder(git_dir, claimed, lease))

    def _claim(self, kind: str, git_dir: Path) -> work_item.Claimed | None:
        """The next item of `kind` in `git_dir`, taking the worktree off the kind's list."""
        with self._lock:
            self._dirty[kind].remove(git_dir)
        if not self.repositories.still_registered(git_dir):
            # Uninstalled since the last reload: not one more item from there.
            self.reload_wanted = True
            return None
        if self.handlers[kind].not_before(git_dir) is not None:
            # The kind asked to be left alone there for a while (a backoff): the repository is
            # looked at again when that time comes.
            return None
        now = self.before_claim()
        try:
            claimed = work_item.claim_next(git_dir, [kind], now=now)
        except work_item.QueueError as error:
            self.repositories.queue_problem(git_dir, error)
            self._unusable.add((git_dir, kind))
            return None
        self.repositories.queue_usable(git_dir)
        self._unusable.discard((git_dir, kind))
        if claimed is None:
            self._wake_when_due(git_dir, kind)
        return claimed

    def _wake_when_due(self, git_dir: Path, kind: str) -> None:
        """Nothing claimable there now: if an item waits out a backoff, look again then."""
        try:
            wait = work_item.next_due(git_dir, [kind], now=self.clock.time())
        except work_item.QueueError:
            return
        if wait is not None and wait > 0:
            due = self.clock.monotonic() + wait
            self._due[git_dir] = min(due, self._due.get(git_dir, due))

    def release(self) -> None:
        """Worktrees whose wait is over are looked at again: a backoff run out, a kind's hold
        on a repository ended."""
        now = self.clock.monotonic()
        for git_dir, due in list(self._due.items()):
            if due <= now:
                del self._due[git_dir]
                self.poke(git_dir)
        for kind, handler in self.handlers.items():
            for git_dir in handler.released():
                self.poke(git_dir, [kind])

    def wakeups(self) -> list[float]:
        """When (monotonic) a wait ends: backoffs of items, holds of kinds."""
        now, wall = self.clock.monotonic(), self.clock.time()
        found = list(self._due.values())
        for handler in self.handlers.values():
            until = handler.next_release()
            if until is not None:
                found.append(now + max(0.0, until - wall))
        return found

    def unusable(self) -> list[Path]:
        """The worktrees where a kind's last claim failed, whose queue cannot be used now."""
        return sorted({git_dir for git_dir, _ in self._unusable})

    def waiting(self) -> list[Waiting]:
        """What waits to be claimed in every worktree, of every kind: an item backing off, or
        a kind holding off a repository (after RetryLater, a fault of the machine). Read afresh,
        not from the listings kept: `--once` decides from it whether anything is left."""
        now = self.clock.time()
        found = []
        for git_dir in self.repositories.git_dirs:
            try:
                found += self._waiting_in(git_dir, now)
            except work_item.QueueError:
                continue  # said as the queue's problem by the claims
        return found

    def _waiting_in(self, git_dir: Path, now: float) -> list[Waiting]:
        work_item.forget_listing(git_dir)
        names = work_item.entries(git_dir, work_item.PENDING)
        counts = Counter(work_item.id_of_entry(name).partition("-")[0] for name in names)
        found = []
        for kind in sorted(counts.keys() & self.handlers.keys()):
            wait = work_item.next_due(git_dir, [kind], now=now)
            if wait is None:
                continue
            until, hold = now + wait, self.handlers[kind].not_before(git_dir)
            held = hold is not None  # the item given back with it is stamped as long
            found.append(Waiting(git_dir, kind, counts[kind], max(until, hold or 0.0), held))
        return found

    def running_orders(self) -> list[WorkOrder]:
        return [
            job.order
            for queue in self.queues.values()
            for job in queue.jobs()
            if job.state is JobState.RUNNING
        ]
