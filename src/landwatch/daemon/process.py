"""How the resident process runs: its log, its lock, its signals, and detaching from the
terminal where no service manager starts it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import logging.handlers
import os
import signal
import stat
import sys
from collections.abc import Callable
from io import TextIOWrapper
from pathlib import Path
from types import FrameType

from landwatch import __version__, layout
from landwatch.daemon.lock import AlreadyRunning, InstanceLock, LockHolder, NowhereToLock
from landwatch.daemon.loop import Daemon
from landwatch.files import private_directory
from landwatch.review.secrets.redaction import redact_words
from landwatch.text import safe

log = logging.getLogger("landwatch.reviewer")


class PrintableFormatter(logging.Formatter):
    """Log lines carry repository paths and names, git's and hooks' words: escaped like any
    terminal output (a traceback, written by us, keeps its lines), and every secret redacted."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = safe(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        # Each line redacted once (linear in what is written), the traceback's too, by the
        # detectors at hand: the maintained rule set is never loaded into the reviewer for its log.
        lines = super().format(record).split("\n")
        return "\n".join(redact_words(line) for line in lines)


class PrivateLog(logging.handlers.RotatingFileHandler):
    """The log, rotated: 0600 however its file came to be (new, after a rotation, or left 0644
    by an older release), and never written through a link. A disk with no room for it (full,
    read-only) is said once on stderr, the lines meanwhile dropped from the file, not the
    reviewer stopped nor logging's traceback printed at every line."""

    def __init__(self, path: Path, *, size: int = 1 << 20, kept: int = 3) -> None:
        # Opened at the first line, where a failure is handleError's: a log that cannot be
        # opened (a link, a full disk) stops no reviewer.
        super().__init__(path, maxBytes=size, backupCount=kept, delay=True)
        self.unwritten = ""  # why the last line could not be written, once said
        self._failed = False

    def _open(self) -> TextIOWrapper:
        # O_NONBLOCK, and a regular file only: a FIFO there was waited on for a reader for ever,
        # the reviewer holding its lock and deaf to SIGTERM (an audit).
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        refused = OSError(errno.EINVAL, "not a regular file", self.baseFilename)
        try:
            fd = os.open(self.baseFilename, flags | os.O_NONBLOCK, 0o600)
        except OSError as error:
            raise refused if error.errno == errno.ENXIO else error from None  # ENXIO: a FIFO
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise refused
        os.fchmod(fd, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)

    def emit(self, record: logging.LogRecord) -> None:
        self._failed = False
        super().emit(record)
        if not self._failed:
            self.unwritten = ""  # written: a failure that comes back is said again

    def handleError(self, record: logging.LogRecord) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handleError(record)  # a mistake of ours: logging's traceback
            return
        self._failed = True
        stream, self.stream = self.stream, None  # opened afresh at the next line; the lines
        if stream is not None:  # its buffer holds are dropped with it
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        why = error.strerror or str(error)
        if why != self.unwritten:
            self.unwritten = why
            with contextlib.suppress(OSError, ValueError):
                print(
                    f"landwatch: {safe(self.baseFilename)} cannot be written ({why}): the "
                    "reviewer's log lines are dropped from it until it can",
                    file=sys.stderr,
                )


def setup_logging(*, verbose: bool, to_stderr: bool) -> Path:
    log_file = layout.REVIEWER_LOG.path()
    # A state dir that cannot be written (read-only, full) is said by the log at its first line
    # and by the lock: it stops no reviewer.
    with contextlib.suppress(OSError):
        private_directory(log_file.parent, trusted=None)
    root = logging.getLogger("landwatch")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler = PrivateLog(log_file)
    file_handler.setFormatter(PrintableFormatter("%(asctime)s %(levelname)s %(message)s"))
    root.addHandler(file_handler)
    if to_stderr:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(PrintableFormatter("landwatch: %(message)s"))
        root.addHandler(stream)
    return log_file


