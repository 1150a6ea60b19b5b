"""`landwatch doctor [--fix]`: everything coverage depends on, checked, one line per problem with
the command that mends it; `--fix` does the mending that needs no decision. A last line says
whether a repository's code runs behind the wall; where HEAD declares project hooks, one more
says which tool runs them and where it was found.

Exit status 0 when all is well, 1 when a problem remains (a missing sandbox is not one).
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from landwatch import hook_slots, layout, one_line, registry, work_item
from landwatch.commands import install
from landwatch.daemon.lock import holder
from landwatch.errors import UserError
from landwatch.files import no_room
from landwatch.git import Confirm, Fallback, GitError, git, worktree_of
from landwatch.hooks import find_repository, whose
from landwatch.kinds.base import FAULT_RETRY_CAP
from landwatch.text import duration, safe


@dataclass
class Problem:
    what: str
    fix: str  # the command a person runs
    mend: Callable[[TextIO], None] | None = None  # what --fix runs; None: a decision to make


# landwatch's own directories, each with what needs room there (docs/reviewer.md).
OWN_DIRECTORIES: tuple[tuple[str, Callable[[], Path], str], ...] = (
    (
        "state",
        layout.state_dir,
        "the reviewer's log, its state (`landwatch status`), the note of who runs it, the "
        "compiled secret rules and the linters' and project hooks' working copies",
    ),
    ("cache", layout.cache_dir, "the environments the project's hooks are built into"),
    ("data", layout.data_dir, "the entry point the hooks call, written by install"),
)


def _own_directories() -> list[Problem]:
    """landwatch's own directories whose disk has no room (full, read-only): the reviewer goes on
    without what it keeps there (docs/reviewer.md), so only doctor says why it is missing."""
    problems = []
    for name, where, kept in OWN_DIRECTORIES:
        path = _nearest(where())
        found = no_room(path) if path is not None else None
        if found is not None:
            why, fix = found
            what = f"landwatch's {name} directory {where()}: {why}: {kept} cannot be written"
            problems.append(Problem(safe(what), safe(fix)))
    return problems


def _nearest(path: Path) -> Path | None:
    """`path`, or its nearest parent that exists (where it is to be made): the disk it is on."""
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return candidate
    return None


def _entry_point() -> list[Problem]:
    entry = layout.ENTRY_POINT.path()
    if entry.is_file() and os.access(entry, os.X_OK):
        return []

    def mend(out: TextIO) -> None:
        print(f"landwatch: wrote {install.write_entry_point()}", file=out)

    return [Problem(f"the entry point the hooks call, {entry}, is missing", "./install.sh", mend)]


def _reviewer() -> list[Problem]:
    if holder() is not None:
        return []

    def mend(out: TextIO) -> None:
        from landwatch.commands.service import service

        service("start", out=out)

    return [Problem("the reviewer is not running", "landwatch service start", mend)]


def _repository(common: Path, now: float, told: set[tuple[str, str]]) -> list[Problem]:
    problem = registry.problem_with(common)
    if problem is not None:
        shown = safe(str(common))

        def forget(out: TextIO) -> None:
            registry.unregister(common)
            print(f"landwatch: forgot {shown} ({problem})", file=out)

        return [
            Problem(f"{shown} is registered but {problem}", f"landwatch forget {shown}", forget)
        ]
    # They build this module's Problem.
    from landwatch.commands import doctor_hooks, doctor_sharing, doctor_state

    settings = layout.read_git_settings(common)
    return [
        *doctor_hooks.problems(common),
        *_settings(
            worktree_of(common, confirm=Confirm.READING, fallback=Fallback.NONE).where,
            settings,
            told,
        ),
        *doctor_sharing.problems(common, settings[layout.SHARE_REMOTE]),
        *_work_directories(common),
        *_waiting(common, now, settings[layout.STALE_AFTER]),
        *doctor_state.repository(common),
    ]


def _work_directories(common: Path) -> list[Problem]:
    """A worktree's work directory that cannot be used: the hooks record into it, and the
    reviewer claims nothing from it."""
    problems = []
    for git_dir in registry.worktree_git_dirs(common):
        found = work_item.unusable(git_dir)
        if found is None:
            continue
        path, why = found
        what = (
            f"{safe(str(path))} {why}: what lands in {safe(str(git_dir))} is recorded but "
            "never reviewed"
        )
        work = shlex.quote(str(layout.work_dir(git_dir)))
        if why.startswith("belongs to"):
            problems.append(Problem(what, safe(f"sudo chown -R {os.getuid()} {work}")))
            continue
        if why != "is not a directory":
            problems.append(Problem(what, safe(f"chmod -R u+rwX {work}")))
            continue
        aside = path.with_name(f"{path.name}.not-a-directory.{work_item.micros(time.time())}")

        def set_aside(out: TextIO, path: Path = path, aside: Path = aside) -> None:
            os.rename(path, aside)  # kept, not removed: whatever it holds may matter to you
            print(f"landwatch: moved {safe(str(path))} aside to {safe(str(aside))}", file=out)

        fix = f"mv {shlex.quote(str(path))} {shlex.quote(str(aside))}"
        problems.append(Problem(what, safe(fix), set_aside))
    return problems


def _settings(
    where: Path, settings: layout.GitSettings, told: set[tuple[str, str]]
) -> list[Problem]:
    """A landwatch.* setting landwatch cannot use (the default applies instead): said once for
    the file that sets it (one in ~/.gitconfig is every repository's), with the command that
    unsets it there."""
    problems = []
    for name, said in zip(settings.unusable, settings.problems, strict=True):
        origin = layout.set_in(where, name)
        if (origin, name) in told:
            continue
        told.add((origin, name))
        if origin in _global_configs():
            fix = f"git config --global --unset-all {name}"
        else:
            fix = f"git config --file {shlex.quote(origin)} --unset-all {name}"
        problems.append(Problem(f"{safe(origin)}: {safe(said)}", safe(fix)))
    return problems


def _global_configs() -> list[str]:
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [str(home / ".gitconfig"), str(xdg / "git" / "config")]


def _waiting(common: Path, now: float, bound: float) -> list[Problem]:
    """Items waiting longer than landwatch.staleAfter, or a queue that cannot be read."""
    problems = []
    for git_dir in registry.worktree_git_dirs(common):
        try:
            waiting, age = work_item.pending_summary(git_dir, now=now)
        except work_item.QueueError as error:
            problems.append(Problem(str(error), "landwatch status"))
            continue
        if waiting and age > bound:
            problems.append(
                Problem(
                    f"{waiting} item(s) wait in {safe(str(git_dir))}, the oldest for "
                    f"{duration(age)}",
                    "landwatch status (and the reviewer's log)",
                )
            )
        problems += _no_room(git_dir, waiting) + _given_up(git_dir)
    return problems


def _no_room(git_dir: Path, waiting: int) -> list[Problem]:
    """Items that wait because what a review writes (the queue's moves, the report) cannot be
    written: a full or read-only disk is a passing fault, no try counted, tried again alone."""
    places = (layout.work_dir(git_dir), layout.repository_dir(git_dir))
    for path, (why, fix) in ((p, found) for p in places if waiting and (found := no_room(p))):
        what = f"{waiting} item(s) in {safe(str(git_dir))} wait for disk space: {path}: {why}"
        alone = f"they go on alone within {duration(FAULT_RETRY_CAP)}"
        return [Problem(safe(what), f"{safe(fix)}; {alone}")]
    return []


def _given_up(git_dir: Path) -> list[Problem]:
    """Items given up in a worktree: named (kind and commit), with what starts them again."""
    names = work_item.entries(git_dir, work_item.FAILED)
    ids = sorted({work_item.id_of_entry(name) for name in names})
    if not ids:
        return []
    shown = [one_line.item_named(each, digits=12) for each in ids[:3]]
    more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
    return [
        Problem(
            f"{len(ids)} item(s) given up in {safe(str(git_dir))}: {', '.join(shown)}{more} "
            "(why: landwatch status, and the reviewer's log)",
            "once the cause is mended, landwatch retry --all in that repository",
        )
    ]


def _here(cwd: Path) -> list[Problem]:
    """The repository the doctor runs in: is what its hooks record drained?"""
    try:
        common = Path(git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=cwd))
    except GitError:
        return []
    if not layout.repository_dir(common).is_dir() or common.resolve() in registry.registered():
        return []
    waiting = 0
    for git_dir in registry.worktree_git_dirs(common):
        try:
            waiting += work_item.pending_summary(git_dir)[0]
        except work_item.QueueError:
            continue
    ours = whose(find_repository(cwd).hooks_dir / "post-commit") == "landwatch"
    ours = ours and hook_slots.recorded_hooks_dir(common) is not None  # shared: not uninstalled
    if not waiting and not ours:
        return []

    def register(out: TextIO) -> None:
        install.install(cwd, out=out)

    what = f"{safe(str(common))} is not registered (moved or copied?)"
    if waiting:
        what += f": {waiting} item(s) its hooks recorded wait undrained"
    return [Problem(what, "landwatch install", register if ours else None)]


def _sandbox(cwd: Path) -> str:
    """Whether a repository's code runs behind the wall here, and if not, why and what then
    runs: told, not a problem (without it, nothing a repository wrote runs)."""
    from landwatch.wall.door import choose

    enabled = layout.sandbox_asked(layout.read_git_settings(cwd))
    return choose(enabled, os.environ.get("PATH"))[1]


def _project_hooks(cwd: Path) -> list[str]:
    """Which tool runs the project's hooks here and where it is: told, never a problem."""
    from landwatch.kinds.project_hooks import tools_here

    try:
        found = find_repository(cwd)
    except UserError:
        return []
    return tools_here(found.git_dir)


def problems(cwd: Path, now: float | None = None) -> list[Problem]:
    from landwatch.commands import doctor_state  # it builds this module's Problem

    moment = time.time() if now is None else now
    found = _entry_point() + _own_directories() + _reviewer() + doctor_state.person()
    told: set[tuple[str, str]] = set()
    for common in registry.registered():
        found += _repository(common, moment, told)
    # Where doctor runs, too: a setting of ~/.gitconfig with no repository registered yet.
    here = layout.read_git_settings(cwd)
    return found + _here(cwd) + _settings(cwd, here, told)


def doctor(cwd: Path, *, fix: bool, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # the stdout of the call, not of the import
    found = problems(cwd)
    if fix:
        # One mend may mend several problems (install: the landing hooks and the gate): once.
        for mend in dict.fromkeys(problem.mend for problem in found if problem.mend):
            try:
                mend(out)
            except (UserError, OSError) as error:
                print(f"landwatch: could not mend it: {error}", file=out)
        found = problems(cwd)
    for problem in found:
        # Made printable here, once for all (safe shows what it made printable as it is): a fix
        # names a repository's path, which may hold a terminal's escapes.
        print(f"landwatch: {safe(problem.what)}; fix: {safe(problem.fix)}", file=out)
    if not found:
        running, count = holder(), len(registry.registered())
        print(
            f"landwatch doctor: all well: {count} repositor{'y' if count == 1 else 'ies'} "
            f"covered, the reviewer running ({running.describe() if running else '?'})",
            file=out,
        )
    print(f"landwatch doctor: {_sandbox(cwd)}", file=out)
    settings = layout.read_git_settings(cwd)
    for line in layout.turned_on(cwd, settings):
        print(f"landwatch doctor: {safe(line)}", file=out)
    for line in _project_hooks(cwd):
        print(f"landwatch doctor: {safe(line)}", file=out)
    return 1 if found else 0
