"""One hook manager run on a checkout of the landed commit, behind the wall, in two steps: its
environments built when they may be missing (pre-commit's `install-hooks`, prek's
`prepare-hooks`), with the network and landwatch's own store of environments for this repository
writable and nothing else, the checkout holding the landed commit's own objects and none of the
repository's; then its pre-commit stage on the changed files, without the network, the store
read-only, only the checkout's files and its scratch writable, the checkout's git dir read-only.
Stopped past the budget with every process it started.

The store is never the person's own (`~/.cache/pre-commit`, `~/.cache/prek`): what a repository's
build could write there would run at their next own commit.

File names never reach a command line where they could be read as options: prek and lefthook
read them from a NUL-separated list, and pre-commit is not given a name that starts with `-`
(the caller leaves those out, and says so).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from landwatch.files import remove_tree, write_atomic
from landwatch.lazy_re import lazy_compile
from landwatch.processes import ProgramResult
from landwatch.review.project_hooks.output import (
    Declared,
    Said,
    lines_of,
    parse_lefthook,
    parse_pre_commit,
)
from landwatch.wall.door import Wall, free_on, kept_environment, own_home, walled
from landwatch.wall.project_hooks.checkout import Checkout
from landwatch.wall.project_hooks.tools import Tool
from landwatch.wall.sandbox import Reach

if TYPE_CHECKING:
    from landwatch.review.project_hooks.config import HookSpec

# Building environments (a virtualenv and its packages, a node or rust toolchain) can take
# minutes the first time; it is done once per configuration, not per landing.
PREPARE_TIMEOUT = 900.0
# Of the person's environment, besides what every program gets (wall.door), only to the build
# (the hooks run without the network): how pip, uv and npm reach their index and a proxy, and
# the certificates to trust. Named one by one: no credential (UV_PUBLISH_TOKEN,
# NPM_CONFIG__AUTH, PIP_CLIENT_CERT, UV_INDEX_<NAME>_PASSWORD), as the build runs code the
# repository names with the network.
_BUILD_PASSED = frozenset(
    {
        *("http_proxy", "https_proxy", "no_proxy", "all_proxy"),
        *("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"),
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"),
        *("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "PIP_FIND_LINKS"),
        *("PIP_TRUSTED_HOST", "PIP_CERT", "PIP_PROXY", "PIP_NO_BUILD_ISOLATION"),
        *("PIP_DEFAULT_TIMEOUT", "PIP_TIMEOUT", "PIP_RETRIES", "PIP_DISABLE_PIP_VERSION_CHECK"),
        *("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_FIND_LINKS"),
        *("UV_NO_INDEX", "UV_INSECURE_HOST", "UV_NATIVE_TLS", "UV_OFFLINE", "UV_HTTP_TIMEOUT"),
        *("UV_PYTHON_INSTALL_MIRROR", "UV_NO_BUILD_ISOLATION"),
    }
)
# npm's settings by environment: `npm_config_` in any case, the name's `_` read as `-`.
_NPM_PREFIX = "npm_config_"
_NPM_PASSED = frozenset(
    {"registry", "proxy", "https-proxy", "noproxy", "cafile", "strict-ssl", "offline"}
)
_NPM_SCOPED_REGISTRY = lazy_compile(r"@[a-z0-9._~-]+:registry")
# A value naming a user or a password before its host (`https://user:secret@index/`,
# `https://TOKEN@host`, a proxy's `user:secret@proxy:3128`, which curl and urllib send too: an
# audit), or a query or a fragment (an index's `?token=`), holds a credential: such a value is
# not passed, whatever its name. An `@` in a path is no user (Azure Artifacts' `feed@view`:
# round 1). A token as a part of the path (Cloudsmith's) cannot be told from a name there
# (`PythonPackages2024`: round 2, where taking such parts for tokens dropped those indexes).
# Each URL a value holds starts it, or follows a space, `=`, a comma or a quote (round 3: a quoted
# value, `//user:pass@host`, a list), its scheme, or only `//`, before the user.
_USER_BEFORE_HOST = lazy_compile(
    r"(?:^|[\s=,\"'])(?:[a-z][a-z0-9+.-]*+:)?(?://)?[^/@\s=,\"']*+@", re.IGNORECASE
)
# Where each tool keeps its environments, given as the store of this repository's.
_HOMES = {"pre-commit": "PRE_COMMIT_HOME", "prek": "PREK_HOME"}
# The tools that write in their store at every run, not only when they build (prek its log, its
# lock, what configurations it ran): behind the wall they see an empty store of the run's own
# that shows the real store's directories (the environments) read-only. pre-commit takes a
# store it cannot write as read-only, and writes nothing there.
_WRITING_STORES = ("prek",)
# The directories of a writing store the tool writes in at every run too: each is the run's own
# (empty, writable, dropped after), the directories in it shown read-only as the rest are. prek
# writes under `cache/python` looking for a Python (a pygrep hook's): with `cache` read-only no
# hook ran, and the item was retried for ever as if environments had gone missing (an audit).
_WRITTEN_AT_RUNS = {"prek": ("cache",)}
# lefthook prints each job's output and the summary, whatever the configuration's `output` says.
_LEFTHOOK_OUTPUT = "execution,execution_out,summary,skips"


@dataclass(frozen=True)
class Room:
    """Where a manager runs: the checkout, the wall, the repository's objects (which the
    checkout borrows: the hooks read them, never a build), landwatch's store of environments
    for this repository, the programs the hooks start (their installations kept in sight), the
    hook repositories on this machine the build clones (read-only), and where what the wall
    leaves out of sight is said."""

    checkout: Checkout
    wall: Wall
    objects: Path
    store: Path
    programs: tuple[str, ...] = ()
    sources: tuple[Path, ...] = ()
    said: list[str] = field(default_factory=list)

    @property
    def scratch(self) -> Path:
        return self.checkout.root.parent


class Ran(NamedTuple):
    """What a manager's run printed, read, and how it ended."""

    said: Said
    returncode: int
    timed_out: bool
    seconds: float
    text: str  # all it printed (stdout, then stderr), for what went wrong
    over: str = ""  # the bound it was stopped past (ProgramResult's)


