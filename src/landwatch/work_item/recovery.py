"""Giving claims back and recovering what nobody finished (docs/queue.md, "Recovery"): a claim
given back or expired goes through recovering/ with its try counted once, back to pending/ (or
failed/); markers whose producer died are published; interrupted prunes are finished.

Every step is safe to repeat, so any pass may finish any crash of another.
"""

from __future__ import annotations

import collections
import contextlib
import os
import stat
from collections.abc import Callable

from landwatch.work_item.directory import (
    WorkDirectory,
    append_line,
    decode_entry,
    fsync_directory,
    is_record_file,
    link_marker,
    listdir,
    lstat,
    open_entry,
    opened,
    quarantine,
    read_all,
    recovery_lock,
    rename,
    unlink,
)
from landwatch.work_item.listing import forget_listing, publish_ready_locked
from landwatch.work_item.names import (
    CLAIMED,
    DONE,
    FAILED,
    FOREIGN_PRODUCER_GRACE,
    ID_RE,
    KNOWN,
    MAX_DELAY,
    PENDING,
    PRUNE_PREFIX,
    RECOVERING,
    TMP,
    TMP_GRACE,
    TMP_RE,
    Claimed,
    RecordError,
    Recovered,
    WorkItem,
    id_of_entry,
    micros,
    now_or,
    parse_claim,
    seconds_of,
    stamp_of,
    stamped_name,
)
from landwatch.work_item.record import decode_record, producer_may_be_alive

RetryAfter = Callable[[int], float]  # tries so far -> seconds before the next may start
# What happened to one entry a pass moved: the state it went to, and its item when it decoded.
Moved = tuple[str, WorkItem | None]


def requeue(
    git_dir: os.PathLike[str] | str,
    claimed: Claimed | str,
    *,
    max_tries: int,
    count_try: bool = True,
    delay: float = 0.0,
    now: float | None = None,
) -> str | None:
    """Give a claim back: to pending (or failed once tries reach `max_tries`); None if not ours.

    With a `delay`, it may be claimed again only that many seconds from `now` (a backoff).
    """
    name = claimed.name if isinstance(claimed, Claimed) else claimed
    if parse_claim(name) is None:
        return None
    moment = now_or(now)
    with opened(git_dir, "cannot requeue in") as directory:
        if directory is None or not rename(
            directory, source=CLAIMED, name=name, target=RECOVERING, new=name
        ):
            return None
        moved = _finish_recovering(
            directory, name, max_tries, moment, count_try=count_try, retry_after=lambda _: delay
        )
    forget_listing(git_dir)
    return moved[0] if moved else None


def requeue_expired(
    git_dir: os.PathLike[str] | str,
    *,
    lease: float,
    max_tries: int,
    retry_after: RetryAfter | None = None,
    now: float | None = None,
) -> Recovered:
    """Return expired claims to pending (tries + 1) or to failed; finish any interrupted step.

    The answer is how many items moved, with the ones given up (`.failed`) for the caller to
    tell of. With `retry_after`, an item comes back claimable only after the backoff it gives.
    """
    moment = now_or(now)
    moved: list[Moved] = []
    with opened(git_dir, "cannot recover claims in") as directory:
        if directory is None:
            return Recovered()
        resurrected = _recover_unfinished(directory, moment)
        for name in listdir(directory, RECOVERING):
            found = _finish_recovering(directory, name, max_tries, moment, retry_after=retry_after)
            moved += [found] if found else []
        for name in listdir(directory, CLAIMED):
            parsed = parse_claim(name)
            if parsed is None:
                resurrected += quarantine(directory, CLAIMED, name, moment)
            elif _expired(parsed[2], lease, moment) and rename(
                directory, source=CLAIMED, name=name, target=RECOVERING, new=name
            ):
                found = _finish_recovering(
                    directory, name, max_tries, moment, retry_after=retry_after
                )
                moved += [found] if found else []
    given_up = [item for state, item in moved if state == FAILED and item is not None]
    if resurrected or moved:
        forget_listing(git_dir)
    return Recovered(resurrected + len(moved), given_up)