# Nobody answers the reviewer. git runs GIT_ASKPASS, core.askPass or SSH_ASKPASS for a password
# even with its terminal prompts off: a window on the desktop at any moment, asked by an auto-push,
# a share or the gate's ls-remote; an empty GIT_ASKPASS stops all three. A credential helper still
# answers, and Git Credential Manager, one of them, is told never to ask (GCM_INTERACTIVE).
UNATTENDED = {"GIT_ASKPASS": "", "GCM_INTERACTIVE": "never"}


def serve(
    make: Callable[[], Daemon],
    *,
    mode: str,
    once: bool,
    verbose: bool,
    to_stderr: bool,
    niceness: int,
    say_started: Callable[[str], None] = lambda message: None,
) -> int:
    """Run the reviewer `make` builds under the per-user lock until it ends, at `niceness` at
    least (background_priority); `say_started` is told "ok <pid>" once it runs, or the line
    saying why it could not start."""
    log_file = setup_logging(verbose=verbose, to_stderr=to_stderr)
    holder = LockHolder(os.getpid(), mode, __version__, str(log_file))
    lock = InstanceLock()
    try:
        lock.acquire(holder)
    except (AlreadyRunning, NowhereToLock) as error:
        say_started(f"landwatch: {safe(str(error))}")
        return 1
    try:
        priority = background_priority(niceness)
        os.environ.update(UNATTENDED)  # for every git it and its workers start from now on
        daemon = make()
        daemon.info = holder.as_dict()

        def on_signal(number: int, frame: FrameType | None) -> None:
            # Flags and a wake-up only: a lock taken here may be held by the very code the
            # signal interrupted (daemon.wakeup says how the reviewer once hung on SIGTERM).
            if number == signal.SIGHUP:
                daemon.request_reload()
            else:
                daemon.stop(signal.Signals(number).name)

        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, on_signal)
        log.info("reviewer started (%s), %s", holder.describe(), priority)
        _say_where_locked(lock)
        say_started(f"ok {os.getpid()}")
        return daemon.run(once=once)
    finally:
        lock.release()


def _say_where_locked(lock: InstanceLock) -> None:
    """A lock file that could not be written (a read-only state dir), or not say who holds it
    (a full one), said once as the reviewer starts: either way it reviews."""
    for path, error in lock.unwritten.items():
        log.warning(
            "%s cannot say who holds it (%s): `landwatch status` names no pid",
            path,
            error.strerror or error,
        )
    for path, error in lock.not_writable.items():
        state = path == layout.REVIEWER_LOCK.path()
        kept = [str(other) for other in lock.held if other != path]
        kept += [f"{path} (read-only)"] if path in lock.held else []
        log.warning(
            "%s cannot be written (%s: %s): the reviewer's lock is held in %s; reviewing goes on",
            "landwatch's state directory" if state else "the runtime directory",
            error.strerror or error,
            path.parent,
            " and ".join(kept),
        )


def background_priority(niceness: int) -> str:
    """This process, and so all it starts from now on, at background work's priority: `niceness`
    at least, and Linux's batch policy (it never preempts on a wakeup); the words saying which,
    for the log. The reviewer's work is never what the person waits for (0: as it was started).
    Linux derives an I/O priority from the niceness where none was set."""
    if niceness == 0:
        return "at the priority it was started with (landwatch.reviewer.niceness is 0)"
    try:
        niceness = max(os.getpriority(os.PRIO_PROCESS, 0), niceness)
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    except OSError as error:  # a system that refuses (a container's seccomp): as it was started
        return f"at the priority it was started with (a lower one was refused: {error.strerror})"
    said = f"at niceness {niceness}"
    # Only from the ordinary policy: one the person chose (idle, say) is kept.
    if hasattr(os, "SCHED_BATCH") and os.sched_getscheduler(0) == os.SCHED_OTHER:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            said += ", batch scheduling"
    return said


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
                f"log: {layout.REVIEWER_LOG.path()}"
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

    def say_started(message: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            writer.write(message + "\n")
            writer.close()

    code = 1
    try:
        code = start(say_started)
    finally:
        say_started("landwatch: the reviewer stopped at once; see its log")
        os._exit(code)
