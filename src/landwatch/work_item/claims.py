"""Claiming, renewing and settling (docs/queue.md, "States and transitions"): each a rename of an
exact name, so a lost race is ENOENT and nobody settles a claim that is no longer theirs; giving
a failed item another start, or a done one asked for again, and moving the due times of pending
items with a step of the clock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path

from landwatch.work_item.directory import (
    WorkDirectory,
    append_line,
    checkpoint,
    decode_entry,
    fsync_directory,
    listdir,
    lstat,
    open_entry,
    opened,
    read_all,
    rename,
)
from landwatch.work_item.listing import forget_listing, pop_oldest, wanted_kinds
from landwatch.work_item.names import (
    CLAIM_RE,
    CLAIMED,
    DONE,
    FAILED,
    INVALID_PREFIX,
    PENDING,
    RECOVERING,
    WORK_DIRECTORY,
    Claimed,
    RecordError,
    WorkKind,
    claim_file_name,
    id_of_entry,
    micros,
    new_generation,
    now_or,
    parse_claim,
    rebased,
    seconds_of,
    stamp_of,
    stamped,
    stamped_name,
)
from landwatch.work_item.record import decode_record, named_record


def claim_next(
    git_dir: os.PathLike[str] | str,
    kinds: Iterable[str] | None = None,
    *,
    now: float | None = None,
) -> Claimed | None:
    """Claim the oldest pending item of `kinds` (by default the built-in ones): those the
    consumer can work; items of any other kind are left for one that can. None when none is
    due."""
    wanted = wanted_kinds(list(WorkKind) if kinds is None else kinds)
    with opened(git_dir, "cannot claim from") as directory:
        return None if directory is None else claim_in(directory, wanted, now_or(now))


def claim_in(directory: WorkDirectory, wanted: tuple[str, ...], moment: float) -> Claimed | None:
    """claim_next in a work directory already open (a consumer claiming many in a row)."""
    relisted = False
    while True:
        name = pop_oldest(directory, wanted, moment, relist=False)
        if name is None and not relisted:
            name, relisted = pop_oldest(directory, wanted, moment, relist=True), True
        if name is None:
            return None
        claimed = _claim(directory, name, moment)
        if claimed is not None:
            return claimed


def _claim(directory: WorkDirectory, name: str, now: float) -> Claimed | None:
    id = id_of_entry(name)
    claim = claim_file_name(id, new_generation(), now)
    if not rename(directory, source=PENDING, name=name, target=CLAIMED, new=claim):
        return None
    try:
        record = decode_entry(directory, CLAIMED, claim)
    except RecordError:
        new = stamped_name(id, micros(now))
        rename(directory, source=CLAIMED, name=claim, target=FAILED, new=new)
        fsync_directory(directory, FAILED)
        return None
    return Claimed(record.item(directory.git_dir), id, claim)


def find_claim(git_dir: os.PathLike[str] | str, id: str) -> Path | None:
    with opened(git_dir, "cannot look for a claim in") as directory:
        if directory is None:
            return None
        for state in (CLAIMED, RECOVERING):
            for name in listdir(directory, state):
                if id_of_entry(name) == id:
                    return directory.git_dir / WORK_DIRECTORY / state / name
    return None


def renew_claim(
    git_dir: os.PathLike[str] | str, name: str, *, now: float | None = None
) -> str | None:
    """Restart the lease of exactly `name`; None when that name is no longer claimed."""
    parsed = CLAIM_RE.fullmatch(name)
    if parsed is None:
        return None
    renewed = claim_file_name(id_of_entry(name), parsed["generation"], now_or(now))
    with opened(git_dir, "cannot renew a claim in") as directory:
        if directory is None:
            return None
        if renewed == name:
            return name if lstat(directory, CLAIMED, name) is not None else None
        moved = rename(directory, source=CLAIMED, name=name, target=CLAIMED, new=renewed)
        return renewed if moved else None


def settle(
    git_dir: os.PathLike[str] | str,
    claimed: Claimed | str,
    state: str = DONE,
    *,
    now: float | None = None,
) -> bool:
    """Move exactly the claim (a Claimed, or its name as renewals left it) to done or failed,
    synced; False when the claim is no longer ours."""
    name = claimed.name if isinstance(claimed, Claimed) else claimed
    with opened(git_dir, "cannot settle in") as directory:
        if directory is None or not settle_in(directory, name, state, now_or(now)):
            return False
        fsync_directory(directory, state)
        return True


def settle_in(directory: WorkDirectory, name: str, state: str, moment: float) -> bool:
    """settle in a work directory already open, not yet synced."""
    if state not in (DONE, FAILED):
        raise ValueError(f"a claim settles in done or failed, not {state!r}")
    if parse_claim(name) is None:
        return False
    new = stamped_name(id_of_entry(name), micros(moment))
    return rename(directory, source=CLAIMED, name=name, target=state, new=new)


def retry(git_dir: os.PathLike[str] | str, name: str, *, now: float | None = None) -> str | None:
    """Give a failed item another start: its tries counted from zero again, back in pending
    (claimable now); its name there, or None when `name` is not a failed record of ours."""
    return _restart(git_dir, FAILED, name, now=now)


def run_again(git_dir: os.PathLike[str] | str, id: str, *, now: float | None = None) -> str | None:
    """Run a done item again (asked for by name: its work depends on more than its commit),
    back in pending with its tries from zero; its name there, or None when `id` is not done
    here (waiting or running already, pruned, or never enqueued)."""
    with opened(git_dir, "cannot look for a done item in") as directory:
        names = [] if directory is None else listdir(directory, DONE)
    done = [name for name in names if id_of_entry(name) == id]
    return _restart(git_dir, DONE, done[0], now=now) if done else None


def _restart(
    git_dir: os.PathLike[str] | str, state: str, name: str, *, now: float | None = None
) -> str | None:
    """A settled item (failed or done) in pending again, its tries counted from zero; its name
    there, or None when `name` is not a settled record of ours in `state`.

    Two steps, each safe to repeat: append `reset` to the record (synced), move it to pending.
    """
    if state not in (DONE, FAILED):
        raise ValueError(f"only a settled item starts again, not one in {state!r}")
    if stamp_of(name) is None or name.startswith(INVALID_PREFIX):
        return None
    moment = now_or(now)
    id = id_of_entry(name)
    with opened(git_dir, "cannot retry in") as directory:
        if directory is None:
            return None
        try:
            fd, size = open_entry(directory, state, name, append=True)
        except (FileNotFoundError, RecordError):
            return None
        try:
            data = read_all(fd, size)
            try:
                decode_record(data, id)
                append_line(fd, data, b"reset", "append reset")
            except RecordError:
                # Given up as garbage: the record its name says, tries from zero (else `retry`
                # refused what status and the one line named given up: an audit).
                named = named_record(id, git_dir, data, enqueued=moment)
                if state != FAILED or named is None:
                    return None  # not an item: it stays for the person to see
                _written_over(fd, named)
        finally:
            os.close(fd)
        new = stamped_name(id, micros(moment))
        if not rename(directory, source=state, name=name, target=PENDING, new=new):
            return None
        fsync_directory(directory, PENDING)
    forget_listing(git_dir)
    return new


def _written_over(fd: int, data: bytes) -> None:
    """`data` over the open record from its start, then cut to its length, synced: killed, or
    read by another retry, between the steps, the bytes read are the old, or `data` before what
    is left of them, whose first lines are `data`'s (an audit: cut first, an empty record lost a
    pull's base). Not appended: O_APPEND would put every write at the end."""
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_APPEND)
    os.pwrite(fd, data, 0)
    checkpoint("write a garbage record's name's")
    os.ftruncate(fd, len(data))
    os.fsync(fd)
    checkpoint("cut it to its length")


