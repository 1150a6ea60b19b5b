"""Linters under bubblewrap where the machine allows it: Linux, `bwrap` on the linters' PATH, and
able to run there (user namespaces allowed). No network, the system read-only, /tmp and /run
(the session's sockets) hidden, one directory writable, in a session of their own, dying with us.

Elsewhere linters run without it, and `landwatch doctor` says so (`status`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from landwatch.processes import run_command

# A machine whose bwrap cannot start (user namespaces refused) answers at once; this is for one
# that hangs, so that the review goes on without the sandbox rather than waits.
_PROBE_TIMEOUT = 10.0
# Directories every user writes to, and the session's runtime directory.
_HIDDEN = ("/tmp", "/var/tmp", "/run")


@dataclass(frozen=True)
class Sandbox:
    program: str  # bwrap's path
    version: str  # as `bwrap --version` says it

    def wrap(
        self,
        command: list[str],
        *,
        writable: Path,
        cwd: Path,
        shared: tuple[Path, ...] = (),
        visible: tuple[Path, ...] = (),
        network: bool = False,
    ) -> list[str]:
        """`command` run in the sandbox, in `cwd`, with `writable` its only writable place; a
        hook manager's too: `shared` writable as well (its cache of environments), `visible`
        read-only even in a hidden directory (the repository's objects), the network if asked
        (to build those environments)."""
        seen = _installation(command[0]) if command else []
        seen += [arg for path in visible for arg in ("--ro-bind", str(path), str(path))]
        seen += [arg for path in shared for arg in ("--bind", str(path), str(path))]
        arguments = _arguments(self.program, writable, cwd, seen)
        if network:
            arguments.append("--share-net")
        return [*arguments, "--", *command]


def _installation(program: str) -> list[str]:
    """bwrap's arguments keeping a linter's own installation in sight, read-only, where it lies
    in a hidden directory: a virtual environment under /tmp (`/tmp/x/.venv/bin/ruff`), or the one
    a link on PATH leads to (a tool's directory of links into a CI checkout's environment)."""
    found = program if "/" in program else shutil.which(program)
    if found is None:
        return []
    given = Path(found).absolute()
    prefixes = dict.fromkeys((given.parent.parent, given.resolve().parent.parent))
    return [
        arg
        for prefix in prefixes
        if any(prefix.is_relative_to(hidden) and prefix != Path(hidden) for hidden in _HIDDEN)
        for arg in ("--ro-bind", str(prefix), str(prefix))
    ]


def _arguments(program: str, writable: Path, cwd: Path, seen: list[str] | None = None) -> list[str]:
    return [
        program,
        *("--ro-bind", "/", "/"),
        *("--dev", "/dev", "--proc", "/proc"),
        # Other users' files and the session's sockets (the user's bus, agents, the systemd
        # manager, which could start anything outside) are out of sight: empty, its own.
        *(arg for hidden in _HIDDEN if Path(hidden).is_dir() for arg in ("--tmpfs", hidden)),
        *(seen or []),
        *("--bind", str(writable), str(writable)),
        *("--chdir", str(cwd)),
        "--unshare-all",  # no network; its own users, processes, IPC and host name
        "--die-with-parent",
        "--new-session",  # no terminal to type into (TIOCSTI)
        *("--cap-drop", "ALL"),
    ]


_found: dict[str, tuple[Sandbox | None, str]] = {}


def find(path: str | None) -> tuple[Sandbox | None, str]:
    """The sandbox linters run in with this PATH (None: none), and a line saying which or why
    none. Whether bwrap can run is asked once per program, the first time."""
    if not sys.platform.startswith("linux"):
        return None, "linters run without a sandbox: bubblewrap is Linux's"
    program = shutil.which("bwrap", path=path)
    if program is None:
        return None, (
            "linters run without a sandbox: bubblewrap (bwrap) is not installed; "
            "with it they run with no network and the system read-only"
        )
    if program not in _found:
        _found[program] = _probe(program)
    return _found[program]


def _probe(program: str) -> tuple[Sandbox | None, str]:
    try:
        version = run_command([program, "--version"], timeout=_PROBE_TIMEOUT)
        with tempfile.TemporaryDirectory(prefix="landwatch-probe-") as scratch:
            here = Path(scratch)
            tried = run_command(
                [*_arguments(program, here, here), "--", "true"], timeout=_PROBE_TIMEOUT
            )
    except OSError as error:
        return None, f"linters run without a sandbox: {program} cannot be run ({error})"
    if not tried.ok:
        said = (tried.stderr.strip().splitlines() or ["it timed out"])[-1]
        return None, f"linters run without a sandbox: {program} cannot run here ({said})"
    name = version.stdout.strip() or "bubblewrap"
    return Sandbox(program, name), (
        f"linters run sandboxed by {name} ({program}): no network, the system read-only, "
        "only their own directory writable"
    )


def status(path: str | None, enabled: bool) -> str:
    """What `landwatch doctor` says of the sandbox."""
    if not enabled:
        return "linters run without a sandbox: git config landwatch.sandbox is false"
    return find(path)[1]
