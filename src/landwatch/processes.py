"""The processes landwatch starts: never with a terminal, stopped past their time with all they
started, done when they exit (what they leave running, holding their pipes, is not waited for),
telling the caller they are still alive while they run, and dying with the process that started
them.

Dying with the parent is Linux's prctl PR_SET_PDEATHSIG, which holds however the parent died
(SIGKILL included); elsewhere a worker notices its closed pipe instead.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import AnyStr, NamedTuple, Self

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: a command that starts no process does not pay for it

    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def die_with_parent(parent: int | None = None) -> bool:
    """Have the kernel SIGKILL this process when its parent goes; True when it will.

    With `parent` (the pid that started us), a parent already gone before the request could
    take effect ends this process at once.
    """
    prctl = _prctl()
    return prctl is not None and _request(prctl, parent)


def child_dies_with_us() -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess that makes the child die with this process. libc is
    looked up here, before the fork: the child only makes the one call."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def request() -> None:
        _request(prctl, parent)

    return request


def _request(prctl: Callable[..., int], parent: int | None) -> bool:
    if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # orphaned between the fork and the request: nobody waits for this work
    return True


class CommandResult(NamedTuple):
    """What a command said: stdout its bytes as the system's own strings hold them (a path that is
    not UTF-8 names that path again: os.fsdecode's surrogate escapes), stderr words for a person."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @classmethod
    def said(cls, returncode: int, stdout: bytes, stderr: bytes, timed_out: bool = False) -> Self:
        """The result of what a command wrote, read so: no newline translated either (a path
        holding `\r` is that path, not one holding a newline, as text mode read it)."""
        return cls(
            returncode,
            stdout.decode("utf-8", "surrogateescape"),
            stderr.decode("utf-8", "replace"),
            timed_out,
        )

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def has_ended(pid: int) -> bool:
    """Whether process `pid` runs nothing any more: there is no such process, or it is a zombie
    its parent has not reaped yet (Linux's /proc says so; elsewhere a zombie counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # another user's: it is there
    fields = _status(pid)
    return fields is not None and fields[:1] == [b"Z"]


def _status(pid: int | str) -> list[bytes] | None:
    """What Linux's /proc says of a process after its command's name (state, parent, group,
    session, ...); None where it cannot be read (gone, or not Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()
    except OSError:
        return None


def run_command(
    command: list[str],
    *,
    timeout: float,
    alive: Callable[[], None] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    poll: float = 1.0,
    pass_fds: tuple[int, ...] = (),
    input: str | None = None,
) -> CommandResult:
    """Run a command to its end (stdin `input`, else /dev/null; a session of its own), killed
    after `timeout`; `alive` is called about every `poll` seconds while it runs (a job renewing
    its lease), and whatever it raises kills the command and is raised here. `pass_fds` stay
    open for it (bubblewrap's seccomp filter). It ends when the command exits: what that left
    running holding its pipes (a pre-push hook's `notifier &`) is neither waited for nor killed."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
        stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    given = b"" if input is None else input.encode("utf-8", "surrogateescape")
    stdout, stderr, stopped = _talk(process, given, timeout, None, alive, poll)
    return CommandResult.said(process.returncode, stdout, stderr, timed_out=stopped is not None)


# The most a program behind the wall keeps of each of its streams: one that says more (a hostile
# hook printing at a gigabyte a second) is stopped there with all it started, as past its time;
# read whole, two seconds of it had this process hold 3 GB. A linter's findings are read from
# its first 4 MB.
MOST_OUTPUT = 16 << 20
SAID_TOO_MUCH = f"said more than {MOST_OUTPUT >> 20} MB"
_CHUNK = 1 << 16
_WATCHED_EVERY = 0.25  # seconds between two askings of run_program's `watch`


def most_memory() -> int | None:
    """The most memory a program behind the wall, and each process it starts, may hold in its
    own writable mappings (RLIMIT_DATA): half the machine's (None where it cannot be known)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError):
        return None


class ProgramResult(NamedTuple):
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    over: str = ""  # the bound it was stopped past: SAID_TOO_MUCH (the rest unread), its watch's


class Over(Exception):
    """Raised by a program's watch (run_program's `watch`) once it passed a bound of its own:
    it is stopped with all it started, the words kept as its result's `over`."""


def run_program(
    command: list[str],
    *,
    input: bytes,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    pass_fds: tuple[int, ...] = (),
    watch: Callable[[], None] | None = None,
) -> ProgramResult:
    """Run a program on `input` (its stdin) to its end, its output as bytes: a session of its
    own, dying with this process, each of its processes holding at most most_memory(), killed
    with all it started after `timeout` (a linter), past MOST_OUTPUT on either stream, or once
    `watch` (asked a few times a second) raises Over; `pass_fds` stay open for it.

    OSError (FileNotFoundError: no such program) is raised as Popen raises it."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_bounded_child(),
    )
    stdout, stderr, stopped = _talk(process, input, timeout, MOST_OUTPUT, watch, _WATCHED_EVERY)
    over = SAID_TOO_MUCH if stopped == "said" else "" if stopped in (None, "time") else stopped
    return ProgramResult(process.returncode, stdout, stderr, stopped == "time", over or "")


def _bounded_child() -> Callable[[], None]:
    """A `preexec_fn`: the child dies with this process, and it and all it starts hold at most
    most_memory() each. One that runs away (a manager keeping all its hooks print, a linter on
    a pathological file) is refused more there, not given what the person's own programs need;
    a lower limit the person set is kept. Whatever is not known here is left as it is."""
    import resource  # here, before the fork: only a program behind the wall is bounded so

    dies = child_dies_with_us()
    most = most_memory()
    # The limits already set, soft and hard; Linux says RLIM_INFINITY, no limit, as -1.
    given = [limit for limit in resource.getrlimit(resource.RLIMIT_DATA) if limit >= 0]
    if most is not None:
        most = min([most, *given])

    def start() -> None:
        if dies is not None:
            dies()
        if most is not None:
            with contextlib.suppress(OSError, ValueError):  # a system that refuses: unbounded
                resource.setrlimit(resource.RLIMIT_DATA, (most, most))

    return start


# How often a process whose pipes say nothing is asked whether it has exited.
_EXIT_CHECK = 0.1


def _talk(
    process: subprocess.Popen[bytes],
    given: bytes,
    timeout: float,
    most: int | None,
    alive: Callable[[], None] | None = None,
    poll: float = 1.0,
) -> tuple[bytes, bytes, str | None]:
    """What a process given `given` said on its two streams, and why it was stopped with all it
    started: "time" past `timeout`, "said" past `most` bytes of a stream (None: read whole), the
    words of the Over that `alive` (called every `poll` s) raised; None when it exited. What
    else `alive` raises stops it too, and is raised."""
    pipes = _Pipes(process, given, most)
    stopped: str | None = "raised"  # until the exchange answers
    try:
        stopped = pipes.exchange(time.monotonic() + timeout, alive, poll)
    except Over as over:
        stopped = str(over)
    finally:
        if stopped is not None:
            _kill_session(process)
        process.wait()
        if stopped not in (None, "said", "raised"):
            pipes.drain()  # what it said before it was stopped: which hook was running
        pipes.close()
    out, err = (b"".join(pipes.kept[fd]) for fd in pipes.streams)
    return out, err, stopped


class _Pipes:
    """A process's pipes: `given` written to its stdin as it reads it, its two streams read and
    kept, up to `most` bytes of each (None: all)."""

    def __init__(self, process: subprocess.Popen[bytes], given: bytes, most: int | None) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.process, self.given, self.most = process, memoryview(given), most
        self.selector = selectors.DefaultSelector()
        self.streams = (process.stdout.fileno(), process.stderr.fileno())
        self.kept: dict[int, list[bytes]] = {fd: [] for fd in self.streams}
        self.sizes = dict.fromkeys(self.streams, 0)
        for fd in self.streams:
            self.selector.register(fd, selectors.EVENT_READ)
        self.writing = -1 if process.stdin is None else process.stdin.fileno()
        if given and self.writing >= 0:
            os.set_blocking(self.writing, False)  # what fits in the pipe is written, never more
            self.selector.register(self.writing, selectors.EVENT_WRITE)
        else:
            self._stop_writing()

    def exchange(
        self, deadline: float, alive: Callable[[], None] | None, poll: float
    ) -> str | None:
        """Talk until the process has exited, `alive` called every `poll` seconds while it runs:
        "time" past the deadline, "said" past `most` on a stream, where it must be stopped; else
        None. Once it exited, all it wrote is in its pipes: what is there is read, not waited
        for, as what it started may hold them (`notifier &`, a helper that left the session)."""
        asked = time.monotonic()
        while True:
            now = time.monotonic()
            if self.process.poll() is not None:
                self._stop_writing()  # what is left of its input is nobody's to read
                return "said" if self.drain() else None
            if now >= deadline:
                return "time"
            if alive is not None and now >= asked + poll:
                alive()
                asked = now
            wake = min(deadline, asked + poll if alive else deadline, now + _EXIT_CHECK)
            if self._step(max(0.0, wake - now)):
                return "said"

    def _step(self, seconds: float) -> bool:
        """Wait up to `seconds` for a pipe, then write or read what it is ready for; True once a
        stream said more than `most`."""
        if not self.selector.get_map():  # all closed: only its end is waited for
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(seconds)
            return False
        for key, _ in self.selector.select(seconds):
            if key.fd == self.writing:
                self._write()
            elif self._read(key.fd):
                return True
        return False

    def _write(self) -> None:
        try:
            self.given = self.given[os.write(self.writing, self.given[:_CHUNK]) :]
        except BlockingIOError:
            return
        except BrokenPipeError:
            self.given = self.given[:0]  # it stopped reading: what it said still counts
        if not self.given:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if self.writing >= 0 and self.writing in self.selector.get_map():
            self.selector.unregister(self.writing)
        self.writing = -1
        if self.process.stdin is not None:
            self.process.stdin.close()

    def _read(self, fd: int) -> bool:
        """What stream `fd` holds, kept up to `most`; True once it said more than that."""
        data = os.read(fd, _CHUNK)
        if not data:
            self.selector.unregister(fd)
            return False
        room = len(data) if self.most is None else self.most - self.sizes[fd]
        self.kept[fd].append(data[:room])
        self.sizes[fd] += len(data)
        return self.most is not None and self.sizes[fd] > self.most

    def drain(self) -> bool:
        """What the pipes of an ended process still hold, not waiting for more (one it started
        may hold them open): up to `most`, or MOST_OUTPUT more; True once a stream said more
        than `most`."""
        said = False
        for fd in self.streams:
            most = self.sizes[fd] + MOST_OUTPUT if self.most is None else self.most
            os.set_blocking(fd, False)
            with contextlib.suppress(BlockingIOError):  # nothing more there now
                while fd in self.selector.get_map() and self.sizes[fd] <= most and not said:
                    said = self._read(fd)
        return said

    def close(self) -> None:
        self.selector.close()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def _kill_session(process: subprocess.Popen[AnyStr]) -> None:
    """SIGKILL a process started in a session of its own and every process of that session: its
    group, and the groups of their own that a hook manager gives its commands (lefthook's were
    left running when only the group was killed). A process that left the session is beyond
    this; behind the wall, its PID namespace ends with it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for _ in range(3):  # one forked while the others were killed is found the next time
        members = _in_session(process.pid)
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not members:
            break
    process.kill()


def _in_session(session: int) -> list[int]:
    """The processes of `session` still running (Linux's /proc; elsewhere none are found)."""
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            fields = _status(name) if name.isdigit() else None  # None: ended while looked at
            if fields is not None and fields[3:4] == [b"%d" % session] and fields[0] != b"Z":
                found.append(int(name))
    return found