def _expired(reading: int, lease: float, now: float) -> bool:
    # A reading more than a lease in the future was taken before the clock jumped back; its
    # holder, if alive, would have renewed it since with the new clock.
    return abs(now - seconds_of(reading)) > lease


def _finish_recovering(
    directory: WorkDirectory,
    name: str,
    max_tries: int,
    now: float,
    *,
    count_try: bool = True,
    retry_after: RetryAfter | None = None,
) -> Moved | None:
    """Finish moving `recovering/name` forward; idempotent, so any pass may finish any crash.

    Back in pending its stamp is when it may be claimed: its enqueue time (its place in line;
    now, if that lies ahead), or now plus the backoff `retry_after` gives for its tries.
    """
    parsed = parse_claim(name)
    if parsed is None:
        return (FAILED, None) if quarantine(directory, RECOVERING, name, now) else None
    id, generation, _ = parsed
    try:
        fd, size = open_entry(directory, RECOVERING, name, append=True)
    except FileNotFoundError:
        return None
    except RecordError:
        return _give_up_recovering(directory, name, now)
    try:
        data = read_all(fd, size)
        try:
            record = decode_record(data, id)
        except RecordError:
            record = None
        if record is not None and count_try and generation not in record.tried:
            # The try is named by the claim's generation, so a repeated append counts once and a
            # torn line (power loss) fails the generation's grammar and counts not at all.
            append_line(fd, data, b"tried %s" % generation.encode(), "append try")
            record = record._replace(tried=record.tried | {generation})
    finally:
        os.close(fd)
    if record is None:
        return _give_up_recovering(directory, name, now)
    if record.tries >= max_tries:
        state, new = FAILED, stamped_name(id, micros(now))
    else:
        delay = min(retry_after(record.tries), MAX_DELAY) if retry_after is not None else 0.0
        # A backoff counts from now, whatever the record's enqueue time says: one stamped by a
        # clock that has since gone back lies ahead, and a stamp past MAX_DELAY is due at once.
        due = min(record.enqueued, micros(now)) if delay <= 0 else micros(now + delay)
        state, new = PENDING, stamped_name(id, due)
    if not rename(directory, source=RECOVERING, name=name, target=state, new=new):
        return None
    fsync_directory(directory, state)
    return state, record.item(directory.git_dir)


def _give_up_recovering(directory: WorkDirectory, name: str, now: float) -> Moved | None:
    """`recovering/name` holds no record that decodes: to failed, for the person to see."""
    new = stamped_name(id_of_entry(name), micros(now))
    if not rename(directory, source=RECOVERING, name=name, target=FAILED, new=new):
        return None
    return FAILED, None


def _recover_unfinished(directory: WorkDirectory, now: float) -> int:
    """Finish prunes, publish markers whose producer died, sweep temp files; items published."""
    with recovery_lock(directory, wait=False) as locked:
        if not locked:
            return 0
        # Published the ordinary way, as a claim would: nothing recovered, nothing counted.
        publish_ready_locked(directory)
        temp: dict[str, os.stat_result] = {}
        for name in listdir(directory, TMP):
            info = lstat(directory, TMP, name)
            if info is None or not stat.S_ISREG(info.st_mode):
                continue  # gone, or garbage (a directory, a link, a FIFO): left alone
            if name.startswith(PRUNE_PREFIX):
                _finish_prune(directory, name, info)
            else:
                temp[name] = info
        published, resurrected = _publish_orphans(directory, temp, now)
        for name, info in temp.items():
            if info.st_ino in published:
                unlink(directory, TMP, name)
            elif now - _temp_age_origin(name, info) > TMP_GRACE:
                current = lstat(directory, TMP, name)
                if current is not None and current.st_nlink == 1:
                    unlink(directory, TMP, name)
        return resurrected


