"""The one door: every program landwatch starts with a repository's files or configuration in
reach goes through `walled`, behind bubblewrap (wall.sandbox), or as it is only where the person
said `landwatch.sandbox false`. Around it, two ways to start what is not a repository's: `outside`,
a tool of the person's or the system's asked a question (its version, a remote's refs) in an
empty directory of its own, and `preparing`, git making the checkout the wall runs on, before
anything of the repository runs, reading no configuration but landwatch's.

tests/test_architecture.py fails when anything else in landwatch starts a program this way.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from landwatch.files import remove_tree
from landwatch.processes import CommandResult, Over, ProgramResult, run_command, run_program
from landwatch.programs import which
from landwatch.wall.installations import installations
from landwatch.wall.sandbox import Reach, Sandbox, blank_names
from landwatch.wall.seccomp import no_unix_sockets

# What a program started for a repository may see of the person's environment: enough to find
# itself and run (no GIT_*, no PYTHONPATH).
_KEPT_ENV = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "USER",
    "LOGNAME",
    "SYSTEMROOT",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
)
# A machine whose bwrap cannot start (user namespaces refused) answers at once; this is for one
# that hangs, so that the caller goes on knowing there is no wall rather than waits.
_PROBE_TIMEOUT = 10.0
# What `landwatch.sandbox false` means, told wherever the wall is missing.
HOW_WITHOUT = (
    "install bubblewrap (apt install bubblewrap), or say `git config --global landwatch.sandbox "
    "false` to run what you trusted as you: with your files, your network and your sockets"
)


def kept_environment() -> dict[str, str]:
    """What every program started for a repository gets of the person's environment."""
    return {key: os.environ[key] for key in _KEPT_ENV if key in os.environ}


def own_home(wall: Wall, place: Path) -> dict[str, str]:
    """Behind the wall the person's home is not there: a home and caches of the run's own in
    `place` (made here), for a program's environment; without the wall, nothing changed."""
    if wall.sandbox is None:
        return {}
    made = {}
    for variable, name in (
        ("HOME", "home"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_CONFIG_HOME", "config"),
    ):
        (place / name).mkdir(mode=0o700, exist_ok=True)
        made[variable] = str(place / name)
    return made


class Wall(NamedTuple):
    """Where a repository's code runs: behind `sandbox`, or (None) as the person is, because
    they said `landwatch.sandbox false`; `said` is the line that says which."""

    sandbox: Sandbox | None
    said: str


def choose(enabled: bool, path: str | None) -> tuple[Wall | None, str]:
    """The wall a repository's code runs behind, with this setting of `landwatch.sandbox` and
    this PATH; None when there is none and the person did not say to run without it: then
    nothing of a repository runs, and the line says why and what to do."""
    if not enabled:
        said = "a repository's code runs without the wall: git config landwatch.sandbox is false"
        return Wall(None, said), said
    found, said = find(path)
    if found is None:
        said = f"{said}; nothing a repository wrote runs: {HOW_WITHOUT}"
        return None, said
    return Wall(found, said), said


def walled(
    wall: Wall,
    argv: list[str],
    reach: Reach,
    *,
    env: dict[str, str],
    input: bytes,
    timeout: float,
    programs: Sequence[str] = (),
    said: list[str] | None = None,
) -> ProgramResult:
    """`argv` run behind `wall` with `reach`, `input` on its stdin, stopped with all it started
    past `timeout` or once it took half the free space of a disk it writes to (disk_watch); the
    installations of `programs` (its own first) kept in sight, read-only, but for those in
    another person's home: a line for each added to `said`, once.
    OSError when it cannot start (FileNotFoundError: no such program)."""
    if wall.sandbox is None:
        watch = disk_watch(reach.writable)
        ran = run_program(argv, input=input, timeout=timeout, cwd=reach.cwd, env=env, watch=watch)
        return _ended_within(ran, watch)
    seen = installations([argv[0], *programs], env.get("PATH"), said)
    reach = reach._replace(readable=(*seen, *reach.readable))
    with _filter() as descriptor, _blanks(reach) as blanks:
        watch = disk_watch((*reach.writable, blanks))
        wrapped = wall.sandbox.wrap(argv, reach, blanks, seccomp_fd=descriptor)
        fds = () if descriptor is None else (descriptor,)
        ran = run_program(
            wrapped, input=input, timeout=timeout, cwd=reach.cwd, env=env, pass_fds=fds, watch=watch
        )
        return _ended_within(ran, watch)  # before the blanks are removed: they count


def disk_watch(places: Sequence[Path]) -> Callable[[], None] | None:
    """A run's watch (run_program's): Over once a disk that one of `places` is on has less than
    half the space, or the files (inodes), free it had now. What a run writes is removed after
    it, but while it runs a full disk fails the person's editor and builds."""
    floors: dict[int, tuple[Path, tuple[int, int]]] = {}
    for place in places:
        with contextlib.suppress(OSError):  # gone: nothing is written there
            floors.setdefault(os.stat(place).st_dev, (place, free_on(place)))
    if not floors:
        return None

    def watch() -> None:
        for place, (space, files) in floors.values():
            with contextlib.suppress(OSError):
                now_space, now_files = free_on(place)
                if now_space < space // 2:
                    raise Over(f"took half the {space >> 20:,} MB free on its disk")
                if now_files < files // 2:  # a disk that counts none (btrfs) says 0
                    raise Over(f"took half the {files:,} files free on its disk")

    return watch


def _ended_within(ran: ProgramResult, watch: Callable[[], None] | None) -> ProgramResult:
    """`ran`, told as stopped past its disk too where it passed the bound and ended before the
    watch was asked (a build writing fast and exiting): what it wrote is not kept as a run's
    that went well."""
    if watch is not None and not ran.over and not ran.timed_out:
        try:
            watch()
        except Over as over:
            return ran._replace(over=str(over))
    return ran


def free_on(place: Path) -> tuple[int, int]:
    """The bytes, and the files, a person's program may still make on the disk `place` is on."""
    said = os.statvfs(place)
    return said.f_bavail * said.f_frsize, said.f_favail


@contextlib.contextmanager
def _filter() -> Iterator[int | None]:
    """An open file of the seccomp filter for bwrap to read (None on a machine it knows not)."""
    program = no_unix_sockets()
    if program is None:
        yield None
        return
    read, write = os.pipe()  # a few dozen bytes: the pipe holds them all
    try:
        os.write(write, program)
        os.close(write)
        write = -1
        yield read
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


@contextlib.contextmanager
def _blanks(reach: Reach) -> Iterator[Path]:
    """A directory of the run's own in its scratch directory (on disk, watched as its other
    writable places), holding the empty directories it is shown (blank_names); removed after."""
    made = Path(tempfile.mkdtemp(prefix="shown-empty-", dir=reach.scratch))
    try:
        for name in blank_names(reach):
            (made / name).mkdir(mode=0o700)
        yield made
    finally:
        remove_tree(made)


@contextlib.contextmanager
def _empty() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="landwatch-outside-") as empty:
        yield Path(empty)


