"""The markers through which the one line tells each review once, all in the repository's
landwatch dir: unread (what the line will say of a review), held (a review's line waiting for
its project hooks' result, to be told with it as one) and set aside (the line of a commit a
rebase or amend replaced: never told; the review of the commit that replaced it tells it).

report_store decides what each says; this module only keeps them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable

from landwatch import layout, one_line
from landwatch.files import list_entries, read_file, remove, write_atomic

HELD_VERSION = "landwatch-held 1"


def mark_unread(
    git_dir: os.PathLike[str] | str, commit: str, told: one_line.Told | None = None
) -> None:
    """The marker holding what the one line is to say (one_line.Told); a fresh file, whose mtime
    orders the unread, newest first."""
    marker = layout.UNREAD.path(git_dir) / commit
    content = told.text() if told is not None else b""
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
    `new` None: `old`'s review was kept after it was replaced, its findings never told. False
    when nothing of `old` was waiting to be told."""
    waiting = new is None or is_unread(git_dir, old) or is_held(git_dir, old)
    if old == new or not waiting:
        return False
    marker = layout.REPLACED.path(git_dir) / (old if new is None else f"{new}.{old}")
    write_atomic(marker, b"", trusted=layout.common_dir(git_dir), durable=False)
    taken_over(git_dir, old)
    return True


def taken_over(git_dir: os.PathLike[str] | str, old: str) -> None:
    """The line of `old`, unread or held for its project hooks, gone: the review of the commit
    that replaced it tells what of it nobody saw, and nothing of `old` is told after."""
    mark_read(git_dir, old)
    forget_held(git_dir, old)


def is_set_aside(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    return any(old == commit for _, old in set_aside_pairs(git_dir))


def forget_set_aside(git_dir: os.PathLike[str] | str, commit: str, olds: Iterable[str]) -> None:
    """The set-aside markers of what `commit` replaced, once its review has told them."""
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