def rebase_pending(
    git_dir: os.PathLike[str] | str, *, step: float, now: float | None = None
) -> int:
    """Every pending stamp still ahead moved by `step` seconds, the step the wall clock just
    took (`rebased`), so that a backoff waits as long by the new clock; how many moved.

    A stamp a step forward went past is moved only if it is a backoff: one that is the item's
    place in line (its enqueue time) may be a landing's since the step. Each move is a rename
    of an exact name, so a claim that took the item first wins.
    """
    moment = now_or(now)
    moved = 0
    with opened(git_dir, "cannot move the due times in") as directory:
        if directory is None:
            return 0
        for name, _, stamp in stamped(listdir(directory, PENDING)):
            due = seconds_of(int(stamp))
            new = micros(rebased(due, step, moment))
            if new == int(stamp) or (due <= moment and _in_line(directory, name, int(stamp))):
                continue
            if rename(
                directory,
                source=PENDING,
                name=name,
                target=PENDING,
                new=stamped_name(id_of_entry(name), new),
            ):
                moved += 1
    if moved:
        forget_listing(git_dir)
    return moved


def _in_line(directory: WorkDirectory, name: str, stamp: int) -> bool:
    """Whether a pending stamp is its item's enqueue time (its place in line), not a backoff."""
    try:
        return decode_entry(directory, PENDING, name).enqueued == stamp
    except (RecordError, FileNotFoundError):
        return True  # nothing to move: a claim took it, or recovery will deal with it
