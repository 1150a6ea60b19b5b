"""`landwatch prompt`: the one line's text for a shell prompt, or nothing, where the hooks cannot
print it (husky regenerating `.husky/_`, a hook another tool moved aside). It marks nothing read.

A shell runs it at every prompt, so it starts no process (the git dir is found as git finds
it, by reading files) and imports only landwatch.one_line: the unread markers say what to print,
and the lines of items given up and of linters or hooks held back are one_line's words too.
Only for a stale queue (or a push held back, or a marker an older landwatch left empty) does
it ask `landwatch notice` what to say.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time

from landwatch import one_line, user_dirs
from landwatch.files import held_lock, is_directory, read_file, read_pointer
from landwatch.styled import paint
from landwatch.text import duration, fit, repository_name, terminal_width

# The names and the default the hook spells too (githooks/hook.sh), each landwatch.layout's or
# work_item's: tests/commands/test_prompt.py keeps them equal.
WORK_DIRECTORY = "landwatch"
UNREAD = "unread"
REPORTS = "reports"  # <commit>.json
FAILED = "failed"
TOLD = "told"
UNTRUSTED = "untrusted"
# What more_urgent finds, the most urgent first (commands.notice.Urgency's order).
STALE, GIVEN_UP = "stale", "given up"
WAITING = ("pending", "ready")
SETTINGS_CACHE = "settings"
# The person's own, as landwatch.layout names them, in their directories (landwatch.user_dirs).
REGISTRY = "repositories"  # in the configuration directory: the repositories drained
REVIEWER_LOCK = "run/reviewer.lock"  # in the state directory: held while the reviewer runs
RUNTIME_LOCK = "landwatch/reviewer.lock"  # in the runtime directory: held there too (daemon.lock)
STALE_AFTER = "landwatch.staleafter"
DEFAULT_STALE_AFTER = 600

Parts = tuple[tuple[str, str], ...]
Pieces = tuple[tuple[str, str, str], ...]
_join = os.path.join  # paths are strings here: pathlib costs a prompt milliseconds to import
_base = os.path.basename


def prompt(cwd: str, *, color: bool = False, width: int | None = None) -> int:
    """Print the one line's text (plain, or coloured with `color`) in `width` columns, or
    nothing; never fail. Without `width`: one column less than the terminal's (COLUMNS, else
    the terminal on stderr, which a prompt's `$(...)` leaves alone; else 80), as the line has a
    line of its own above the prompt, and a line that reaches the last column makes some
    shells' line editors wrap the prompt or redraw it one line off. A width of 0 holds nothing."""
    if width == 0:
        return 0
    try:
        pieces = what_to_say(cwd)
        if pieces:
            parts = fit(pieces, width if width is not None else terminal_width(2) - 1)
    except Exception:  # a prompt that printed a traceback would be worse than none
        return 0
    if pieces:
        with contextlib.suppress(OSError):
            sys.stdout.write(paint(parts, color=color) + "\n")
    return 0


def what_to_say(cwd: str) -> Pieces | None:
    git_dir = find_git_dir(cwd)
    if git_dir is None:
        return None
    common = common_dir(git_dir)
    repository = _join(common, WORK_DIRECTORY)
    if not is_directory(repository):
        return None  # landwatch is not installed here
    told = one_line.read(_join(repository, UNREAD), trusted=common)
    work = _join(git_dir, WORK_DIRECTORY)
    cause = more_urgent(work, repository, common, time.time())
    if cause is None and not told:
        return None
    # What is kept in a repository install was never run in (an archive's, planted) is not
    # landwatch's to tell, but for a queue nobody drains, said in landwatch's own words.
    ours = registered(common, git_dir)
    said = None
    if cause == STALE:
        said = stale(work, git_dir, time.time(), drained=ours)
    elif not ours:
        return None
    elif cause == GIVEN_UP:
        said = given_up(work, git_dir)
    elif cause == UNTRUSTED:
        said = untrusted(repository, common, git_dir)
    if said is not None or not ours:
        return said
    if cause is not None or any(s is None for _, s in told):
        # Rare, and dearer: what the hooks' line would say, with all it imports.
        from pathlib import Path

        from landwatch.commands import notice

        announcement = notice.most_urgent(Path(git_dir))
        return announcement.parts if announcement is not None else None
    # A marker whose review is gone says nothing (the hooks' line drops it).
    reports = _join(repository, REPORTS)
    kept = [s for c, s in told if s is not None and os.path.lexists(_join(reports, f"{c}.json"))]
    return one_line.words(kept) if kept else None


def find_git_dir(cwd: str) -> str | None:
    """The git dir of the worktree `cwd` is in, found as git finds it ($GIT_DIR, else the
    nearest `.git` directory or `gitdir:` file above) without starting git."""
    named = os.environ.get("GIT_DIR")
    if named:
        return _join(cwd, named)
    directory = os.path.abspath(cwd)
    while True:
        dot_git = _join(directory, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):
            key, _, path = (read_pointer(dot_git) or "").partition(":")
            return _join(directory, path.strip()) if key == "gitdir" and path.strip() else None
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def common_dir(git_dir: str) -> str:
    """The repository's common git dir, from any worktree's, as landwatch.layout's (in strings:
    no pathlib here); a FIFO or a link at `commondir` is no pointer, never waited on."""
    relative = read_pointer(_join(git_dir, "commondir"))
    return os.path.realpath(_join(git_dir, relative)) if relative else git_dir


