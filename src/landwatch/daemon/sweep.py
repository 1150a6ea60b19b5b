"""The reflog sweep: landings the hooks did not record (commits written without hooks, hooks
another tool displaced, a worktree removed before its queue drained, the upstream side of a
`pull --rebase`, a branch reset forward or sideways), found in the reflogs git keeps and enqueued
once each (docs/coverage.md).

Each pass reads every reflog from where the last one stopped: its cost follows what is new,
not how long the reflogs are.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from landwatch import layout, registry, work_item
from landwatch.daemon.landings import Repository, landings
from landwatch.daemon.reflog import (
    CHUNK,
    Cursor,
    born,
    continues,
    digest,
    parse,
    resumed,
    time_before,
)
from landwatch.daemon.settings import SWEEP_GRACE
from landwatch.files import list_entries, remove
from landwatch.telling import back_again
from landwatch.work_item import WorkItem, WorkKind

log = logging.getLogger("landwatch.reviewer")


@dataclass
class Swept:
    """What one pass did in one repository."""

    enqueued: list[str] = field(default_factory=list)  # item ids
    entries: int = 0
    # Each worktree whose queue refused what was found (the rest waits for the next pass).
    problems: dict[Path, work_item.QueueError] = field(default_factory=dict)


def reflogs(common: Path) -> dict[str, Path]:
    """Every reflog the sweep reads, by its path relative to the common dir: each worktree's HEAD
    and every local branch."""
    found = {}
    for git_dir in registry.worktree_git_dirs(common):
        head = git_dir / "logs" / "HEAD"
        found[str(head.relative_to(common))] = head
    branches = common / "logs" / "refs" / "heads"
    for directory, names, files in os.walk(branches):  # links are not followed into
        for name in files:
            path = Path(directory) / name
            found[str(path.relative_to(common))] = path
        names[:] = [n for n in names if not os.path.islink(os.path.join(directory, n))]
    return found


def _load(common: Path) -> dict[str, Cursor] | None:
    """The cursors as the last pass kept them; None when none were (an install before the
    sweep). StateError when they cannot be read, or a newer release wrote them."""
    data = layout.read_state(layout.SWEEP_STATE, common)
    if data is None:
        return None
    try:
        return {
            key: Cursor(
                int(value["inode"]), int(value["offset"]), int(value["time"]), value.get("last", "")
            )
            for key, value in data["reflogs"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError):
        why = "cannot be read (its cursors are not what landwatch writes)"
        raise layout.StateError(layout.SWEEP_STATE.path(common), why) from None


def _stored_at(common: Path) -> int:
    """The second after the cursors were last written (0 when unknown): what was read by then
    is reviewed, and an entry of that second may be from before (as start_at_end has it)."""
    try:
        return int(layout.SWEEP_STATE.path(common).lstat().st_mtime) + 1
    except OSError:
        return 0


def _lost(common: Path, error: layout.StateError) -> dict[str, Cursor] | None:
    """Cursors in place of those that cannot be read: every reflog read again from when they
    were last written, as one an expire rewrote is (what the hooks recorded is not queued
    again); None where that time is unknown. Said once: the pass writes them anew."""
    since = _stored_at(common)
    if not since:
        log.warning("sweep: %s: the sweep begins again at each reflog's end", error)
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
    log.warning(
        "sweep: %s: every reflog of %s is read again from %s, when it was last written",
        error,
        common,
        when,
    )
    return {key: Cursor(-1, 0, since) for key in reflogs(common)}


def _store(common: Path, cursors: dict[str, Cursor]) -> None:
    data = {"reflogs": {key: vars(cursor) for key, cursor in sorted(cursors.items())}}
    layout.write_state(layout.SWEEP_STATE, data, common, durable=False)


def _regular(path: Path) -> os.stat_result | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def start_at_end(common: Path, *, now: float, keep: bool = False) -> None:
    """Nothing that landed before now is swept (`landwatch install`): cursors at every end;
    with `keep`, a repository swept already goes on from where it was (cursors that cannot be
    read are the next pass's to say and mend, a newer release's are never written over)."""
    if keep and os.path.lexists(layout.SWEEP_STATE.path(common)):
        return
    cursors = {}
    for key, path in reflogs(common).items():
        info = _regular(path)
        if info is not None:
            # Rewritten later (`git gc` expires reflogs, keeping 90 days), it is read again from
            # the second after this one: an entry of this second may be from before.
            cursors[key] = Cursor(info.st_ino, info.st_size, int(now) + 1)
    _store(common, cursors)


def sweep(common: Path, *, now: float, grace: float = SWEEP_GRACE) -> Swept:
    """One pass over every reflog of the repository of `common`."""
    swept = Swept()
    try:
        cursors = _load(common)
    except layout.StateError as error:
        if error.newer:
            return swept  # never written over: coverage says the sweep is stopped (sweep_off)
        cursors = _lost(common, error)
    if cursors is None:
        start_at_end(common, now=now)  # installed by a release without the sweep: from now on
        return swept
    repo = Repository(common)
    logs = reflogs(common)
    absent = [key for key in cursors if key not in logs]
    changed = False
    for key, path in logs.items():
        info = _regular(path)
        if info is None:
            absent.append(key)
            continue
        cursor = cursors.get(key)
        floor = None
        is_head = key.endswith("HEAD")
        if cursor is None:  # born after the install: all of it is new, but what it inherited
            cursor = _renamed(path, info, [cursors[gone] for gone in absent if gone in cursors])
            if cursor is None:
                cursor = Cursor(info.st_ino, 0, 0) if is_head else born(path, info, now)
            changed = True
        elif cursor.time == 0 < cursor.offset <= info.st_size and cursor.inode == info.st_ino:
            # An install of a release that kept no time: what it read is dated now, once, before
            # an expire rewrites the reflog and its whole history would be read again.
            cursor = Cursor(cursor.inode, cursor.offset, time_before(path, cursor.offset, now))
            changed = True
        elif (
            cursor.inode != info.st_ino
            or info.st_size < cursor.offset
            or (info.st_size > cursor.offset and not continues(path, cursor))
        ):
            cursor, floor = _read_again(common, path, info, cursor, now)
            changed = True
        if info.st_size > cursor.offset:
            seen = _Seen(info.st_size, info.st_mtime, now, grace)
            changed |= _read(repo, path, cursor, is_head, seen, floor, swept)
        cursors[key] = cursor
    if _forget_gone(common, cursors, absent) or changed:
        _store(common, cursors)
    _forget_skipped(repo, cursors)
    return swept


def _renamed(path: Path, info: os.stat_result, gone: list[Cursor]) -> Cursor | None:
    """The cursor of a reflog gone since the last pass that this one is, renamed (`git branch
    -m` renames the file: one inode, its lines kept), to read on from where it was: what it held
    unread landed under the old name, which no pass read. Before (an audit), it was read as
    born, after the rename's entry, and a branch moved without the hooks then renamed was lost."""
    for cursor in gone:
        same = cursor.inode == info.st_ino and cursor.last and cursor.offset <= info.st_size
        if same and continues(path, cursor):
            return Cursor(cursor.inode, cursor.offset, cursor.time, cursor.last)
    return None


