"""The processes landwatch starts: never with a terminal, stopped past their time with all they
started, telling the caller they are still alive while they run, and dying with the process that
started them.

Dying with the parent is Linux's prctl PR_SET_PDEATHSIG, which holds however the parent died
(SIGKILL included); elsewhere a worker notices its closed pipe instead.
"""

from __future__ import annotations

import contextlib
import os
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
    open for it (bubblewrap's seccomp filter)."""
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
    given = None if input is None else input.encode("utf-8", "surrogateescape")
    deadline = time.monotonic() + timeout
    while True:
        try:
            stdout, stderr = process.communicate(
                given, timeout=min(poll, max(0.0, deadline - time.monotonic()))
            )
            return CommandResult.said(process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            given = None  # given once: communicate goes on writing what is left of it
            if time.monotonic() >= deadline:
                stdout, stderr = _stop(process)
                return CommandResult.said(process.returncode, stdout, stderr, timed_out=True)
            try:
                if alive is not None:
                    alive()
            except BaseException:
                _stop(process)
                raise


# The most a program behind the wall keeps of each of its streams: one that says more (a hostile
# hook printing at a gigabyte a second) is stopped there with all it started, as past its time;
# read whole, two seconds of it had this process hold 3 GB. A linter's findings are read from
# its first 4 MB.
MOST_OUTPUT = 16 << 20
SAID_TOO_MUCH = f"said more than {MOST_OUTPUT >> 20} MB and was stopped"
_CHUNK = 1 << 16


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
    said_too_much: bool = False  # past MOST_OUTPUT on a stream: stopped, the rest unread


def run_program(
    command: list[str],
    *,
    input: bytes,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> ProgramResult:
    """Run a program on `input` (its stdin) to its end, its output as bytes: a session of its
    own, dying with this process, each of its processes holding at most most_memory(), killed
    with all it started after `timeout` (a linter) or past MOST_OUTPUT on either stream;
    `pass_fds` stay open for it.

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
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.fileno(), process.stderr.fileno()
    kept: dict[int, list[bytes]] = {}
    stopped = _exchange(process, input, time.monotonic() + timeout, kept)
    if stopped is not None:
        _kill_session(process)
    process.wait()
    if stopped == "time":
        _drain(process, kept)  # what it said before it was stopped: which hook was running
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return ProgramResult(
        process.returncode,
        b"".join(kept.get(out, [])),
        b"".join(kept.get(err, [])),
        timed_out=stopped == "time",
        said_too_much=stopped == "said",
    )


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


def _drain(process: subprocess.Popen[bytes], kept: dict[int, list[bytes]]) -> None:
    """What the pipes still hold of a stopped program's streams, up to MOST_OUTPUT of each, not
    waiting for more (a process it started outside its session may hold them open)."""
    for stream in (process.stdout, process.stderr):
        if stream is None or stream.closed:
            continue
        os.set_blocking(stream.fileno(), False)
        room = MOST_OUTPUT - sum(map(len, kept.get(stream.fileno(), [])))
        while room > 0:
            try:
                data = os.read(stream.fileno(), min(room, _CHUNK))
            except BlockingIOError:
                break
            if not data:
                break
            kept.setdefault(stream.fileno(), []).append(data)
            room -= len(data)


def _exchange(
    process: subprocess.Popen[bytes], input: bytes, deadline: float, kept: dict[int, list[bytes]]
) -> str | None:
    """Give `input` to the process and read both its streams until they close, keeping at most
    MOST_OUTPUT bytes of each in `kept` (by descriptor); "time" past the deadline, "said" past
    MOST_OUTPUT, where it must be stopped, else None."""
    import selectors  # here: only a program behind the wall is talked to so

    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    sizes: dict[int, int] = {}
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            selector.register(stream.fileno(), selectors.EVENT_READ)
            kept[stream.fileno()], sizes[stream.fileno()] = [], 0
        given = memoryview(input)
        writing = process.stdin.fileno()
        if given:
            os.set_blocking(writing, False)  # what fits in the pipe is written, never more
            selector.register(writing, selectors.EVENT_WRITE)
        else:
            process.stdin.close()
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return "time"
            for key, _ in selector.select(left):
                if key.fd == writing:
                    try:
                        given = given[os.write(writing, given[:_CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        given = given[:0]  # it stopped reading: what it said still counts
                    if not given:
                        selector.unregister(writing)
                        process.stdin.close()
                    continue
                data = os.read(key.fd, _CHUNK)
                if not data:
                    selector.unregister(key.fd)
                    continue
                room = MOST_OUTPUT - sizes[key.fd]
                kept[key.fd].append(data[:room])
                sizes[key.fd] += len(data)
                if sizes[key.fd] > MOST_OUTPUT:
                    return "said"
    try:
        process.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return "time"  # its streams closed, the process not ended
    return None


def _stop(process: subprocess.Popen[AnyStr]) -> tuple[AnyStr, AnyStr]:
    """Kill a command and all it started (its session: ssh under git push, a linter's workers
    keep the pipes open, so killing the command alone waited for them), and read what it said."""
    _kill_session(process)
    return process.communicate()


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
