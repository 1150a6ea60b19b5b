"""The one line a hook prints when there is something to say, most urgent first.

A queue nobody drains comes before items given up; anything taken from a repository (names,
paths) is escaped, so no terminal escape reaches the terminal from there.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import time
from pathlib import Path
from typing import NamedTuple

from landwatch import layout, one_line, work_item
from landwatch.files import read_file, read_tail, write_atomic
from landwatch.text import KEEP, MESSAGE, duration, fit, repository_name, safe, terminal_width

TYPE_CHECKING = False  # typing is not imported: a hook pays for every import
if TYPE_CHECKING:
    from collections.abc import Sequence

# Enough of HEAD's reflog for its newest line (two ids, a name, a date and a subject).
REFLOG_TAIL = 4096


class Urgency(enum.IntEnum):
    """What a line is about; the lower is told first."""

    STALE = 0
    GIVEN_UP = 1
    UNTRUSTED = 2
    FINDINGS = 3


class Announcement(NamedTuple):
    urgency: Urgency
    # (text, style, role), text already safe; fitted to the terminal's width when printed
    # (landwatch.text.fit: the role says what may be shortened, and what never is).
    parts: tuple[tuple[str, str, str], ...]
    commit: str | None = None  # the review it tells of, marked read once told

    @property
    def plain(self) -> str:
        return "".join(text for text, _, _ in self.parts)


def stale(git_dir: Path, now: float, *, ours: bool = True) -> Announcement | None:
    """Landed commits waiting longer than the bound, in landwatch's own words; not `ours`
    (registry.ours), the repository is taken for one the reviewer does not drain."""
    count, age = work_item.pending_summary(git_dir, now=now)
    bound = layout.read_git_settings(git_dir)[layout.STALE_AFTER]
    if not count or age <= bound:
        return None
    from landwatch import registry
    from landwatch.daemon.lock import holder

    drained = ours and layout.common_dir(git_dir).resolve() in registry.registered()
    if holder() is not None and drained:
        # It is draining: what still waits is work backing off (a push while offline), told
        # once it has been failing longer than the bound.
        return failing(git_dir, now, bound)
    # Each landing waits as one item per kind it asked for: count the commits, not the items.
    # What waits, as pending_summary counted it: pending/, and ready/ (the hooks' records nobody
    # has published yet).
    oids = {
        work_item.id_of_entry(name).partition("-")[2]
        for where in (work_item.PENDING, work_item.READY)
        for name in work_item.entries(git_dir, where)
    }
    oids.discard("")  # garbage: no kind-oid name
    return Announcement(
        Urgency.STALE,
        one_line.stale_words(
            len(oids) or count, repository_name(git_dir), duration(age), drained=drained
        ),
    )


def failing(git_dir: Path, now: float, bound: float) -> Announcement | None:
    """A kind's work failing longer than the bound (pushing while offline, say), as the kind
    itself tells it."""
    from landwatch import kinds

    told = [said for said in kinds.failing(git_dir, now) if said.seconds > bound]
    if not told:
        return None
    first = told[0]
    return Announcement(
        Urgency.STALE,
        (
            ("landwatch: ", "bold", KEEP),
            (f"{safe(first.what)} has failed for {duration(first.seconds)}", "yellow", MESSAGE),
            (f" ({safe(first.error)[:120]})", "", MESSAGE),
            ("; see ", "", KEEP),
            ("landwatch status", "bold cyan", KEEP),
        ),
    )


def given_up(git_dir: Path) -> Announcement | None:
    fresh = sorted(set(work_item.entries(git_dir, work_item.FAILED)) - _told(git_dir))
    if not fresh:
        return None
    first = work_item.id_of_entry(fresh[0])
    kind, _, oid = first.partition("-")
    what = one_line.item_named(first)
    held = kind == work_item.WorkKind.PUSH and (reason := _held_back(git_dir, oid)) is not None
    if held:
        what = f"{what}: {reason}"  # a finding, not a failure
    name = repository_name(git_dir)
    return Announcement(
        Urgency.GIVEN_UP, one_line.given_up_words(what, len(fresh) - 1, name, held_back=held)
    )


def _held_back(git_dir: Path, oid: str) -> str | None:
    """Why the push of `oid` was held back (the push gate, where it goes), in a few words; None:
    it was not."""
    from landwatch.kinds.push_holds import held_back

    held = held_back(git_dir, oid)
    return None if held is None else safe(held["what"])


def _told(git_dir: Path) -> set[str]:
    """The names in failed/ the person was told of: listed by name, so no clock step (an item
    stamped while the clock ran ahead) makes one look new again."""
    from landwatch.commands.prompt import told_names

    failed = work_item.entries(git_dir, work_item.FAILED)
    told = told_names(str(layout.TOLD.path(git_dir).parent), str(git_dir), failed)
    return set() if told is None else told


def start_told(git_dir: Path) -> None:
    """A told file for a failed/ that holds nothing: told of all of it. Until something is
    given up the hook then finds the two alike, and never lists failed/ at a landing."""
    if os.path.lexists(layout.TOLD.path(git_dir)) or work_item.entries(git_dir, work_item.FAILED):
        return  # what is given up and untold is still told
    _mark_given_up_told(git_dir)


def _mark_given_up_told(git_dir: Path, *, unless_current: bool = False) -> None:
    """Every name in failed/ now told; the told file's mtime made failed/'s own. The hook
    starts Python only when the two differ: any change to failed/ since, whatever the clock
    did (a failed/ touched while the clock ran ahead must not start it at every landing)."""
    told = layout.TOLD.path(git_dir)
    failed = work_item.state_directory(git_dir, work_item.FAILED)
    try:
        listed = failed.lstat().st_mtime_ns
    except OSError:
        return  # nothing was ever given up here
    if unless_current:
        try:
            if told.lstat().st_mtime_ns == listed:
                return
        except FileNotFoundError:
            pass
        except OSError:
            return
    names = work_item.entries(git_dir, work_item.FAILED)
    write_atomic(told, "".join(f"{name}\n" for name in names), trusted=git_dir, durable=False)
    os.utime(told, ns=(listed, listed), follow_symlinks=False)


def untrusted(git_dir: Path) -> Announcement | None:
    """Committed linters, or the project's hooks, were held back for want of trust (said once
    per configuration)."""
    from landwatch import trust

    try:
        read_file(layout.UNTRUSTED.path(git_dir), trusted=layout.common_dir(git_dir))
    except OSError:
        return None
    held = trust.held_back_subjects(git_dir)
    return Announcement(Urgency.UNTRUSTED, one_line.untrusted_words(held, repository_name(git_dir)))


def findings(git_dir: Path) -> Announcement | None:
    """The worst unread finding named, what else is unread, the command; the review it names
    is the one marked read once told."""
    from landwatch import report_store, telling  # light: no pygit2

    told = report_store.unread_told(git_dir)
    gone = telling.on_no_ref(git_dir, [said.commit for said in told]) if told else set()
    if gone:
        # Never told; what they took over is unread again where its commit is back.
        telling.set_aside_gone(git_dir, gone)
        told = [said for said in report_store.unread_told(git_dir) if said.commit not in gone]
    if not told:
        return None
    return Announcement(Urgency.FINDINGS, one_line.words(told), one_line.worst(told).commit)


def most_urgent(git_dir: Path, now: float | None = None) -> Announcement | None:
    moment = time.time() if now is None else now
    # Most urgent first; the later ones are not even looked at when an earlier one speaks.
    announcement = stale(git_dir, moment) or given_up(git_dir) or untrusted(git_dir)
    return announcement or findings(git_dir)


def notice(
    git_dir: Path,
    *,
    now: float | None = None,
    replaced: Sequence[tuple[str, str]] = (),
    say: bool = True,
) -> int:
    """Print the most urgent line on stderr, once; never raise (a hook calls this). `replaced`:
    the (old, new) commits of the rewrite the hook records, whose old lines are set aside; not
    `say`: only that (an amend's post-rewrite, whose landing post-commit's line spoke for)."""
    try:
        from landwatch import registry

        if registry.ours(git_dir):
            _set_aside(git_dir, [*replaced, *_amended(git_dir)])
            if not say:
                return 0
            announcement = most_urgent(git_dir, now)
        else:
            # Not a registered repository's git dir nor one of its worktrees' (a copy's, or one
            # an archive brought whose `commondir` names a registered repository): what it keeps
            # is not landwatch's to tell, but that landings wait undrained, as the prompt says.
            announcement = stale(git_dir, time.time() if now is None else now, ours=False)
    except Exception as error:  # a hook must never fail because of us
        print(f"landwatch: {safe(type(error).__name__)}: {safe(str(error))[:200]}", file=sys.stderr)
        return 0
    if announcement is not None:
        try:
            _print(announcement)
        except Exception:  # a closed stderr: there is no one to tell
            return 0
    # Remembering what was said: on a read-only or full disk it is said again next time, but
    # never as a second line.
    with contextlib.suppress(Exception):
        _mark_said(git_dir, announcement)
    return 0


def _set_aside(git_dir: Path, replaced: Sequence[tuple[str, str]]) -> None:
    """The lines of commits a rebase or amend just replaced set aside, never told: the review
    of the commit that replaced each tells what of it nobody saw."""
    if not replaced:
        return
    from landwatch import line_markers

    for old, new in replaced:
        if work_item.is_object_id(old) and work_item.is_object_id(new):
            line_markers.set_aside(git_dir, old, new)


def _amended(git_dir: Path) -> list[tuple[str, str]]:
    """(old, new) when HEAD last moved by `git commit --amend`: git runs post-commit before
    post-rewrite, so the amend's own line must not tell of the commit it replaced."""
    try:
        newest = read_tail(git_dir / "logs" / "HEAD", trusted=git_dir, size=REFLOG_TAIL)
    except OSError:
        return []
    head, _, message = newest.rstrip(b"\n").rpartition(b"\n")[2].partition(b"\t")
    old, _, rest = head.decode("ascii", "replace").partition(" ")
    if not message.startswith(b"commit (amend):"):
        return []
    return [(old, rest.partition(" ")[0])]


def _mark_said(git_dir: Path, announcement: Announcement | None) -> None:
    if announcement is None or announcement.urgency > Urgency.GIVEN_UP:
        # Nothing given up is untold (an item retried, say): the hook need not ask again.
        _mark_given_up_told(git_dir, unless_current=True)
    if announcement is None:
        return
    if announcement.urgency is Urgency.UNTRUSTED:
        from landwatch import trust

        trust.mark_told(git_dir)
    elif announcement.urgency is Urgency.GIVEN_UP:
        _mark_given_up_told(git_dir)
    elif announcement.commit is not None:
        from landwatch import line_markers

        line_markers.mark_read(git_dir, announcement.commit)


def _print(announcement: Announcement) -> None:
    from landwatch.styled import Out

    # Fitted to the terminal stderr is (80 columns where that cannot be known): one line is one
    # line, never wrapped, and the command at its end is whole.
    out = Out(sys.stderr)
    if out.terminal:
        # git may have left its cursor mid-line (`Rebasing (7/7)` ends in a carriage return):
        # the line starts at the left edge of a cleared line, not glued to that.
        sys.stderr.write("\r\x1b[K")
    out.print(*fit(announcement.parts, terminal_width(2)))
