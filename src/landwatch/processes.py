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
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr

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


@dataclass(frozen=True)
class CommandResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

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
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[:1] == [b"Z"]
    except OSError:
        return False


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
        text=True,
        errors="replace",
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            stdout, stderr = process.communicate(
                input, timeout=min(poll, max(0.0, deadline - time.monotonic()))
            )
            return CommandResult(process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            input = None  # given once: communicate goes on writing what is left of it
            if time.monotonic() >= deadline:
                stdout, stderr = _stop(process)
                return CommandResult(process.returncode, stdout, stderr, timed_out=True)
            try:
                if alive is not None:
                    alive()
            except BaseException:
                _stop(process)
                raise


@dataclass(frozen=True)
class ProgramResult:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False


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
    own, dying with this process, and killed with all it started after `timeout` (a linter);
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
        preexec_fn=child_dies_with_us(),
    )
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        stdout, stderr = _stop(process)
        return ProgramResult(process.returncode, stdout, stderr, timed_out=True)
    return ProgramResult(process.returncode, stdout, stderr)


def _stop(process: subprocess.Popen[AnyStr]) -> tuple[AnyStr, AnyStr]:
    """Kill a command and all it started (its session: ssh under git push, a linter's workers
    keep the pipes open, so killing the command alone waited for them), and read what it said."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.kill()
    return process.communicate()
