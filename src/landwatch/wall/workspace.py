"""Where a linter runs, and how: a directory of its own for each run, holding the configuration
files the person trusted (review.pinned) and the file it lints, and nothing else the repository
holds; the file named to it as `./path`; Python kept from importing what is in its directory;
a scrubbed environment; behind the wall (wall.door) with that directory its only writable place.

The directory (`<tree>`, its working directory) is made again for every run, so what one run
wrote is never read by the next. A workspace is held (flock) while it is used: one that nobody
holds was left by a review ended mid-run, and the next workspace made beside it removes it.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from landwatch.files import remove_tree
from landwatch.lazy_re import lazy_compile
from landwatch.processes import ProgramResult
from landwatch.review.pinned import taken_as_configuration
from landwatch.wall.door import Wall, kept_environment, own_home, walled
from landwatch.wall.held import held_directory
from landwatch.wall.sandbox import Reach

# What a workspace's name starts with once it is held: made with a dot before it, no sweep sees
# it until then.
_PREFIX = "landwatch-lint-"
# A Python interpreter named as the command: `python3 -m ruff` and the like.
_PYTHON = lazy_compile(r"(python|pypy)[0-9.]*")
# The directories a file given a linter may lie below: deeper, it is left out (a pulled commit's
# file 1,000 directories down made mkdir recurse past Python's limit, and the review fail).
MOST_DEPTH = 256


def scrubbed_environment() -> dict[str, str]:
    """The user's environment as a linter gets it; Python >= 3.11 is told to keep the working
    directory and a script's own off sys.path (PYTHONSAFEPATH), in any process it starts."""
    return {**kept_environment(), "PYTHONSAFEPATH": "1"}


def command_line(command: tuple[str, ...], path: str) -> list[str]:
    """The command as run on the file at `path`: `{path}` as `./path`, which no program reads as
    an option, and quoted for a shell within a longer argument (`sh -c "shellcheck {path}"`),
    where a name such as `x$(cmd).sh` would otherwise be shell code; a Python interpreter with
    -I, which every Python 3 has and which keeps the working directory off sys.path (-P is only
    3.11's; the variables and user site-packages -I also leaves out are mostly not passed)."""
    named = f"./{path}"
    argv = [
        named if part == "{path}" else part.replace("{path}", shlex.quote(named))
        for part in command
    ]
    if _PYTHON.fullmatch(Path(argv[0]).name) and "-I" not in argv[1:2]:
        argv.insert(1, "-I")
    return argv


@dataclass
class Workspace:
    """The linters of one review: their directory, what they are given, their wall, and where
    what the wall leaves out of their sight is said (the review's notes)."""

    root: Path
    given: Mapping[str, bytes]  # the pinned configuration files, by path
    wall: Wall
    said: list[str] = field(default_factory=list)

    def run(
        self, command: tuple[str, ...], path: str, content: bytes, timeout: float
    ) -> ProgramResult:
        """`command` on the file at `path`, `content` on its stdin; OSError when it cannot
        start (FileNotFoundError: no such command)."""
        scratch = Path(tempfile.mkdtemp(prefix="run-", dir=self.root))
        try:
            tree, tmp = scratch / "tree", scratch / "tmp"
            tree.mkdir(mode=0o700)
            tmp.mkdir(mode=0o700)
            for pinned, data in self.given.items():
                _write(tree, pinned, data)
            if path in self.given or not taken_as_configuration(path):
                # A file that tools may read as their configuration, or as code, is written
                # only where it is pinned: otherwise its linter has it on stdin alone.
                _write(tree, path, content)
            argv = command_line(command, path)
            env = {**scrubbed_environment(), "TMPDIR": str(tmp), **own_home(self.wall, scratch)}
            reach = Reach(tree, writable=(scratch,), scratch=scratch)
            return walled(
                self.wall, argv, reach, env=env, input=content, timeout=timeout, said=self.said
            )
        finally:
            remove_tree(scratch)


@contextmanager
def workspace(
    given: Mapping[str, bytes], wall: Wall, parent: Path | None, said: list[str] | None = None
) -> Iterator[Workspace]:
    """A private directory under `parent` (a directory of the person's; the system's temporary
    directory if None), outside every worktree, removed with all the linters left in it; what
    the wall leaves out of sight said in `said`, once."""
    with held_directory(parent, _PREFIX) as root:
        yield Workspace(root, given, wall, [] if said is None else said)


def _write(tree: Path, path: str, data: bytes) -> None:
    """`data` at `path` below `tree`, never outside it (a crafted tree's `..`, `/`), never
    through a link; a path that cannot be written is left out."""
    parts = path.split("/")
    if len(parts) > MOST_DEPTH or not all(_plain_name(part) for part in parts):
        return
    target = tree.joinpath(*parts)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        descriptor = os.open(target, flags, 0o600)
    except OSError:
        return  # a name taken by a directory of another path, or too long for the disk
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)


def _plain_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name