def outside(argv: list[str], *, timeout: float) -> CommandResult:
    """A program of the person's or the system's (never a repository's) asked a question, in an
    empty directory of its own with the kept environment: nothing of a repository in reach
    (`python -m x` there imports no repository's `x.py`)."""
    with _empty() as empty:
        return run_command(argv, timeout=timeout, cwd=empty, env=kept_environment())


def preparing(
    args: list[str], cwd: Path, *, timeout: float, input: str | None = None
) -> CommandResult:
    """git making what the wall runs on (a checkout of a landed commit), before anything of the
    repository ran: no configuration but the checkout's own (none of the system's or the
    person's, no hooks, no fsmonitor), no prompt, LFS files left as pointers; `input` on its
    stdin."""
    env = kept_environment()
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_TERMINAL_PROMPT="0",
    )
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=", *args]
    return run_command(command, timeout=timeout, cwd=cwd, env=env, input=input)


_found: dict[str, tuple[Sandbox | None, str]] = {}


def find(path: str | None) -> tuple[Sandbox | None, str]:
    """bubblewrap as found on this PATH (None: none that runs here), and a line saying which,
    or why none. Whether it runs is asked once per program, the first time."""
    if not sys.platform.startswith("linux"):
        return None, "there is no wall here: bubblewrap is Linux's"
    program = which("bwrap", path)
    if program is None:
        return None, "there is no wall here: bubblewrap (bwrap) is not installed"
    if program not in _found:
        _found[program] = _probe(program)
    return _found[program]


def _probe(program: str) -> tuple[Sandbox | None, str]:
    """Whether `program` runs here as every walled run runs it: with the arguments, the filter
    and the places shown empty those runs get, on `true`."""
    try:
        version = outside([program, "--version"], timeout=_PROBE_TIMEOUT)
        sandbox = Sandbox(program, version.stdout.strip() or "bubblewrap")
        reach = Reach(Path("/"))
        with _filter() as descriptor, _blanks(reach) as blanks:
            tried = run_command(
                sandbox.wrap(["true"], reach, blanks, seccomp_fd=descriptor),
                timeout=_PROBE_TIMEOUT,
                cwd=Path("/"),
                env=kept_environment(),
                pass_fds=() if descriptor is None else (descriptor,),
            )
    except OSError as error:
        return None, f"there is no wall here: {program} cannot be run ({error})"
    if not tried.ok:
        said = (tried.stderr.strip().splitlines() or ["it timed out"])[-1]
        return None, f"there is no wall here: {program} cannot run here ({said})"
    return sandbox, (
        f"a repository's code runs behind the wall, {sandbox.version} ({program}): the system "
        "read-only, no home, no network, no socket, only its own files writable"
    )