def tool_home(tool: Tool, store: Path) -> Path | None:
    """Where the tool keeps the hooks' environments for this repository (lefthook keeps none)."""
    return store / tool.name if tool.name in _HOMES else None


def passed_to_build(environ: Mapping[str, str]) -> dict[str, str]:
    """Of `environ`, what an environment build is given: how package managers reach their
    index, proxy and certificates, never a credential (a URL with a user in it included)."""
    return {
        key: value
        for key, value in environ.items()
        if _reaches_an_index(key) and not holds_a_credential(value)
    }


def holds_a_credential(value: str) -> bool:
    """Whether a value of how to reach an index or a proxy holds a user, a password or a token."""
    return "?" in value or "#" in value or _USER_BEFORE_HOST.search(value) is not None


def _reaches_an_index(key: str) -> bool:
    if key in _BUILD_PASSED:
        return True
    if key[: len(_NPM_PREFIX)].lower() != _NPM_PREFIX:
        return False
    setting = key[len(_NPM_PREFIX) :].lower().replace("_", "-")
    return setting in _NPM_PASSED or _NPM_SCOPED_REGISTRY.fullmatch(setting) is not None


def environment(tool: Tool, room: Room, *, building: bool) -> dict[str, str]:
    """The environment a manager and its hooks run in: what every program gets, the store;
    building, how package managers reach their index (passed_to_build); behind the wall, a
    home, TMPDIR and caches of the run's own (the person's are not there)."""
    passed = passed_to_build(os.environ) if building else {}
    left = [key for key in os.environ if building and key not in passed and _reaches_an_index(key)]
    said = f"the environment build was not given {', '.join(sorted(left))}: each holds a credential"
    if left and said not in room.said:  # said: the build reaches the default index instead
        room.said.append(said)
    (room.scratch / "tmp").mkdir(mode=0o700, exist_ok=True)
    env = {**kept_environment(), **passed, "NO_COLOR": "1", "TMPDIR": str(room.scratch / "tmp")}
    env.update(own_home(room.wall, room.scratch))
    home = tool_home(tool, room.store)
    if home is not None:
        env[_HOMES[tool.name]] = str(home)
    if tool.name == "lefthook":
        env["LEFTHOOK_OUTPUT"] = _LEFTHOOK_OUTPUT
    return env


class BuildStopped(Exception):
    """A build stopped past a bound of its own (ProgramResult.over: its words, half a disk's free
    space): what the tool keeps for this repository is removed, and it waits for the next landing
    rather than a retry, which would take half of what is left each time."""


# What a build that failed may leave on its disk before it is tried again: past it, what the tool
# keeps for the repository is removed first (an audit: a build failing under half the free space
# kept what it wrote, and at each retry took more, until the disk was full).
MOST_LEFT = 64 << 20


def prepare(tool: Tool, room: Room) -> str | None:
    """The hooks' environments built, with the network, on a checkout holding its commit's
    own objects and borrowing none; None when done, else what went wrong, in a line (tried
    again later). BuildStopped past a bound."""
    asked = {"pre-commit": "install-hooks", "prek": "prepare-hooks"}.get(tool.name)
    if asked is None:
        return None  # lefthook runs the commands as they are
    # A build that clones the checkout (`repo: .`) reads its objects; the repository's own,
    # every branch, stash and commit amended away, are never in its sight.
    room.store.mkdir(mode=0o700, parents=True, exist_ok=True)
    with room.checkout.own_objects():
        free = free_on(room.store)[0]  # after the commit's objects are packed: the build's alone
        result = _run(tool, [*tool.command, asked], b"", room, PREPARE_TIMEOUT, building=True)
        failed = result.returncode != 0 or result.timed_out
        left = free - free_on(room.store)[0] if failed else 0
        home = tool_home(tool, room.store)
        if home is not None and (result.over or left > MOST_LEFT):  # before more is written
            remove_tree(home)
        if result.over:
            raise BuildStopped(
                f"{tool.name} {asked} {result.over}; the environments it keeps for this "
                "repository are removed, and built again at the next landing"
            )
    if result.timed_out:
        return f"{tool.name} {asked} took longer than {PREPARE_TIMEOUT:.0f} s"
    if result.returncode != 0:
        text = (result.stdout + result.stderr).decode("utf-8", "replace")
        said = [line.strip() for line in lines_of(text) if line.strip()]
        return f"{tool.name} {asked}: " + (said[-1][:300] if said else f"exit {result.returncode}")
    return None