def _read_again(
    common: Path, path: Path, info: os.stat_result, cursor: Cursor, now: float
) -> tuple[Cursor, int | None]:
    """Where a reflog that is no longer the file the cursor read is read from, and the time
    below which its entries are not taken (None: all after the cursor).

    Rewritten (an expire): on after the last entry taken, where it was kept; else again, but
    not what is older than it (an older release's cursor, rewritten before it was dated: not
    older than when that release last wrote what it had read). Made again since the last pass
    by renaming or copying another branch's reflog to its name (`git branch -m`, `-c`; a line of
    it may be the very line the cursor took, a branch made from the same commit in the same
    second): born, read after the entry saying so, as a branch born since is."""
    found = resumed(path, info, cursor)
    floor = None if found is not None else cursor.time or _stored_at(common)
    inherited = born(path, info, now)
    if inherited.offset > 0 and (
        inherited.offset > found.offset if found is not None else inherited.time >= (floor or 0)
    ):
        return inherited, None
    return found or Cursor(info.st_ino, 0, cursor.time, cursor.last), floor


def _forget_gone(common: Path, cursors: dict[str, Cursor], absent: list[str]) -> bool:
    """The cursors of reflogs that are gone (a branch deleted or renamed away, a worktree
    removed) forgotten, else kept for ever; whether any. One made again under the name is then
    born, as one made since the last pass is. Only what is not there goes: a list of worktrees
    that could not be read forgets none."""
    gone = [key for key in absent if key in cursors and not os.path.lexists(common / key)]
    for key in gone:
        del cursors[key]
    return bool(gone)


