"""The markers through which the one line tells each review once, all in the repository's
landwatch dir: unread (what the line will say of a review), held (a review's line waiting for
its project hooks' result, to be told with it as one) and set aside (the line of a commit a
rebase or amend replaced: never told; the review of the commit that replaced it tells it, and
it is told again where that commit goes and the old one is back: a rewrite undone).

report_store decides what each says; this module only keeps them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from landwatch import layout, one_line
from landwatch.files import list_entries, read_file, remove, write_atomic

HELD_VERSION = "landwatch-held 1"


def mark_unread(
    git_dir: os.PathLike[str] | str, commit: str, told: one_line.Told | None = None
) -> None:
    """The marker holding what the one line is to say (one_line.Told); a fresh file, whose mtime
    orders the unread, newest first."""
    _write_unread(git_dir, commit, told.text() if told is not None else b"")


def _write_unread(git_dir: os.PathLike[str] | str, commit: str, content: bytes) -> None:
    marker = layout.UNREAD.path(git_dir) / commit
    write_atomic(marker, content, trusted=layout.common_dir(git_dir), durable=False)


def is_unread(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    marker = layout.UNREAD.path(git_dir) / commit
    try:
        return stat.S_ISREG(marker.lstat().st_mode)
    except OSError:
        return False


def unread(git_dir: os.PathLike[str] | str) -> list[str]:
    """Commits whose reviews have findings nobody was told about, newest first."""
    return one_line.markers(layout.UNREAD.path(git_dir), trusted=layout.common_dir(git_dir))


def mark_read(git_dir: os.PathLike[str] | str, commit: str) -> None:
    """`commit`'s line told, or nothing of it is to be: so are the lines it took over (set
    aside for it, and those they had taken over), which nothing brings back after."""
    _unmark(git_dir, commit)
    pairs = set_aside_pairs(git_dir)
    told, done = [commit], set()
    while pairs and told:
        new = told.pop()
        olds = [old for by, old in pairs if by == new and old not in done]
        forget_set_aside(git_dir, new, olds)
        done.update(olds)
        told += olds


def shown(git_dir: os.PathLike[str] | str, commit: str) -> None:
    """`commit`'s review shown whole (`landwatch show`): its own line is read. The lines it
    took over stay set aside: what of them it carried was shown, what the rewrite fixed was
    not, and is told again if the rewrite is undone (an audit: `show` of a clean amend, then
    the amend undone, and the finding back on the branch was never told)."""
    _unmark(git_dir, commit)


def _unmark(git_dir: os.PathLike[str] | str, commit: str) -> None:
    with contextlib.suppress(OSError):
        remove(layout.UNREAD.path(git_dir) / commit, trusted=layout.common_dir(git_dir))


def hold(
    git_dir: os.PathLike[str] | str, commit: str, fingerprints: Iterable[str], before: list[str]
) -> None:
    """The line of `commit`'s review held until its project hooks' result: the fingerprints of
    the findings it is to tell, and the commits it replaced (whose reviews say what carried)."""
    lines = [HELD_VERSION, " ".join(before), *sorted(set(fingerprints))]
    marker = layout.HELD.path(git_dir) / commit
    write_atomic(marker, "\n".join(lines) + "\n", trusted=layout.common_dir(git_dir))


def held(git_dir: os.PathLike[str] | str, commit: str) -> tuple[set[str], list[str]] | None:
    """The held line of `commit` as (fingerprints, commits replaced); None when none is held."""
    marker = layout.HELD.path(git_dir) / commit
    try:
        text = read_file(marker, trusted=layout.common_dir(git_dir), limit=1 << 20).decode()
    except (OSError, UnicodeDecodeError):
        return None
    first, _, rest = text.partition("\n")
    before, _, fingerprints = rest.partition("\n")
    if first != HELD_VERSION:
        return None
    return set(fingerprints.split()), before.split()


def is_held(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    return os.path.isfile(layout.HELD.path(git_dir) / commit)


def forget_held(git_dir: os.PathLike[str] | str, commit: str) -> None:
    with contextlib.suppress(OSError):
        remove(layout.HELD.path(git_dir) / commit, trusted=layout.common_dir(git_dir))


def set_aside(git_dir: os.PathLike[str] | str, old: str, new: str | None) -> bool:
    """The line of `old`, which a rebase or amend replaced by `new`, set aside: never told (the
    commit is gone from its branch), and what of it nobody saw told by the review of `new`.
    `new` None: `old`'s review was kept after it was replaced, its findings never told. The
    marker keeps what its unread line said (restore). False when nothing of `old` waited."""
    waiting = new is None or is_unread(git_dir, old) or is_held(git_dir, old)
    if old == new or not waiting:
        return False
    # A held line says nothing here: brought back, it is told from its review.
    said = _said(git_dir, layout.UNREAD.path(git_dir) / old) or b""
    marker = layout.REPLACED.path(git_dir) / (old if new is None else f"{new}.{old}")
    write_atomic(marker, said, trusted=layout.common_dir(git_dir), durable=False)
    taken_over(git_dir, old)
    return True


def taken_over(git_dir: os.PathLike[str] | str, old: str) -> None:
    """The line of `old`, unread or held for its project hooks, gone: the review of the commit
    that replaced it tells what of it nobody saw, and nothing of `old` is told after (but what
    restore tells again). What `old` itself took over stays set aside for it."""
    _unmark(git_dir, old)
    forget_held(git_dir, old)


def taken_by(git_dir: os.PathLike[str] | str, new: str) -> list[str]:
    """The commits whose lines were set aside for `new`'s (`new.old`)."""
    return [old for by, old in set_aside_pairs(git_dir) if by == new]