def _publish_orphans(
    directory: WorkDirectory, temp: dict[str, os.stat_result], now: float
) -> tuple[set[int], int]:
    """Every marker linked nowhere but tmp/ published once its producer is gone: the inodes
    published (theirs or ours), and how many this pass published."""
    temp_names: dict[int, list[str]] = collections.defaultdict(list)
    for name, info in temp.items():
        temp_names[info.st_ino].append(name)
    published: set[int] = set()
    resurrected = 0
    for marker in listdir(directory, KNOWN):
        found = lstat(directory, KNOWN, marker)
        if found is None or not stat.S_ISREG(found.st_mode) or not ID_RE.fullmatch(marker):
            continue
        info = found
        # The marker is read before its temp links are counted again: a temp link can only
        # vanish meanwhile (its producer published), which makes this look published, never
        # the reverse.
        links = sum(
            1
            for name in temp_names.get(info.st_ino, ())
            if (now_info := lstat(directory, TMP, name)) and now_info.st_ino == info.st_ino
        )
        if info.st_nlink - links > 1:
            published.add(info.st_ino)
            continue
        outcome = _publish_orphan(directory, marker, info, now)
        resurrected += outcome
        if outcome:
            published.add(info.st_ino)
    return published, resurrected


def _temp_age_origin(name: str, info: os.stat_result) -> float:
    match = TMP_RE.fullmatch(name)
    return seconds_of(int(match["stamp"])) if match else info.st_mtime


def _publish_orphan(directory: WorkDirectory, marker: str, info: os.stat_result, now: float) -> int:
    """A marker in no state directory: its producer died between its two links, or it is torn."""
    try:
        record = decode_entry(directory, KNOWN, marker)
    except (RecordError, FileNotFoundError):
        if now - info.st_mtime <= FOREIGN_PRODUCER_GRACE:
            return 0  # a shell producer may still be writing it
        with contextlib.suppress(FileNotFoundError):
            link_marker(directory, marker, target=FAILED, new=stamped_name(marker, micros(now)))
        return 0
    if producer_may_be_alive(record, now):
        return 0
    new = stamped_name(marker, record.enqueued)
    if not link_marker(directory, marker, target=PENDING, new=new):
        return 0
    fsync_directory(directory, PENDING)
    return 1


def _finish_prune(directory: WorkDirectory, name: str, info: os.stat_result) -> None:
    marker = id_of_entry(name[len(PRUNE_PREFIX) :])
    known = lstat(directory, KNOWN, marker) if ID_RE.fullmatch(marker) else None
    if known is not None and known.st_ino == info.st_ino:
        unlink(directory, KNOWN, marker)
    unlink(directory, TMP, name)


def prune(
    git_dir: os.PathLike[str] | str,
    *,
    keep_seconds: float,
    keep_count: int,
    now: float | None = None,
) -> int:
    """Remove done records older than `keep_seconds` beyond the newest `keep_count`; failed stay."""
    moment = now_or(now)
    removed = 0
    with opened(git_dir, "cannot prune") as directory:
        if directory is None:
            return 0
        done = sorted(
            (
                (stamp, name)
                for name in listdir(directory, DONE)
                if (stamp := stamp_of(name)) is not None and is_record_file(directory, name)
            ),
            reverse=True,
        )
        old = [
            name
            for stamp, name in done[max(keep_count, 0) :]
            if moment - seconds_of(stamp) > keep_seconds
        ]
        if not old:
            return 0
        with recovery_lock(directory, wait=True):
            for name in old:
                intent = PRUNE_PREFIX + name
                if not rename(directory, source=DONE, name=name, target=TMP, new=intent):
                    continue
                info = lstat(directory, TMP, intent)
                if info is not None:
                    _finish_prune(directory, intent, info)
                removed += 1
    return removed
