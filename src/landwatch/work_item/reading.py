"""Reading the queue without changing it, for status, the one line and the reviewer's timers: one
directory listing each, no record opened unless asked for.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from landwatch.work_item.directory import decode_entry, listdir, lstat, opened
from landwatch.work_item.names import (
    CLAIMED,
    FAILED,
    KNOWN,
    PENDING,
    READY,
    RECOVERING,
    STATES,
    TMP,
    WORK_DIRECTORY,
    RecordError,
    WorkItem,
    id_of_entry,
    now_or,
    parse_claim,
    seconds_of,
    stamped,
)


def next_claim_expiry(
    git_dir: os.PathLike[str] | str, *, lease: float, now: float | None = None
) -> float | None:
    """Seconds until the first held claim runs out (<= 0 when overdue); None when none is held."""
    moment = now_or(now)
    remaining: list[float] = []
    with opened(git_dir, "cannot read the claims of") as directory:
        if directory is None:
            return None
        for name in listdir(directory, CLAIMED):
            parsed = parse_claim(name)
            if parsed is None:
                continue
            reading = seconds_of(parsed[2])
            if reading - moment > lease:
                remaining.append(moment + lease - reading)
            else:
                remaining.append(reading + lease - moment)
    return min(remaining) if remaining else None


def pending_summary(
    git_dir: os.PathLike[str] | str, *, now: float | None = None
) -> tuple[int, float]:
    """(how many items wait, how long the oldest has waited) from one directory listing."""
    moment = now_or(now)
    with opened(git_dir, "cannot list what waits in") as directory:
        # A marker said whole but not yet published waits all the same; one being published
        # has the same name in both for a moment, and is one item.
        names = (
            []
            if directory is None
            else list(dict.fromkeys(listdir(directory, PENDING) + listdir(directory, READY)))
        )
    found = stamped(names)
    if not found:
        return 0, 0.0
    return len(found), moment - seconds_of(min(int(stamp) for _, _, stamp in found))


def oldest_landing(git_dir: os.PathLike[str] | str) -> float | None:
    """When the oldest item that waits was enqueued: its record's time, which a retry or a
    backoff keeps though each stamps its name anew; None when nothing waits. Every pending
    record is read (status asks, not a hook); a marker in ready/ is named by its enqueue time."""
    with opened(git_dir, "cannot list what waits in") as directory:
        if directory is None:
            return None
        found = [int(stamp) for _, _, stamp in stamped(listdir(directory, READY))]
        for name, _, _ in stamped(listdir(directory, PENDING)):
            try:
                found.append(decode_entry(directory, PENDING, name).enqueued)
            except (RecordError, FileNotFoundError):
                continue  # not a record (status names it elsewhere), or claimed since
    return seconds_of(min(found)) if found else None


def entries(git_dir: os.PathLike[str] | str, state: str) -> list[str]:
    """The names in one state directory, or in ready/ (for status and tests); garbage included."""
    if state not in (*STATES, READY):
        raise ValueError(f"not a state directory: {state!r}")
    with opened(git_dir, "cannot list") as directory:
        return [] if directory is None else listdir(directory, state)


def read_entry(git_dir: os.PathLike[str] | str, state: str, name: str) -> WorkItem | None:
    """The item an entry of a state directory holds; None when it is gone or not a record."""
    if state not in STATES:
        raise ValueError(f"not a state directory: {state!r}")
    with opened(git_dir, "cannot read an entry of") as directory:
        if directory is None:
            return None
        try:
            return decode_entry(directory, state, name).item(directory.git_dir)
        except (RecordError, FileNotFoundError):
            return None


def work_trees(git_dir: os.PathLike[str] | str, *, most: int = 16) -> list[Path]:
    """Where the hooks ran at the landings kept here (each record's `work-tree`), the newest
    first, once each; at most `most` records read (a sweep's or a kind's names none)."""
    found: list[Path] = []
    with opened(git_dir, "cannot read the records of") as directory:
        if directory is None:
            return found
        # known/<id> is the record, whatever state its item is in (claimed, done...).
        ids = [
            (info.st_mtime_ns, id)
            for id in listdir(directory, KNOWN)
            if (info := lstat(directory, KNOWN, id))
        ]
        for _, id in sorted(ids, reverse=True)[:most]:
            try:
                work_tree = decode_entry(directory, KNOWN, id).work_tree
            except (RecordError, FileNotFoundError):
                continue  # pruned since, or no record
            if work_tree:
                found.append(Path(os.fsdecode(work_tree)))
    return list(dict.fromkeys(found))


def given_up(git_dir: os.PathLike[str] | str, id: str) -> bool:
    """Whether the item `id` is in failed/ (given up, waiting for `landwatch retry`)."""
    return any(id_of_entry(name) == id for name in entries(git_dir, FAILED))


def in_line(git_dir: os.PathLike[str] | str, id: str) -> bool:
    """Whether the item `id` is still to be done here: waiting (ready, pending), claimed or
    being recovered; its state's directories listed (QueueError where they cannot be)."""
    with opened(git_dir, "cannot list what waits in") as directory:
        if directory is None:
            return False
        waiting = (READY, PENDING, CLAIMED, RECOVERING)
        return any(id_of_entry(name) == id for at in waiting for name in listdir(directory, at))


def is_known(git_dir: os.PathLike[str] | str, id: str) -> bool:
    """Whether the id was ever enqueued here and not yet pruned: its marker in known/, in
    whatever state the item is (the dedup an enqueue would meet)."""
    # A look, not a step of the protocol: one lstat, as cheap as the reflog sweep needs it.
    return os.path.lexists(os.path.join(git_dir, WORK_DIRECTORY, KNOWN, id))


def known_record(git_dir: os.PathLike[str] | str, id: str) -> WorkItem | None:
    """The item `known/<id>` records, in whatever state it is; None when it holds no record of
    `id`: a marker planted with a copied repository, or torn, is no record of a landing."""
    with opened(git_dir, "cannot read a marker of") as directory:
        if directory is None:
            return None
        try:
            return decode_entry(directory, KNOWN, id).item(directory.git_dir)
        except (RecordError, FileNotFoundError):
            return None


def unusable(git_dir: os.PathLike[str] | str) -> tuple[Path, str] | None:
    """The first of the work directory's directories that cannot be used, and why: not a
    directory (a file, a link) or another person's; None when all can (a missing one is made on
    first use). Read only: the listings take such a one for empty, and only claims fail."""
    work = Path(git_dir) / WORK_DIRECTORY
    for path in (work, *(work / name for name in (TMP, KNOWN, READY, *STATES))):
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as error:
            return path, f"cannot be read ({error.strerror})"
        if not stat.S_ISDIR(info.st_mode):
            return path, "is not a directory"
        if info.st_uid != os.getuid():
            return path, f"belongs to uid {info.st_uid}, not to you"
    return None