# How long a manager may take to say whether it reads the configuration (no network, no build).
VALIDATE_TIMEOUT = 60.0


def refusal(tool: Tool, room: Room, path: str) -> list[str] | None:
    """What the manager says of the configuration at `path` where it refuses it (its own
    `validate-config`, without the network), a line each; None where it reads it, or cannot
    tell. A build that failed on such a configuration is not the network's to mend."""
    if tool.name not in _HOMES:
        return None  # lefthook builds nothing
    argv = [*tool.command, "validate-config", "--", path]
    result = _run(tool, argv, b"", room, VALIDATE_TIMEOUT, building=False)
    if result.returncode == 0 or result.timed_out or result.over:
        return None
    text = (result.stdout + result.stderr).decode("utf-8", "replace")
    said = [line.rstrip() for line in lines_of(text) if line.strip()]
    return said or [f"{tool.name} validate-config exited {result.returncode}"]


def run_hooks(
    tool: Tool, files: list[str], room: Room, budget: float, hooks: Sequence[HookSpec]
) -> Ran:
    """The manager's pre-commit stage on `files`, without the network, within `budget`; what it
    printed read for the `hooks` its configuration declares."""
    started = time.monotonic()
    listed = "".join(f"{name}\0" for name in files).encode("utf-8", "surrogateescape")
    stdin = b""
    # Verbose: the id of every hook it ran under its status line, which tells that line from a
    # hook's own output (review.project_hooks.output).
    if tool.name == "pre-commit":
        argv = [*tool.command, "run", "--color=never", "--verbose", "--hook-stage", "pre-commit"]
        argv += ["--files", *files]
    elif tool.name == "prek":
        # The build just ran behind the wall with the scratch writable: a link it left at this
        # name is replaced, never written through to a file of the person's outside the wall.
        names = write_atomic(room.scratch / "files", listed, trusted=room.scratch, durable=False)
        argv = [*tool.command, "run", "--color=never", "--no-progress", "--stage", "pre-commit"]
        argv += ["--files0-from", str(names), "--verbose"]
    else:
        argv = [*tool.command, "run", "pre-commit", "--no-auto-install", "--colors", "off"]
        argv += ["--no-tty", "--no-stage-fixed", "--files-from-stdin"]
        stdin = listed
    result = _run(tool, argv, stdin, room, budget, building=False)
    stdout = result.stdout.decode("utf-8", "replace")
    stderr = result.stderr.decode("utf-8", "replace")
    if tool.name == "lefthook":
        said = parse_lefthook(stdout, Declared(((h.name,) * 3 for h in hooks), ordered=False))
    else:
        declared = Declared((h.source, h.id, h.name) for h in hooks)
        said = parse_pre_commit(stdout, declared, indented=tool.name == "prek")
    said.preamble += [line for line in lines_of(stderr) if line.strip()]
    seconds = time.monotonic() - started
    return Ran(said, result.returncode, result.timed_out, seconds, stdout + stderr, result.over)


def _run(
    tool: Tool, argv: list[str], stdin: bytes, room: Room, timeout: float, *, building: bool
) -> ProgramResult:
    """`argv` in the checkout behind the wall: building, with the network and the store
    writable, none of the repository's objects; else without the network, the store read-only;
    stopped with all it started past `timeout`."""
    env = environment(tool, room, building=building)
    home = tool_home(tool, room.store)
    if home is not None:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
    stores: tuple[Path, ...] = (home,) if home is not None else ()
    emptied: tuple[Path, ...] = ()
    if home is not None and not building and tool.name in _WRITING_STORES:
        emptied, stores = stores, _directories(home, _WRITTEN_AT_RUNS.get(tool.name, ()))
    reach = Reach(
        room.checkout.root,
        writable=(room.scratch, *(stores if building else ())),
        readable=room.sources if building else (room.objects, *stores),
        protected=(room.checkout.git_dir,),
        network=building,
        emptied=emptied,
        scratch=room.scratch,
    )
    try:
        return walled(
            room.wall,
            argv,
            reach,
            env=env,
            input=stdin,
            timeout=timeout,
            programs=room.programs,
            said=room.said,
        )
    except OSError as error:
        return ProgramResult(127, b"", f"{argv[0]}: {error}".encode())


def _directories(store: Path, opened: tuple[str, ...] = ()) -> tuple[Path, ...]:
    """The store's directories (the environments, the clones, the toolchains), links left out;
    in place of those named `opened`, the directories in them."""
    try:
        entries = sorted(store.iterdir())
    except OSError:
        return ()
    found: list[Path] = []
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            found += _directories(entry) if entry.name in opened else [entry]
    return tuple(found)
