"""The resident process's loop: it composes what the reviewer knows of the registry
(daemon.repositories), the queues it claims into (daemon.dispatch) and its periodic duties
(daemon.duties), sleeps until the next of them or a file event, and keeps its state file.

One instance per user (daemon.lock); woken by file events (daemon.watch) with a periodic rescan
behind them (docs/reviewer.md).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import time
from pathlib import Path
from typing import Any

from landwatch import layout, work_item
from landwatch.daemon.dispatch import Dispatcher, Waiting
from landwatch.daemon.duties import Duties
from landwatch.daemon.repositories import Repositories
from landwatch.daemon.settings import Settings
from landwatch.daemon.wakeup import Wakeup
from landwatch.daemon.watch import Watcher
from landwatch.files import write_atomic
from landwatch.job_queue import DEFAULT_FINISHED_KEPT, Job, JobQueue, JobState
from landwatch.kinds.base import Clock, ItemHandler, SystemClock, WorkOrder
from landwatch.review.secrets.redaction import redact_words
from landwatch.text import duration

log = logging.getLogger("landwatch.reviewer")
# Finished jobs of a queue the state file shows, newest first, besides its failures.
SHOWN_FINISHED = DEFAULT_FINISHED_KEPT
# `--once`'s exit status when it leaves items that wait longer than it waits (sysexits'
# EX_TEMPFAIL, "try again later"): a script or cron tells it from a drain (0) and a failure (1).
LEFT_WAITING = 75
# `--once`'s exit status when it gave items up (in failed/, a try after the last): a script must
# not take the run for every landing worked. Before LEFT_WAITING when both are so.
GAVE_UP = 65


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
        self.state_file = state_file or layout.REVIEWER_STATE.path()
        self.info = info or {}
        self.wake = Wakeup()
        self.stopping = False
        self._waited_for_claims = False  # said once, in the log
        self._waits_said: set[tuple[Path, str, int, bool]] = set()  # `--once`'s, each once
        self._once_due: float | None = None  # monotonic: when what `--once` waits for is due
        self._waited = 0.0  # how long `--once` waited in all for items backing off or held
        self._waiting_since: float | None = None  # monotonic: since when it waits, if it does
        self.stopped_by = ""
        self.reload_requested = True
        self.registered = Repositories()
        self.dispatcher = Dispatcher(
            handlers, self.settings, self.clock, self.registered, self._job_changed
        )
        self.duties = Duties(self.settings, self.clock, self.registered, self.dispatcher, self.poke)
        self.dispatcher.before_claim = self.duties.notice_clock_jump
        self._watched: tuple[object, ...] = ()
        self._watcher = Watcher(
            self.poke, self.request_reload, self.want_sweep, rescan=self.settings.rescan
        )
        self._state_changed = True
        self._state_unwritten = ""  # why the state file cannot be written, once said

    @property
    def queues(self) -> dict[str, JobQueue[Any]]:
        """One job queue per kind (JobQueue): a worker thread, one job at a time."""
        return self.dispatcher.queues

    @property
    def git_dirs(self) -> list[Path]:
        return self.registered.git_dirs

    @property
    def repositories(self) -> list[Path]:
        return self.registered.repositories

    # --- the loop ---

    def run(self, *, once: bool = False) -> int:
        """Drain until stopped (or, with `once`, until nothing is left); the exit status."""
        self.reload()
        self.duties.renew_clock_caches()
        self.duties.recover_all()
        if self.settings.watch:
            self._watcher.start(self.git_dirs, self.repositories)
        status = 0
        try:
            while not self.stopping:
                self.tick()
                if once and (ended := self.once_over()) is not None:
                    status = ended
                    break
                self.wake.wait(self._seconds_to_next())
                self.wake.clear()
        finally:
            self.shutdown()
        return status

    def tick(self) -> None:
        now = self.clock.monotonic()
        self.duties.notice_clock_jump()
        self.dispatcher.release()
        if self.reload_requested or self.dispatcher.reload_wanted or now >= self.duties.next.rescan:
            self.reload()
            self.duties.next.rescan = now + self.settings.rescan
        self.duties.run_due(now)
        self.dispatch()
        self._write_state_when_due()

    def dispatch(self) -> None:
        """For every kind whose queue is idle, claim one item (no claim ever waits)."""
        self.dispatcher.dispatch(lambda: self.stopping)

    def drained(self) -> bool:
        """Nothing left to do: no job runs, nothing waits, and no claim a reviewer that stopped
        left is still to be taken back (`--once` after a kill reviews it, once its lease ends)."""
        if not self.dispatcher.drained():
            return False
        left = self.duties.claims_left()
        if left and not self._waited_for_claims:
            self._waited_for_claims = True
            log.info(
                "%d item(s) claimed by a reviewer that stopped: taken back when the claim's "
                "lease ends (within %.0f s)",
                left,
                self.settings.lease,
            )
        return not left

    def once_over(self) -> int | None:
        """Whether `--once` is over: None while it has something to do (a job, a claim a stopped
        reviewer left, an item backing off or held that comes due within what is left of
        `settings.once_waits`, the time it waits in all), each wait said once; else its exit
        status: 0, GAVE_UP (each named), or LEFT_WAITING (each said) when the rest waits longer."""
        self._once_due = None
        mono = self.clock.monotonic()
        if self._waiting_since is not None:
            self._waited += mono - self._waiting_since
            self._waiting_since = None
        if not self.drained():
            return None
        now = self.clock.time()
        # A queue that cannot be used (a read-only disk) is left, not waited for: its items
        # were due at every look, and --once spun on them (or, still in ready/, saw none).
        broken = self.dispatcher.unusable()
        waiting = [wait for wait in self.dispatcher.waiting() if wait.git_dir not in broken]
        patience = max(0.0, self.settings.once_waits - self._waited)
        soon = [wait for wait in waiting if wait.until - now <= patience]
        for wait in soon or waiting:
            self._say_waiting(wait, now, left=not soon)
        if not soon:
            for git_dir in broken:
                log.warning("left for the next run: the queue of %s, which cannot be used", git_dir)
            return GAVE_UP if self._say_given_up() else LEFT_WAITING if waiting or broken else 0
        for wait in soon:
            if wait.until <= now:
                self.poke(wait.git_dir)  # due already: not in the listing the claims kept
        self._waiting_since = mono
        self._once_due = mono + max(0.0, min(wait.until for wait in soon) - now)
        return None

    def _say_waiting(self, wait: Waiting, now: float, *, left: bool) -> None:
        """One line of what `--once` waits for, or leaves for the next run, and until when:
        each once, as the loop looks again at every wake-up."""
        key = (wait.git_dir, wait.kind, round(wait.until), left)
        if key in self._waits_said or wait.until <= now:
            return
        self._waits_said.add(key)
        why = f"{wait.kind} holds off that repository" if wait.held else "backing off"
        what = f"{wait.pending} {wait.kind} item(s) in {wait.git_dir}"
        when = f"{time.strftime('%H:%M:%S', time.localtime(wait.until))} (in "
        when += f"{duration(wait.until - now)})"
        if left:
            longest = duration(self.settings.once_waits)
            log.warning(
                "left for the next run: %s, %s until %s, past what --once waits (%s in all)",
                what,
                why,
                when,
                longest,
            )
        else:
            log.info("waiting for %s, %s: due at %s", what, why, when)

    def _say_given_up(self) -> bool:
        """Each item this reviewer gave up, named in one line as `--once` ends; whether any."""
        given_up = [*self.duties.given_up]
        for handler in self.handlers.values():
            given_up += handler.given_up
        said = set()
        for each in given_up:
            if (each.git_dir, each.id) not in said:
                said.add((each.git_dir, each.id))
                log.error(
                    "given up: %s in %s (%s); once mended: landwatch retry %s",
                    each.id,
                    each.git_dir,
                    each.why,
                    each.id.partition("-")[2][:12] or "--all",
                )
        return bool(said)

    def _seconds_to_next(self) -> float:
        deadlines = [*self.duties.deadlines(), *self.dispatcher.wakeups()]
        if self._once_due is not None:
            deadlines.append(self._once_due)
        if self._state_changed:
            deadlines.append(self.duties.next.state)
        return max(0.0, min(deadlines) - self.clock.monotonic())

    def stop(self, why: str = "") -> None:
        """Safe in a signal handler: it sets a flag and wakes the loop, taking no lock (what
        stops it is logged by the loop, not here)."""
        self.stopped_by = why
        self.stopping = True
        self.wake.set()

    def request_reload(self) -> None:
        self.reload_requested = True
        self.wake.set()

    def want_sweep(self, common: Path) -> None:
        """A reflog of `common` changed: sweep it at the next tick."""
        self.duties.want_sweep(common)
        self.wake.set()

    def poke(self, git_dir: Path) -> None:
        """Something changed in `git_dir`'s queue: look at it for every kind."""
        self.dispatcher.poke(git_dir)
        self.wake.set()

    def reload(self) -> None:
        """The registry read again: every worktree looked at, new ones watched."""
        self.reload_requested = self.dispatcher.reload_wanted = False
        changed = self.registered.reload()
        for git_dir in self.git_dirs:
            self.poke(git_dir)
        if changed:
            log.info(
                "draining %d worktree(s) of %d repositories",
                len(self.git_dirs),
                self.registered.registered_count,
            )
            self._state_changed = True
        watched = self.registered.watched()
        if watched != self._watched:
            self._watched = watched
            self._watcher.watch(self.git_dirs, self.repositories)

    def _job_changed(self, job: Job[Any, Any]) -> None:
        self._state_changed = True
        if job.ended:
            # Its own kind may claim the next item there, from the listing kept: re-reading
            # pending/ after every job, for every kind, made a drain of n items cost n listings
            # of n names.
            handler = self.handlers.get(job.kind)
            if handler is not None and handler.follow_up(job):
                self.dispatcher.poke(job.order.git_dir)  # what it asked for, of other kinds
            else:
                self.dispatcher.look_again(job.order.git_dir, [job.kind])
        self.wake.set()

    def running_orders(self) -> list[WorkOrder]:
        return self.dispatcher.running_orders()

    # --- state and shutdown ---

    def state(self) -> dict[str, Any]:
        # `lines`: the name the state file and `landwatch status --json` give the queues.
        return {
            **self.info,
            "updated": self.clock.time(),
            "worktrees": [str(g) for g in self.git_dirs],
            "lines": {
                kind: [_kept(job.summary()) for job in _worth_showing(queue.jobs())]
                for kind, queue in self.queues.items()
            },
        }

    def _write_state_when_due(self) -> None:
        now = self.clock.monotonic()
        if not self._state_changed or now < self.duties.next.state:
            return
        self._state_changed = False
        self.duties.next.state = now + self.settings.state_every
        try:
            self._write_state(self.state())
        except OSError as error:
            self._state_not_written(error)
            return
        if self._state_unwritten:
            self._state_unwritten = ""
            log.info("%s is written again", self.state_file)

    def _state_not_written(self, error: OSError) -> None:
        """The state file only feeds `landwatch status`: a full or read-only disk under it stops
        no review. Said once, and again when the reason changes or comes back."""
        why = error.strerror or str(error)
        if why != self._state_unwritten:
            self._state_unwritten = why
            log.warning(
                "%s cannot be written (%s): `landwatch status` shows an older state; "
                "reviewing goes on",
                self.state_file,
                why,
            )

    def _write_state(self, state: dict[str, Any]) -> None:
        # Rewritten twice a second at most while busy: not worth a sync.
        write_atomic(self.state_file, json.dumps(state, indent=1), durable=False, trusted=None)

    def shutdown(self) -> None:
        if self.stopped_by:
            log.info("stopping (%s)", self.stopped_by)
        self.stopping = True
        self._watcher.stop()
        deadline = self.clock.monotonic() + self.settings.grace
        for queue in self.queues.values():
            queue.close(timeout=max(0.0, deadline - self.clock.monotonic()))
            for job in queue.jobs():
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


def _worth_showing(jobs: list[Job[Any, Any]]) -> list[Job[Any, Any]]:
    """What status shows of a queue: every job not finished, every failure kept, and the
    newest finished ones. A queue keeps its finished jobs for an hour; written whole twice a
    second, a flood of a thousand landings made the state file, and each write, grow with it."""
    finished = [job for job in jobs if job.ended]
    recent = {id(job) for job in finished[-SHOWN_FINISHED:]}
    return [
        job for job in jobs if not job.ended or id(job) in recent or job.state is JobState.FAILED
    ]


# Each text redacted once while it is shown: the state file is written twice a second when busy.
_redacted = functools.lru_cache(maxsize=256)(redact_words)


def _kept(summary: dict[str, Any]) -> dict[str, Any]:
    """A job's summary as the state file keeps it, its error and note redacted: a kind's or a
    tool's words (git's on a failed share or maintenance, a hook's, an exception's)."""
    if summary["error"]:
        summary["error"] = _redacted(summary["error"])
    summary["progress"]["note"] = _redacted(summary["progress"]["note"])
    return summary
