"""What the resident process does: claim items of every registered worktree into one line per
kind, recover expired claims (at start, periodically, after a suspend), prune, keep its state file.

One instance per user (daemon.lock); woken by file events (daemon.watch) with a periodic rescan
behind them (docs/reviewer.md).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landwatch import coverage, hooks, layout, registry, work_item
from landwatch.daemon import sweep
from landwatch.daemon.settings import Settings
from landwatch.daemon.watch import Watcher
from landwatch.files import write_atomic
from landwatch.job_queue import Job, JobQueue, JobState
from landwatch.kinds.base import (
    Clock,
    ItemHandler,
    Lease,
    LeaseLost,
    SystemClock,
    WorkOrder,
    recovery_delay,
)

log = logging.getLogger("landwatch.reviewer")


@dataclass
class Deadlines:
    """When each periodic duty is due next, on the monotonic clock."""

    rescan: float
    recovery: float
    prune: float
    state: float
    sweep: float


class Daemon:
    def __init__(
        self,
        handlers: dict[str, ItemHandler[Any]],
        settings: Settings | None = None,
        clock: Clock | None = None,
        state_file: Path | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.clock = clock or SystemClock()
        self.handlers = handlers
        self.state_file = state_file or layout.reviewer_state()
        self.info = info or {}
        self.lines: dict[str, JobQueue[Any]] = {
            kind: JobQueue(handler, clock=self.clock.time, on_change=self._job_changed)
            for kind, handler in handlers.items()
        }
        self.git_dirs: list[Path] = []
        self._repository_of: dict[Path, Path] = {}  # worktree git dir -> its common dir
        self._registry_seen: tuple[int, int, int] | None = None
        self._registered: set[Path] = set()
        self._registry_problem: str | None = None
        self._dirty: dict[str, list[Path]] = {kind: [] for kind in handlers}
        self._lock = threading.Lock()
        self.wake = threading.Event()
        self.stopping = False
        self.reload_requested = True
        self._told: dict[Path, str] = {}
        self.repositories: list[Path] = []
        self._sweep_wanted: set[Path] = set()
        self._coverage: dict[Path, str] = {}
        self._due: dict[Path, float] = {}  # monotonic: when an item backing off there is due
        self._watched: tuple[object, ...] = ()
        self._watcher = Watcher(
            self.poke, self.request_reload, self.want_sweep, rescan=self.settings.rescan
        )
        self._state_changed = True
        now = self.clock.monotonic()
        self._next = Deadlines(rescan=now, recovery=now, prune=now, state=now, sweep=now)
        self._last = (self.clock.time(), now)

    # --- the loop ---

    def run(self, *, once: bool = False) -> int:
        """Drain until stopped (or, with `once`, until nothing is left); the exit status."""
        self.reload()
        self.renew_clock_caches()
        self.recover_all()
        if self.settings.watch:
            self._watcher.start(self.git_dirs, self.repositories)
        try:
            while not self.stopping:
                self.tick()
                if once and self.drained():
                    break
                self.wake.wait(self._seconds_to_next())
                self.wake.clear()
        finally:
            self.shutdown()
        return 0

    def tick(self) -> None:
        now = self.clock.monotonic()
        self._notice_clock_jump()
        self._release_holds()
        self._release_due()
        if self.reload_requested or now >= self._next.rescan:
            self.reload()
            self._next.rescan = now + self.settings.rescan
        if now >= self._next.recovery:
            self.recover_all()
        if now >= self._next.prune:
            self.prune_all()
            self.check_coverage()
            self._next.prune = now + self.settings.prune
        if now >= self._next.sweep:
            self._sweep_wanted.update(self.repositories)
            self._next.sweep = now + self.settings.sweep_every
        self.sweep_wanted()
        self.dispatch()
        self._write_state_when_due()

    def _release_holds(self) -> None:
        """Repositories whose backoff ran out are looked at again by their kind."""
        for kind, handler in self.handlers.items():
            for git_dir in list(handler.held_until):
                if handler.not_before(git_dir) is None:
                    with self._lock:
                        if git_dir not in self._dirty[kind]:
                            self._dirty[kind].append(git_dir)

    def drained(self) -> bool:
        with self._lock:
            dirty = any(self._dirty.values())
        return not dirty and all(line.idle for line in self.lines.values())

    def _seconds_to_next(self) -> float:
        now = self.clock.monotonic()
        deadlines = [self._next.rescan, self._next.recovery, self._next.prune, self._next.sweep]
        wall = self.clock.time()
        for handler in self.handlers.values():
            for until in handler.held_until.values():
                deadlines.append(now + max(0.0, until - wall))
        deadlines.extend(self._due.values())
        if self._state_changed:
            deadlines.append(self._next.state)
        return max(0.0, min(deadlines) - now)

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()

    def request_reload(self) -> None:
        self.reload_requested = True
        self.wake.set()

    def want_sweep(self, common: Path) -> None:
        """A reflog of `common` changed: sweep it at the next tick."""
        self._sweep_wanted.add(common)
        self.wake.set()

    def sweep_wanted(self) -> None:
        """Sweep the repositories whose reflogs changed (or all, when the timer says)."""
        while self._sweep_wanted:
            common = self._sweep_wanted.pop()
            if common not in self.repositories:
                continue
            try:
                swept = sweep.sweep(common, now=self.clock.time(), grace=self.settings.sweep_grace)
            except (OSError, work_item.QueueError) as error:
                log.warning("sweep of %s: %s", common, error)
                continue
            if swept.enqueued:
                for git_dir in registry.worktree_git_dirs(common):
                    self.poke(git_dir)

    # --- repositories ---

    def _read_registry(self) -> list[Path] | None:
        """The registered repositories; None when the registry cannot be read (said once a
        problem), and what was registered goes on being drained until it can be again."""
        try:
            repositories = registry.registered()
        except OSError as error:
            problem = f"cannot read the registry: {error}; draining what was registered before"
            if problem != self._registry_problem:
                log.warning("%s", problem)
                self._registry_problem = problem
            return None
        self._registry_problem = None
        return repositories

    def reload(self) -> None:
        self.reload_requested = False
        git_dirs = []
        usable: list[Path] = []
        repositories = self._read_registry()
        if repositories is None:
            return
        for common in repositories:
            problem = registry.problem_with(common)
            if problem is not None:
                if self._told.get(common) != problem:
                    log.warning("skipping %s: %s", common, problem)
                    self._told[common] = problem
                continue
            self._told.pop(common, None)
            usable.append(common)
            for git_dir in registry.worktree_git_dirs(common):
                git_dirs.append(git_dir)
                self._repository_of[git_dir] = common
        for git_dir in set(git_dirs) - set(self.git_dirs):
            # A worktree added since: its work directory made now, so that it can be watched
            # before its first landing (the hook would make it, unwatched).
            try:
                work_item.ensure_work_directory(git_dir)
            except work_item.QueueError as error:
                log.warning("%s", error)
        changed = git_dirs != self.git_dirs
        # What is watched depends on the worktrees directory too: made by a `git worktree add`
        # whose worktree is not complete yet, it is watched now, so the worktree's HEAD is seen.
        watched = (
            tuple(git_dirs),
            tuple(usable),
            tuple((c / "worktrees").is_dir() for c in usable),
        )
        self.git_dirs = git_dirs
        self.repositories = usable
        for git_dir in git_dirs:
            self.poke(git_dir)
        if changed:
            log.info("draining %d worktree(s) of %d repositories", len(git_dirs), len(repositories))
            self._state_changed = True
        if watched != self._watched:
            self._watched = watched
            self._watcher.watch(git_dirs, usable)

    def poke(self, git_dir: Path) -> None:
        """Something changed in `git_dir`'s queue: look at it for every kind."""
        work_item.forget_listing(git_dir)
        with self._lock:
            for dirty in self._dirty.values():
                if git_dir not in dirty:
                    dirty.append(git_dir)
        self.wake.set()

    # --- claiming ---

    def dispatch(self) -> None:
        """For every kind whose line is free, claim one item (no claim ever waits in a line)."""
        for kind, line in self.lines.items():
            while not self.stopping and line.idle:
                with self._lock:
                    if not self._dirty[kind]:
                        break
                    git_dir = self._dirty[kind][0]
                if not self._still_registered(git_dir):
                    # Uninstalled since the last reload: not one more item from there.
                    with self._lock:
                        self._dirty[kind].remove(git_dir)
                    self.reload_requested = True
                    continue
                if self.handlers[kind].not_before(git_dir) is not None:
                    # The kind asked to be left alone there for a while (a backoff): the
                    # repository is looked at again when that time comes.
                    with self._lock:
                        self._dirty[kind].remove(git_dir)
                    continue
                try:
                    claimed = work_item.claim_next(git_dir, [kind], now=self.clock.time())
                except work_item.QueueError as error:
                    log.warning("%s", error)
                    claimed = None
                with self._lock:
                    self._dirty[kind].remove(git_dir)
                if claimed is None:
                    self._wake_when_due(git_dir, kind)
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
                line.enqueue(WorkOrder(git_dir, claimed, lease))

    def _wake_when_due(self, git_dir: Path, kind: str) -> None:
        """Nothing claimable there now: if an item waits out a backoff, look again then."""
        try:
            wait = work_item.next_due(git_dir, [kind], now=self.clock.time())
        except work_item.QueueError:
            return
        if wait is not None and wait > 0:
            due = self.clock.monotonic() + wait
            self._due[git_dir] = min(due, self._due.get(git_dir, due))

    def _release_due(self) -> None:
        now = self.clock.monotonic()
        for git_dir, due in list(self._due.items()):
            if due <= now:
                del self._due[git_dir]
                self.poke(git_dir)

    def _still_registered(self, git_dir: Path) -> bool:
        """Whether `git_dir`'s repository is registered now: the registry is read again only
        when its file changed (one stat per claim)."""
        try:
            info = layout.registry_file().stat()
            seen = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            seen = None
        if seen != self._registry_seen or seen is None:
            # Unreadable, it is read again when it changes: what was registered is kept.
            self._registry_seen = seen
            current = self._read_registry()
            if current is not None:
                self._registered = set(current)
        common = self._repository_of.get(git_dir)
        return common is not None and common in self._registered

    def _job_changed(self, job: Job[Any, Any]) -> None:
        self._state_changed = True
        if job.ended:
            self.poke(job.order.git_dir)
        self.wake.set()

    def running_orders(self) -> list[WorkOrder]:
        return [
            job.order
            for line in self.lines.values()
            for job in line.jobs()
            if job.state is JobState.RUNNING
        ]

    # --- recovery ---

    def recover_all(self) -> None:
        now = self.clock.time()
        soonest: float | None = None
        for git_dir in self.git_dirs:
            try:
                recovered = work_item.requeue_expired(
                    git_dir,
                    lease=self.settings.lease,
                    max_tries=self.settings.max_tries,
                    retry_after=recovery_delay,
                    now=now,
                )
                expiry = work_item.next_claim_expiry(git_dir, lease=self.settings.lease, now=now)
            except work_item.QueueError as error:
                log.warning("%s", error)
                continue
            if recovered.moved:
                log.info("%s: %d item(s) recovered", git_dir, recovered.moved)
                self.poke(git_dir)
            for item in recovered.failed:
                log.error(
                    "%s in %s: given up after %d tries (nobody settled it)",
                    item.id,
                    git_dir,
                    item.tries,
                )
            if expiry is not None:
                soonest = expiry if soonest is None else min(soonest, expiry)
        after = (
            self.settings.recovery
            if soonest is None
            else min(self.settings.recovery, max(soonest, 0.0) + 1.0)
        )
        self._next.recovery = self.clock.monotonic() + after

    def _notice_clock_jump(self) -> None:
        wall, mono = self.clock.time(), self.clock.monotonic()
        drift = (wall - self._last[0]) - (mono - self._last[1])
        self._last = (wall, mono)
        if abs(drift) <= self.settings.jump:
            return
        log.info(
            "the wall clock moved %+.0f s against the monotonic one (suspend or clock "
            "change): renewing our own claims before recovering anyone's",
            drift,
        )
        for order in self.running_orders():
            try:
                order.lease.renew()
            except LeaseLost:
                log.warning("%s: taken over while we were away", order.claimed.id)
        self.renew_clock_caches()
        self.recover_all()

    def renew_clock_caches(self) -> None:
        """The hooks tell time from a cached boot time, which a step of the wall clock makes
        wrong: drop each one that no longer matches, so the next landing stamps right."""
        boot_time = work_item.boot_time()
        renewed = sum(hooks.renew_clock_cache(git_dir, boot_time) for git_dir in self.git_dirs)
        if renewed:
            log.info("the wall clock stepped: %d hook clock caches renewed", renewed)

    def check_coverage(self) -> None:
        """Whether the hooks git runs in each repository are still landwatch's: a change is
        logged once (the sweep covers the repository whatever the answer)."""
        for common in self.repositories:
            summary = coverage.inspect(common).summary
            if self._coverage.get(common) != summary:
                self._coverage[common] = summary
                level = logging.INFO if summary == coverage.Reach.HOOKS.value else logging.WARNING
                log.log(level, "%s: %s", common, summary)

    def prune_all(self) -> None:
        for git_dir in self.git_dirs:
            try:
                work_item.prune(
                    git_dir,
                    keep_seconds=self.settings.keep_done,
                    keep_count=self.settings.keep_done_count,
                    now=self.clock.time(),
                )
            except work_item.QueueError as error:
                log.warning("%s", error)

    # --- state and shutdown ---

    def state(self) -> dict[str, Any]:
        return {
            **self.info,
            "updated": self.clock.time(),
            "worktrees": [str(g) for g in self.git_dirs],
            "lines": {
                kind: [job.summary() for job in line.jobs()] for kind, line in self.lines.items()
            },
        }

    def _write_state_when_due(self) -> None:
        now = self.clock.monotonic()
        if not self._state_changed or now < self._next.state:
            return
        self._state_changed = False
        self._next.state = now + self.settings.state_every
        self._write_state(self.state())

    def _write_state(self, state: dict[str, Any]) -> None:
        # Rewritten twice a second at most while busy: not worth a sync.
        write_atomic(self.state_file, json.dumps(state, indent=1), durable=False, trusted=None)

    def shutdown(self) -> None:
        self.stopping = True
        self._watcher.stop()
        deadline = self.clock.monotonic() + self.settings.grace
        for line in self.lines.values():
            line.close(timeout=max(0.0, deadline - self.clock.monotonic()))
            for job in line.jobs():
                if job.state is JobState.RUNNING:
                    self._hand_back(job.order)
        for handler in self.handlers.values():
            handler.close()
        with contextlib.suppress(OSError):
            self._write_state({**self.state(), "stopped": True})

    def _hand_back(self, order: WorkOrder) -> None:
        """A job that outlived the grace period: its item goes back to pending, uncounted."""
        order.lease.lost = True  # whatever the thread does before exit, it settles nothing
        try:
            result = work_item.requeue(
                order.git_dir,
                order.lease.name,
                max_tries=self.settings.max_tries,
                count_try=False,
                now=self.clock.time(),
            )
        except work_item.QueueError as error:
            log.warning("%s", error)
            return
        log.warning(
            "%s: still running at shutdown; handed back (%s)",
            order.claimed.id,
            result or "already taken over",
        )