def take_over(git_dir: os.PathLike[str] | str, new: str, olds: Iterable[str]) -> None:
    """Each of `olds` set aside for `new`, whose review tells what of it nobody saw: one set
    aside alone (its review kept after it was replaced) is named with `new` from now on."""
    directory, trusted = layout.REPLACED.path(git_dir), layout.common_dir(git_dir)
    for old in olds:
        if (said := _said(git_dir, directory / old)) is None:
            continue
        with contextlib.suppress(OSError):
            if not os.path.lexists(directory / f"{new}.{old}"):  # set aside for it: as it was
                write_atomic(directory / f"{new}.{old}", said, trusted=trusted, durable=False)
            remove(directory / old, trusted=trusted)


def restore(git_dir: os.PathLike[str] | str, new: str, old: str) -> None:
    """The line of `old`, set aside for `new`'s ("": alone), unread again as it was set aside
    (`new` is gone and `old` the person's again: the rewrite was undone); one held for its
    project hooks is told from its review."""
    name = f"{new}.{old}" if new else old
    said = _said(git_dir, layout.REPLACED.path(git_dir) / name) or b""
    _write_unread(git_dir, old, said)
    forget_set_aside(git_dir, new, [old])


def _said(git_dir: os.PathLike[str] | str, marker: Path) -> bytes | None:
    """What a marker says its line is to say (one_line.Told's text, or nothing); None where it
    cannot be read (gone, not a file)."""
    try:
        return read_file(marker, trusted=layout.common_dir(git_dir), limit=one_line.MARKER_LIMIT)
    except OSError:
        return None


def is_set_aside(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    return any(old == commit for _, old in set_aside_pairs(git_dir))


def forget_set_aside(git_dir: os.PathLike[str] | str, commit: str, olds: Iterable[str]) -> None:
    """The set-aside markers of what `commit` replaced, once its line has told them (or there
    is nothing of them to bring back)."""
    for old in olds:
        for name in (f"{commit}.{old}", old):
            with contextlib.suppress(OSError):
                remove(layout.REPLACED.path(git_dir) / name, trusted=layout.common_dir(git_dir))


def prune_set_aside(git_dir: os.PathLike[str] | str, *, keep_seconds: float, now: float) -> int:
    """The set-aside markers older than `keep_seconds` removed, as done items are: those whose
    replacing commit was never reviewed (a fixup folded in before its own review was kept);
    how many went."""
    directory = layout.REPLACED.path(git_dir)
    try:
        listed = list_entries(directory, trusted=layout.common_dir(git_dir))
    except OSError:
        return 0
    removed = 0
    for name, found in listed:
        if found.st_mtime < now - keep_seconds:
            with contextlib.suppress(OSError):
                removed += remove(directory / name, trusted=layout.common_dir(git_dir))
    return removed


def set_aside_pairs(git_dir: os.PathLike[str] | str) -> list[tuple[str, str]]:
    """(new, old) of every line set aside; new is "" where it was not known."""
    try:
        listed = list_entries(layout.REPLACED.path(git_dir), trusted=layout.common_dir(git_dir))
    except OSError:
        return []
    pairs = (name.rpartition(".") for name, _ in listed)
    return [(new, old) for new, _, old in pairs if old]