def more_urgent(work: str, repository: str, common: str, now: float) -> str | None:
    """What the hook asks before it starts `landwatch notice`, but unread findings, as the line
    tells them, the most urgent first: an item waiting longer than landwatch.staleAfter (as the
    hooks' settings cache holds it), items given up and not told (told's mtime is failed/'s
    once told), linters or hooks held back; None when none is the case."""
    oldest = int((now - _stale_after(repository, common)) * 1_000_000)
    for where in WAITING:
        for name in _listed(_join(work, where)):
            stamp = name.rpartition(".")[2]
            # 19 digits is year 2286: none is old (as the hook reads them).
            if stamp.isdigit() and len(stamp) < 19 and int(stamp) < oldest:
                return STALE
    failed = _mtime(_join(work, FAILED))
    if failed is not None and failed != _mtime(_join(work, TOLD)) and _listed(_join(work, FAILED)):
        return GIVEN_UP
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.lstat(_join(repository, UNTRUSTED)).st_mode):
            return UNTRUSTED
    return None


def _reviewer_runs() -> bool:
    """Whether a reviewer holds its lock, in the runtime directory (all a read-only state
    directory leaves it) or the state directory, as daemon.lock.holder asks."""
    runtime = user_dirs.runtime_directory()
    places = [_join(runtime, RUNTIME_LOCK)] if runtime else []
    places.append(_join(user_dirs.directory("<state>"), REVIEWER_LOCK))
    return any(held_lock(place) is not None for place in places)


def stale(work: str, git_dir: str, now: float, *, drained: bool) -> Pieces | None:
    """The line of landed commits nobody reviews, as `landwatch notice` says it; None where
    only the notice can say it: a reviewer drains the repository (`drained`: it is registered),
    so what waits is work failing (a push while offline), which the kinds themselves tell."""
    if drained and _reviewer_runs():
        return None  # a reviewer runs: what waits is work failing, which the kinds tell
    names = {name for where in WAITING for name in _listed(_join(work, where))}
    waiting = [(oid, int(stamp)) for oid, stamp in map(_stamped, names) if stamp]
    if not waiting:
        return None
    # Each landing waits as one item per kind it asked for: count the commits, not the items.
    commits = {oid for oid, _ in waiting if oid}
    stamps = [stamp for _, stamp in waiting]
    age = now - min(stamps) / 1_000_000
    return one_line.stale_words(
        len(commits) or len(stamps), repository_name(git_dir), duration(age), drained=drained
    )


def registered(common: str, git_dir: str) -> bool:
    """Whether the person's registry lists the repository (install put it there), and `git_dir`
    is its own or one of its worktrees': what is kept there is landwatch's to tell."""
    try:
        listed = read_file(_join(user_dirs.directory("<config>"), REGISTRY), trusted=None).decode(
            "utf-8", "surrogateescape"
        )
    except FileNotFoundError:
        return False
    real = os.path.realpath(common)
    at = os.path.realpath(git_dir)
    # As registry.registered reads it: lines end at "\n" alone, which no registered path holds.
    return real in listed.split("\n") and at in (real, _join(real, "worktrees", _base(at)))


def _stamped(name: str) -> tuple[str, str]:
    """(the commit, the stamp) of a waiting item's name `kind-oid.stamp`; no stamp when it is
    no such name (as the hook reads them: 19 digits is year 2286)."""
    item, _, stamp = name.rpartition(".")
    usable = stamp.isdigit() and len(stamp) < 19 and "-" in item
    return item.partition("-")[2], stamp if usable else ""


def given_up(work: str, git_dir: str) -> Pieces | None:
    """The line of items given up and not told (told_names), as `landwatch notice` says it;
    None where only the notice can say it (a push held back, whose reason it reads)."""
    failed = _listed(_join(work, FAILED))
    told = told_names(work, git_dir, failed)
    if told is None:
        return None
    fresh = sorted(set(failed) - told)
    if not fresh:
        return None
    first = fresh[0].partition(".")[0]
    if first.startswith("push-"):
        return None
    return one_line.given_up_words(
        one_line.item_named(first), len(fresh) - 1, repository_name(git_dir)
    )


def told_names(work: str, git_dir: str, failed: list[str]) -> set[str] | None:
    """The names in failed/ (`failed`) the person was told of: those the told file keeps; with
    an empty one (written before names were kept), those stamped before its mtime. None when
    there is no told file to read."""
    path = _join(work, TOLD)
    try:
        told = set(read_file(path, trusted=git_dir, limit=1 << 20).decode().split())
        at = os.lstat(path).st_mtime
    except (OSError, UnicodeDecodeError):
        return None
    if told:
        return told
    stamps = ((name, name.rpartition(".")[2]) for name in failed)
    return {name for name, stamp in stamps if not stamp.isdigit() or int(stamp) / 1e6 <= at}


def untrusted(repository: str, common: str, git_dir: str) -> Pieces | None:
    """The line of linters or hooks held back for want of trust, as `landwatch notice` says it."""
    tokens = one_line.held_back_tokens(_join(repository, UNTRUSTED), trusted=common)
    subjects = one_line.held_back_subjects(tokens)
    return one_line.untrusted_words(subjects, repository_name(git_dir)) if subjects else None


def _stale_after(repository: str, common: str) -> int:
    """landwatch.staleAfter as the hooks' settings cache holds it; the default without one, or
    for a value the hook would not use either."""
    try:
        cached = read_file(_join(repository, SETTINGS_CACHE), trusted=common, limit=1 << 16)
    except OSError:
        return DEFAULT_STALE_AFTER
    for line in cached.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key == STALE_AFTER:
            usable = value.isdigit() and len(value) < 10 and (value == "0" or value[0] != "0")
            return int(value) if usable else DEFAULT_STALE_AFTER
    return DEFAULT_STALE_AFTER


def _mtime(path: str) -> int | None:
    try:
        return os.lstat(path).st_mtime_ns
    except OSError:
        return None


def _listed(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []
