"""What the reviewer does now and then, whatever lands: recover claims whose holder died, prune
done records, check that the hooks git runs are still landwatch's, sweep the reflogs for
landings nobody recorded (and, the remote's branches moved, share the notes held back for
them), and notice the wall clock stepping (a suspend, a clock change).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from landwatch import coverage, hooks, line_markers, registry, work_item
from landwatch.daemon import sweep
from landwatch.daemon.dispatch import Dispatcher
from landwatch.daemon.repositories import Repositories
from landwatch.daemon.settings import Settings
from landwatch.kinds import share
from landwatch.kinds.base import Clock, GivenUp, LeaseLost, recovery_delay

log = logging.getLogger("landwatch.reviewer")


@dataclass
class Deadlines:
    """When each periodic duty is due next, on the monotonic clock."""

    rescan: float
    recovery: float
    prune: float
    state: float
    sweep: float


class Duties:
    """The periodic duties over what `repositories` drains; `poke` tells the dispatcher of a
    worktree whose queue changed."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        repositories: Repositories,
        dispatcher: Dispatcher,
        poke: Callable[[Path], None],
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.repositories = repositories
        self.dispatcher = dispatcher
        self.poke = poke
        now = clock.monotonic()
        self.next = Deadlines(rescan=now, recovery=now, prune=now, state=now, sweep=now)
        self._sweep_wanted: set[Path] = set()
        self._coverage: dict[Path, str] = {}
        self._held_seen: dict[Path, str] = {}  # share.queue_held's memory
        self._last = (clock.time(), now)
        self.given_up: list[GivenUp] = []  # by recovery, for `--once` to name

    def run_due(self, now: float) -> None:
        """Every duty whose time has come at `now` (monotonic): the rescan is the loop's own,
        as it reloads the registry, and the clock's step is looked at before anything."""
        if now >= self.next.recovery:
            self.recover_all()
        if now >= self.next.prune:
            self.prune_all()
            self.check_coverage()
            self.next.prune = now + self.settings.prune
        if now >= self.next.sweep:
            self._sweep_wanted.update(self.repositories.repositories)
            self.next.sweep = now + self.settings.sweep_every
        self.sweep_wanted()

    def deadlines(self) -> list[float]:
        return [self.next.rescan, self.next.recovery, self.next.prune, self.next.sweep]

    # --- the reflog sweep ---

    def want_sweep(self, common: Path) -> None:
        """A reflog of `common` changed: sweep it at the next tick."""
        self._sweep_wanted.add(common)

    def sweep_wanted(self) -> None:
        """Sweep the repositories whose reflogs changed (or all, when the timer says)."""
        while self._sweep_wanted:
            common = self._sweep_wanted.pop()
            if common not in self.repositories.repositories:
                continue
            try:
                swept = sweep.sweep(common, now=self.clock.time(), grace=self.settings.sweep_grace)
            except (OSError, work_item.QueueError) as error:
                log.warning("sweep of %s: %s", common, error)
                continue
            for git_dir, problem in swept.problems.items():
                self.repositories.queue_problem(git_dir, problem)
            shared = self._share_held(common)
            if swept.enqueued or shared:
                for git_dir in registry.worktree_git_dirs(common):
                    self.poke(git_dir)

    def _share_held(self, common: Path) -> bool:
        """Notes held back for commits the sharing remote lacked, queued to be pushed once its
        branches hold them (a reflog of them grew: a push, a fetch); whether one was queued."""
        try:
            return share.queue_held(common, self._held_seen)
        except (OSError, work_item.QueueError) as error:
            log.warning("notes held back in %s: %s", common, error)
            return False

    # --- recovery, pruning, coverage ---

    def recover_all(self) -> None:
        """Expired claims back to pending (or given up) in every worktree; the next pass when
        the first claim still held runs out, or a recovery period from now."""
        now = self.clock.time()
        soonest: float | None = None
        for git_dir in self.repositories.git_dirs:
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
                self.repositories.queue_problem(git_dir, error)
                continue
            if recovered:
                log.info("%s: %d item(s) recovered", git_dir, recovered)
                self.poke(git_dir)
            for item in recovered.failed:
                why = f"given up after {item.tries} tries (nobody settled it)"
                log.error("%s in %s: %s", item.id, git_dir, why)
                self.given_up.append(GivenUp(item.id, git_dir, why))
                self._gave_up(item)
            if expiry is not None:
                soonest = expiry if soonest is None else min(soonest, expiry)
        after = (
            self.settings.recovery
            if soonest is None
            else min(self.settings.recovery, max(soonest, 0.0) + 1.0)
        )
        self.next.recovery = self.clock.monotonic() + after

    def _gave_up(self, item: work_item.WorkItem) -> None:
        """What recovery gave up settled by its kind; where that fails (a full disk), said in the
        log, and the reviewer goes on: the item is given up either way."""
        handler = self.dispatcher.handlers.get(item.kind)
        try:
            if handler is not None:
                handler.gave_up(item)
        except (OSError, ValueError) as error:
            log.error("%s in %s: given up, not settled: %s", item.id, item.git_dir, error)

    def claims_left(self) -> int:
        """Claims in any worktree while no job of this reviewer runs: a reviewer that stopped
        (killed) left them, and they are taken back when their lease ends (recover_all)."""
        left = 0
        for git_dir in self.repositories.git_dirs:
            with contextlib.suppress(work_item.QueueError):
                left += sum(
                    len(work_item.entries(git_dir, state))
                    for state in (work_item.CLAIMED, work_item.RECOVERING)
                )
        return left

    def prune_all(self) -> None:
        """Done items past their keeping, and the one line's set-aside markers as old."""
        for git_dir in self.repositories.git_dirs:
            try:
                work_item.prune(
                    git_dir,
                    keep_seconds=self.settings.keep_done,
                    keep_count=self.settings.keep_done_count,
                    now=self.clock.time(),
                )
            except work_item.QueueError as error:
                self.repositories.queue_problem(git_dir, error)
            line_markers.prune_set_aside(
                git_dir, keep_seconds=self.settings.keep_done, now=self.clock.time()
            )

    def check_coverage(self) -> None:
        """Whether the hooks git runs in each repository are still landwatch's, and the push gate
        and the sweep run: a change is logged once (the sweep covers the repository whatever the
        hooks' answer, unless cursors a newer release wrote stop it)."""
        for common in self.repositories.repositories:
            covered = coverage.inspect(common)
            summary = covered.summary
            for off in (covered.gate, coverage.sweep_off(common)):
                summary += f"; {off}" if off else ""
            if self._coverage.get(common) != summary:
                self._coverage[common] = summary
                level = logging.INFO if summary == coverage.Reach.HOOKS.value else logging.WARNING
                log.log(level, "%s: %s", common, summary)

    # --- the clock ---

    def notice_clock_jump(self) -> float:
        """The wall clock moved more (or less) than the monotonic one: renew our own claims
        before recovering anyone's, move every due time with the step, and drop the hooks'
        clock caches it made wrong. The wall time looked at, for a claim to use."""
        wall, mono = self.clock.time(), self.clock.monotonic()
        drift = (wall - self._last[0]) - (mono - self._last[1])
        self._last = (wall, mono)
        if abs(drift) <= self.settings.jump:
            return wall
        log.info(
            "the wall clock moved %+.0f s against the monotonic one (suspend or clock "
            "change): renewing our own claims before recovering anyone's",
            drift,
        )
        for order in self.dispatcher.running_orders():
            try:
                order.lease.renew()
            except LeaseLost:
                log.warning("%s: taken over while we were away", order.claimed.id)
        self.rebase_due_times(drift, wall)
        self.renew_clock_caches()
        self.recover_all()
        return wall

    def rebase_due_times(self, step: float, now: float) -> None:
        """Every due time still ahead moves with the step (pending stamps, the kinds' holds and
        what they keep): a backoff given by the old clock waits as long by the new one, where a
        day's step back made an item's tries 2-5 run at once."""
        git_dirs = self.repositories.git_dirs
        moved = 0
        for git_dir in git_dirs:
            try:
                moved += work_item.rebase_pending(git_dir, step=step, now=now)
            except work_item.QueueError as error:
                self.repositories.queue_problem(git_dir, error)
            self.poke(git_dir)
        for handler in self.dispatcher.handlers.values():
            try:
                handler.clock_stepped(step, now, git_dirs)
            except OSError as error:
                log.warning("%s: its due times stay as they were: %s", handler.name, error)
        log.info("the wall clock stepped: %d pending due time(s) moved with it", moved)

    def renew_clock_caches(self) -> None:
        """The hooks tell time from a cached boot time, which a step of the wall clock makes
        wrong: drop each one that no longer matches, so the next landing stamps right."""
        boot_time = work_item.boot_time()
        renewed = sum(
            hooks.renew_clock_cache(git_dir, boot_time) for git_dir in self.repositories.git_dirs
        )
        if renewed:
            log.info("the wall clock stepped: %d hook clock caches renewed", renewed)
