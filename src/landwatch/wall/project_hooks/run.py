"""One hook manager run on a checkout of the landed commit: its environments built first when they
may be missing (the network allowed: pre-commit's `install-hooks`, prek's `prepare-hooks`), then
its pre-commit stage on the changed files, without the network; under bubblewrap where the
machine has it, within the budget, and stopped past it with every process it started.

File names never reach a command line where they could be read as options: prek and lefthook
read them from a NUL-separated list, and pre-commit is not given a name that starts with `-`
(the caller leaves those out, and says so).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from landwatch.processes import ProgramResult, run_program
from landwatch.review.project_hooks.checkout import Checkout
from landwatch.review.project_hooks.output import Said, lines_of, parse_lefthook, parse_pre_commit
from landwatch.review.project_hooks.tools import Tool
from landwatch.review.sandbox import Sandbox
from landwatch.review.workspace import kept_environment

# Building environments (a virtualenv and its packages, a node or rust toolchain) can take
# minutes the first time; it is done once per configuration, not per landing.
PREPARE_TIMEOUT = 900.0
# Of the person's environment, besides what every command gets (review.workspace): where the
# tools keep their environments, how package managers reach their index, proxies, certificates.
_PASSED = (
    "PRE_COMMIT_HOME",
    "PREK_HOME",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
)
_PASSED_PREFIXES = ("PIP_", "UV_", "VIRTUALENV_", "NPM_CONFIG_", "npm_config_")
# lefthook prints each job's output and the summary, whatever the configuration's `output` says.
_LEFTHOOK_OUTPUT = "execution,execution_out,summary,skips"


@dataclass(frozen=True)
class Room:
    """Where a manager runs: the checkout, the sandbox (None: none), the repository's objects
    (which the checkout reads)."""

    checkout: Checkout
    sandbox: Sandbox | None
    objects: Path

    @property
    def scratch(self) -> Path:
        return self.checkout.root.parent


@dataclass(frozen=True)
class Ran:
    """What a manager's run printed, read, and how it ended."""

    said: Said
    returncode: int
    timed_out: bool
    seconds: float
    text: str  # all it printed (stdout, then stderr), for what went wrong


def tool_home(tool: Tool) -> Path | None:
    """Where the tool keeps the hooks' environments (shared with the person's own runs)."""
    variable = {"pre-commit": "PRE_COMMIT_HOME", "prek": "PREK_HOME"}.get(tool.name)
    if variable is None:
        return None
    if os.environ.get(variable):
        return Path(os.environ[variable])
    return cache_root() / tool.name


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def environment(tool: Tool, tmp: Path) -> dict[str, str]:
    """The environment a manager and its hooks run in: what every command gets, where the tools
    keep their environments and how they reach their index; a TMPDIR of the run's own."""
    passed = {
        key: value
        for key, value in os.environ.items()
        if key in _PASSED or key.startswith(_PASSED_PREFIXES)
    }
    env = {**kept_environment(), **passed, "TMPDIR": str(tmp), "NO_COLOR": "1"}
    if tool.name == "lefthook":
        env["LEFTHOOK_OUTPUT"] = _LEFTHOOK_OUTPUT
    return env


def prepare(tool: Tool, room: Room) -> str | None:
    """The hooks' environments built, with the network; None when done, else what went wrong,
    in a line."""
    asked = {"pre-commit": "install-hooks", "prek": "prepare-hooks"}.get(tool.name)
    if asked is None:
        return None  # lefthook runs the commands as they are
    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    result = _run(tool, [*tool.command, asked], b"", room, PREPARE_TIMEOUT, (cache,))
    if result.timed_out:
        return f"{tool.name} {asked} took longer than {PREPARE_TIMEOUT:.0f} s"
    if result.returncode != 0:
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        said = [line.strip() for line in lines_of(text) if line.strip()]
        return f"{tool.name} {asked}: " + (said[-1][:300] if said else f"exit {result.returncode}")
    return None


def run_hooks(tool: Tool, files: list[str], room: Room, budget: float) -> Ran:
    """The manager's pre-commit stage on `files`, without the network, within `budget`."""
    started = time.monotonic()
    listed = "".join(f"{name}\0" for name in files).encode("utf-8", "surrogateescape")
    stdin = b""
    if tool.name == "pre-commit":
        argv = [*tool.command, "run", "--color=never", "--hook-stage", "pre-commit", "--files"]
        argv += files
    elif tool.name == "prek":
        names = room.scratch / "files"
        names.write_bytes(listed)
        argv = [*tool.command, "run", "--color=never", "--no-progress", "--stage", "pre-commit"]
        argv += ["--files0-from", str(names)]
    else:
        argv = [*tool.command, "run", "pre-commit", "--no-auto-install", "--colors", "off"]
        argv += ["--no-tty", "--no-stage-fixed", "--files-from-stdin"]
        stdin = listed
    result = _run(tool, argv, stdin, room, budget, ())
    stdout = result.stdout.decode("utf-8", "replace")
    stderr = result.stderr.decode("utf-8", "replace")
    said = parse_lefthook(stdout) if tool.name == "lefthook" else parse_pre_commit(stdout)
    said.preamble += [line for line in lines_of(stderr) if line.strip()]
    return Ran(
        said, result.returncode, result.timed_out, time.monotonic() - started, stdout + stderr
    )


def _run(
    tool: Tool,
    argv: list[str],
    stdin: bytes,
    room: Room,
    timeout: float,
    writable: tuple[Path, ...],
) -> ProgramResult:
    """`argv` in the checkout, sandboxed where it can be (the network only with `writable`
    places besides the tool's home: building environments), stopped with all it started past
    `timeout`."""
    tmp = room.scratch / "tmp"
    tmp.mkdir(mode=0o700, exist_ok=True)
    env = environment(tool, tmp)
    if room.sandbox is not None:
        home = tool_home(tool)
        shared = tuple(path for path in (*writable, home) if path is not None)
        for path in shared:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        argv = room.sandbox.wrap(
            argv,
            writable=room.scratch,
            cwd=room.checkout.root,
            shared=shared,
            visible=(room.objects,),
            network=bool(writable),
        )
    try:
        return run_program(argv, input=stdin, timeout=timeout, cwd=room.checkout.root, env=env)
    except OSError as error:
        return ProgramResult(127, b"", f"{argv[0]}: {error}".encode())
