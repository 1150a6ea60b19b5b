"""The resident reviewer: drains every registered repository through one line per kind of work.

One instance per user; leases renewed while jobs run, recovery at start, periodically and after a
suspend, wake-ups from file events with a periodic rescan behind them (docs/reviewer.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import logging.handlers
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from landwatch import __version__, paths, registry, work_item
from landwatch.job_queue import Job, JobQueue, JobState
from landwatch.kinds.base import (
    DEFAULT_LEASE,
    DEFAULT_MAX_TRIES,
    Clock,
    Lease,
    LeaseLost,
    SystemClock,
    WorkItemKind,
    WorkOrder,
)
from landwatch.work_item import WorkKind

log = logging.getLogger("landwatch.reviewer")

LOG_FILE = "reviewer.log"


@dataclass(frozen=True)
class Settings:
    lease: float = DEFAULT_LEASE
    max_tries: int = DEFAULT_MAX_TRIES
    rescan: float = 60.0  # re-list every queue even without file events (inotify runs out)
    recovery: float = 300.0  # requeue expired claims of every repository
    prune: float = 3600.0
    keep_done: float = 30 * 86400.0
    keep_done_count: int = 1000
    grace: float = 10.0  # a running job's time to finish after SIGTERM
    jump: float = 30.0  # wall clock moving this much more (or less) than the monotonic one
    watch: bool = True  # file events (watchdog)
    state_every: float = 0.5  # the state file is rewritten at most this often


class AlreadyRunning(Exception):
    """Another reviewer holds the per-user lock; the message names it."""


class InstanceLock:
    """flock(2) on a file in the runtime dir: released by the kernel however the holder dies."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.reviewer_lock()
        self._fd = -1

    def acquire(self, info: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 4096).decode(errors="replace")
            os.close(fd)
            raise AlreadyRunning(f"a reviewer is already running ({describe(holder)})") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def describe(holder: str) -> str:
    try:
        info = json.loads(holder)
        return (
            f"pid {info['pid']}, {info['mode']}, landwatch {info['version']}, "
            f"log {info.get('log', '?')}"
        )
    except (ValueError, KeyError, TypeError):
        return "its lock file says nothing readable"