class _Seen(NamedTuple):
    """One reflog as this pass found it, and the pass's clock: only the bytes it held then are
    read, so its mtime says when the newest of them was written, at the latest."""

    size: int
    written: float  # its mtime
    now: float
    grace: float

    def waits(self, stamp: int) -> bool:
        """The entry's hook may still be at work: stamped within the grace, or stamped ahead
        of the clock (a tool's committer date, a clock that was wrong) and written within it."""
        when = stamp if stamp <= self.now else self.written
        return self.now - self.grace < when <= self.now


def _read(
    repo: Repository,
    path: Path,
    cursor: Cursor,
    is_head: bool,
    seen: _Seen,
    floor: int | None,
    swept: Swept,
) -> bool:
    """Take the entries after the cursor, up to the first one too young (and, reading a
    rewritten reflog again, none older than `floor`); True if any."""
    with path.open("rb") as file:
        file.seek(cursor.offset)
        data = file.read(min(CHUNK, seen.size - cursor.offset))
    start, taken, at = cursor.offset, False, 0
    target = path.parents[1] if is_head else repo.common  # the worktree's git dir, or the main
    # Where each entry read here moved the ref: a landing the hooks recorded among them may
    # have brought what a move among them brings (landings.covered).
    tips = [entry.new for line in data.split(b"\n") if (entry := parse(line)) is not None]
    # A ref back at a commit an amend or rebase replaced: its line, if it had one untold.
    back_again(target, tips)
    while (end := data.find(b"\n", at)) >= 0:
        entry = parse(data[at:end])
        if entry is not None and seen.waits(entry.time):
            break  # its hook may still be at work: the next pass takes it
        if entry is not None and repo.waits_elsewhere(entry.new, target):
            break  # to review in a linked worktree's queue, which its removal takes: read again
        if entry is not None and (floor is None or entry.time >= floor):
            for tip, base in landings(repo, entry, is_head, tips):
                item = WorkItem(WorkKind.REVIEW, tip, target, base=base)
                try:
                    added = work_item.enqueue(item) is work_item.Enqueued.ADDED
                except work_item.QueueError as error:
                    swept.problems[target] = error  # logged by the caller, once a problem
                    return taken  # nothing is consumed past what could not be queued
                if added:
                    swept.enqueued.append(item.id)
                    log.info("sweep: %s landed in %s unrecorded; queued", tip[:12], target)
            swept.entries += 1
            if entry.time <= seen.now:  # a stamp ahead would hold a rewritten reflog back
                cursor.time = entry.time
        cursor.last = digest(data[at:end])
        at = end + 1
        cursor.offset = start + at
        taken = True
    return taken


def _forget_skipped(repo: Repository, cursors: dict[str, Cursor]) -> None:
    """Kill-switch markers every reflog has read past (with an hour to spare) are done with."""
    times = [cursor.time for cursor in cursors.values()]
    if not times or min(times) == 0:
        return
    horizon = min(times) - 3600
    for git_dir in repo.worktrees:
        skipped = layout.SKIPPED.path(git_dir)
        try:
            entries = list_entries(skipped, trusted=git_dir)
        except OSError:
            continue
        for name, info in entries:
            if stat.S_ISREG(info.st_mode) and info.st_mtime < horizon:
                remove(skipped / name, trusted=git_dir)