class Reviewer:
    def __init__(
        self,
        handlers: dict[WorkKind, WorkItemKind[Any]],
        settings: Settings | None = None,
        clock: Clock | None = None,
        state_file: Path | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.clock = clock or SystemClock()
        self.handlers = handlers
        self.state_file = state_file or paths.reviewer_state()
        self.info = info or {}
        for handler in handlers.values():
            handler.clock = self.clock
        self.lines: dict[WorkKind, JobQueue[Any]] = {
            kind: JobQueue(handler, clock=self.clock.time, on_change=self._job_changed)
            for kind, handler in handlers.items()
        }
        self.git_dirs: list[Path] = []
        self._dirty: dict[WorkKind, list[Path]] = {kind: [] for kind in handlers}
        self._lock = threading.Lock()
        self.wake = threading.Event()
        self.stopping = False
        self.reload_requested = True
        self._told: dict[Path, str] = {}
        self._observer: Any = None
        self._state_changed = True
        now = self.clock.monotonic()
        self._next = {"rescan": now, "recovery": now, "prune": now, "state": now}
        self._last = (self.clock.time(), now)

    # --- the loop ---

    def run(self, *, once: bool = False) -> int:
        """Drain until stopped (or, with `once`, until nothing is left); the exit status."""
        self.reload()
        self.recover_all()
        self.start_watching()
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
        if self.reload_requested or now >= self._next["rescan"]:
            self.reload()
            self._next["rescan"] = now + self.settings.rescan
        if now >= self._next["recovery"]:
            self.recover_all()
        if now >= self._next["prune"]:
            self.prune_all()
            self._next["prune"] = now + self.settings.prune
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
        deadlines = [self._next["rescan"], self._next["recovery"], self._next["prune"]]
        wall = self.clock.time()
        for handler in self.handlers.values():
            for until in handler.held_until.values():
                deadlines.append(now + max(0.0, until - wall))
        if self._state_changed:
            deadlines.append(self._next["state"])
        return max(0.0, min(deadlines) - now)

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()

    # --- repositories ---

    def reload(self) -> None:
        self.reload_requested = False
        git_dirs = []
        for common in registry.registered():
            problem = registry.problem_with(common)
            if problem is not None:
                if self._told.get(common) != problem:
                    log.warning("skipping %s: %s", common, problem)
                    self._told[common] = problem
                continue
            self._told.pop(common, None)
            git_dirs += registry.worktree_git_dirs(common)
        changed = git_dirs != self.git_dirs
        self.git_dirs = git_dirs
        for git_dir in git_dirs:
            self.poke(git_dir)
        if changed:
            log.info(
                "draining %d worktree(s) of %d repositories",
                len(git_dirs),
                len(registry.registered()),
            )
            self._state_changed = True
            if self._observer is not None:
                self._watch_all()

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
                if self.handlers[kind].not_before(git_dir) is not None:
                    # The kind asked to be left alone there for a while (a backoff): the
                    # repository is looked at again when that time comes.
                    with self._lock:
                        self._dirty[kind].remove(git_dir)
                    continue
                try:
                    claimed = work_item.claim_next_of(git_dir, [kind], now=self.clock.time())
                except work_item.QueueError as error:
                    log.warning("%s", error)
                    claimed = None
                with self._lock:
                    if claimed is None:
                        self._dirty[kind].remove(git_dir)
                        continue
                    # Round robin: the next claim of this kind comes from the next repository.
                    self._dirty[kind].remove(git_dir)
                    self._dirty[kind].append(git_dir)
                lease = Lease(
                    git_dir, claimed.name, self.settings.lease, self.clock, self.clock.time()
                )
                log.info(
                    "%s: %s in %s (try %d)",
                    kind.value,
                    claimed.item.oid[:12],
                    git_dir,
                    claimed.item.tries + 1,
                )
                line.enqueue(WorkOrder(git_dir, claimed, lease))

    def _job_changed(self, job: Job[Any, Any]) -> None:
        self._state_changed = True
        if job.ended:
            self.poke(job.order.git_dir)
        self.wake.set()

    def running_orders(self) -> list[WorkOrder]:
        orders = []
        for line in self.lines.values():
            for job in line.jobs():
                if job.state is JobState.RUNNING:
                    orders.append(job.order)
        return orders

    # --- recovery ---

    def recover_all(self) -> None:
        now = self.clock.time()
        soonest: float | None = None
        for git_dir in self.git_dirs:
            try:
                recovered = work_item.requeue_expired_reporting(
                    git_dir,
                    lease=self.settings.lease,
                    max_tries=self.settings.max_tries,
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
        self._next["recovery"] = self.clock.monotonic() + after

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
        self.recover_all()

    def prune_all(self) -> None:
        for git_dir in self.git_dirs:
            with contextlib.suppress(work_item.QueueError, OSError):
                work_item.prune(
                    git_dir,
                    keep_seconds=self.settings.keep_done,
                    keep_count=self.settings.keep_done_count,
                    now=self.clock.time(),
                )

    # --- file events ---

    def start_watching(self) -> None:
        if not self.settings.watch:
            return
        try:
            from watchdog.observers import Observer
        except ImportError as error:  # pragma: no cover - a dependency
            log.warning("no file events (%s); rescanning every %.0f s", error, self.settings.rescan)
            return
        # A long timeout: emitter threads wake this rarely when idle (stop() waits that long).
        self._observer = Observer(timeout=5.0)
        self._observer.daemon = True
        self._watch_all()
        self._observer.start()

    def _watch_all(self) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        reviewer = self

        registry_name = registry.registry_file().name

        class Poke(FileSystemEventHandler):
            # Only what can bring work: reading a watched directory (our own listing) raises
            # open/close events, and waking on those would spin.
            def __init__(self, git_dir: Path | None) -> None:
                self.git_dir = git_dir

            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type not in ("created", "moved", "deleted", "modified"):
                    return
                if self.git_dir is not None:
                    if event.event_type in ("created", "moved"):
                        reviewer.poke(self.git_dir)
                    return
                names = {
                    os.path.basename(os.fsdecode(event.src_path)),
                    os.path.basename(os.fsdecode(getattr(event, "dest_path", "") or "")),
                }
                if registry_name in names:  # replaced by rename: the new name is dest_path
                    reviewer.reload_requested = True
                    reviewer.wake.set()

        observer = self._observer
        observer.unschedule_all()
        registry.registry_file().parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # The whole work directory, not just pending/: a claim moves an item to claimed/, and
        # watchdog holds an unpaired moved_from for 0.5 s, delaying every event behind it.
        targets: list[tuple[Path | None, Path, bool]] = [
            (None, registry.registry_file().parent, False)
        ]
        targets += [(g, g / work_item.WORK_DIRECTORY, True) for g in self.git_dirs]
        for git_dir, directory, recursive in targets:
            if not directory.is_dir():
                continue
            try:
                observer.schedule(Poke(git_dir), str(directory), recursive=recursive)
            except OSError as error:
                log.warning(
                    "no file events for %s (%s); rescanning every %.0f s",
                    directory,
                    error.strerror or error,
                    self.settings.rescan,
                )

    # --- state and shutdown ---

    def state(self) -> dict[str, Any]:
        return {
            **self.info,
            "updated": self.clock.time(),
            "worktrees": [str(g) for g in self.git_dirs],
            "lines": {
                kind.value: [job.summary() for job in line.jobs()]
                for kind, line in self.lines.items()
            },
        }

    def _write_state_when_due(self) -> None:
        now = self.clock.monotonic()
        if not self._state_changed or now < self._next["state"]:
            return
        self._state_changed = False
        self._next["state"] = now + self.settings.state_every
        write_private_json(self.state_file, self.state())

    def shutdown(self) -> None:
        self.stopping = True
        if self._observer is not None:
            self._observer.stop()
        deadline = self.clock.monotonic() + self.settings.grace
        for line in self.lines.values():
            line.close(timeout=max(0.0, deadline - self.clock.monotonic()))
            for job in line.jobs():
                if job.state is JobState.RUNNING:
                    self._hand_back(job.order)
        for handler in self.handlers.values():
            close = getattr(handler, "close", None)
            if callable(close):
                close()
        with contextlib.suppress(OSError):
            write_private_json(self.state_file, {**self.state(), "stopped": True})

    def _hand_back(self, order: WorkOrder) -> None:
        """A job that outlived the grace period: its item goes back to pending, uncounted."""
        order.lease.lost = True  # whatever the thread does before exit, it settles nothing
        result = work_item.requeue(
            order.git_dir,
            order.lease.name,
            max_tries=self.settings.max_tries,
            count_try=False,
            now=self.clock.time(),
        )
        log.warning(
            "%s: still running at shutdown; handed back (%s)",
            order.claimed.id,
            result or "already taken over",
        )


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, json.dumps(data, indent=1).encode())
    finally:
        os.close(fd)
    os.replace(temporary, path)


# --- running it -------------------------------------------------------------------------------


def setup_logging(*, verbose: bool, to_stderr: bool) -> Path:
    log_file = paths.state_dir() / LOG_FILE
    log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    root = logging.getLogger("landwatch")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler = logging.handlers.RotatingFileHandler(log_file, maxBytes=1 << 20, backupCount=3)
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root.addHandler(file_handler)
    if to_stderr:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(logging.Formatter("landwatch: %(message)s"))
        root.addHandler(stream)
    return log_file


def serve(
    make: Callable[[], Reviewer],
    *,
    mode: str,
    once: bool,
    verbose: bool,
    to_stderr: bool,
    ready: Callable[[str], None] = lambda message: None,
) -> int:
    log_file = setup_logging(verbose=verbose, to_stderr=to_stderr)
    info = {"pid": os.getpid(), "mode": mode, "version": __version__, "log": str(log_file)}
    lock = InstanceLock()
    try:
        lock.acquire(info)
    except AlreadyRunning as error:
        ready(f"landwatch: {error}")
        return 1
    try:
        reviewer = make()
        reviewer.info = info

        def on_signal(number: int, frame: FrameType | None) -> None:
            if number == signal.SIGHUP:
                reviewer.reload_requested = True
                reviewer.wake.set()
            else:
                log.info("stopping (%s)", signal.Signals(number).name)
                reviewer.stop()

        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, on_signal)
        log.info("reviewer started (pid %d, %s, landwatch %s)", os.getpid(), mode, __version__)
        ready(f"ok {os.getpid()}")
        return reviewer.run(once=once)
    finally:
        lock.release()


def detach(start: Callable[[Callable[[str], None]], int]) -> int:
    """Run `start` as a daemon (double fork, new session); report whether it got going."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid > 0:
        os.close(write_end)
        with os.fdopen(read_end) as reader:
            message = reader.read().strip()
        os.waitpid(pid, 0)
        if message.startswith("ok "):
            print(
                f"landwatch: reviewer running in the background (pid {message[3:]}); "
                f"log: {paths.state_dir() / LOG_FILE}"
            )
            return 0
        print(message or "landwatch: the reviewer did not start; see its log", file=sys.stderr)
        return 1
    os.close(read_end)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    writer = os.fdopen(write_end, "w")

    def ready(message: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            writer.write(message + "\n")
            writer.close()

    code = 1
    try:
        code = start(ready)
    finally:
        ready("landwatch: the reviewer stopped at once; see its log")
        os._exit(code)
