"""The pending listing: FIFO order without a directory scan per claim. A consumer reads pending/
once a LISTING_TTL (or when told something changed) and pops the oldest name of the kinds it
works; before reading it, it publishes what the hooks said is whole (ready/ -> pending/).
"""

from __future__ import annotations

import collections
import os
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from landwatch.work_item.directory import (
    WorkDirectory,
    decode_entry,
    link_marker,
    listdir,
    lstat,
    opened,
    quarantine,
    recovery_lock,
    unlink,
)
from landwatch.work_item.names import (
    KNOWN,
    LISTING_TTL,
    MAX_DELAY,
    PENDING,
    READY,
    STAMPED_RE,
    RecordError,
    checked_kind,
    id_of_entry,
    micros,
    now_or,
    seconds_of,
    stamped,
    stamped_name,
)


@dataclass
class Listing:
    taken: float
    by_kind: dict[str, collections.deque[tuple[int, str]]]


_listings: dict[str, Listing] = {}
_listings_lock = threading.Lock()


def _key(git_dir: os.PathLike[str] | str) -> str:
    return os.path.abspath(git_dir)


def forget_listing(git_dir: os.PathLike[str] | str) -> None:
    """Make the next claim re-read the pending directory (a consumer calls it on file events)."""
    with _listings_lock:
        _listings.pop(_key(git_dir), None)


def wanted_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """The kinds a consumer asked for, checked, once each, in one order."""
    return tuple(sorted({checked_kind(kind) for kind in kinds}))


def take_listing(directory: WorkDirectory, now: float) -> Listing:
    """pending/ read afresh (ready/ published first); names that are not items quarantined."""
    publish_ready_in(directory)
    names = listdir(directory, PENDING)
    found = stamped(names)
    if len(found) < len(names):
        for name in set(names).difference(name for name, _, _ in found):
            quarantine(directory, PENDING, name, now)
    by_kind: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for name, kind, stamp in found:
        by_kind[kind].append((int(stamp), name))
    return Listing(
        time.monotonic(),
        {kind: collections.deque(sorted(entries)) for kind, entries in by_kind.items()},
    )


def kept_listing(git_dir: os.PathLike[str] | str) -> Listing | None:
    """The listing read less than LISTING_TTL ago, if there is one."""
    with _listings_lock:
        listing = _listings.get(_key(git_dir))
    if listing is None or time.monotonic() - listing.taken > LISTING_TTL:
        return None
    return listing


def pop_oldest(
    directory: WorkDirectory, kinds: tuple[str, ...], now: float, *, relist: bool
) -> str | None:
    """The oldest pending name of `kinds` that may be claimed `now`, taken off the kept listing
    (None when it is stale or has none), or with `relist` off one read afresh."""
    if not relist:
        listing = kept_listing(directory.git_dir)
        if listing is None:
            return None
        with _listings_lock:
            return _pop(listing, kinds, micros(now))
    listing = take_listing(directory, now)
    with _listings_lock:
        _listings[_key(directory.git_dir)] = listing
        return _pop(listing, kinds, micros(now))


def _pop(listing: Listing, kinds: tuple[str, ...], due_by: int) -> str | None:
    """The oldest name of `kinds` that may be claimed at `due_by` (a name's stamp is when)."""
    firsts = []
    for kind in kinds:
        queue = listing.by_kind.get(kind)
        if not queue:
            continue
        if due(queue[0][0], due_by):
            firsts.append((queue[0], kind, 0))
        elif due(queue[-1][0], due_by):
            # Only after the clock went back: the due ones are at the end, past every backoff.
            at = next(i for i, (stamp, _) in enumerate(queue) if due(stamp, due_by))
            firsts.append((queue[at], kind, at))
    if not firsts:
        return None
    _, kind, at = min(firsts)
    queue = listing.by_kind[kind]
    if at == 0:
        return queue.popleft()[1]
    entry = queue[at]
    del queue[at]
    return entry[1]


def due(stamp: int, now: int) -> bool:
    return stamp <= now or stamp > now + micros(MAX_DELAY)


def next_due(
    git_dir: os.PathLike[str] | str, kinds: Iterable[str], *, now: float | None = None
) -> float | None:
    """Seconds until the first pending item of `kinds` may be claimed (0: one may now; None:
    none waits), from the claims' listing: no directory scan when it is fresh."""
    wanted = wanted_kinds(kinds)
    moment = now_or(now)
    listing = kept_listing(git_dir)
    if listing is None:
        with opened(git_dir, "cannot list what waits in") as directory:
            if directory is None:
                return None
            listing = take_listing(directory, moment)
        with _listings_lock:
            _listings[_key(git_dir)] = listing
    heads = [queue[0][0] for kind in wanted if (queue := listing.by_kind.get(kind))]
    if not heads:
        return None
    if any(due(stamp, micros(moment)) for stamp in heads):
        return 0.0
    return seconds_of(min(heads)) - moment


# --- publishing what the hooks said is whole -----------------------------------------------------


def publish_ready(git_dir: os.PathLike[str] | str) -> int:
    """Publish every marker a producer said is whole (`ready/`) into pending/; how many.

    Claims do it before each listing of pending/; any consumer (or a test) may call it first."""
    with opened(git_dir, "cannot publish in") as directory:
        return 0 if directory is None else publish_ready_in(directory)


def publish_ready_in(directory: WorkDirectory) -> int:
    if not listdir(directory, READY):
        return 0
    with recovery_lock(directory, wait=True):
        return publish_ready_locked(directory)


def publish_ready_locked(directory: WorkDirectory) -> int:
    return sum(_publish_one_ready(directory, name) for name in listdir(directory, READY))


def _publish_one_ready(directory: WorkDirectory, name: str) -> int:
    """Under the recovery lock, so that no other publisher links the marker between our look at
    its link count and our link: an item claimed meanwhile would be published twice."""
    ready = lstat(directory, READY, name)
    if ready is None:
        return 0
    if not stat.S_ISREG(ready.st_mode):
        # Garbage (a directory, a link, a FIFO), never opened: out of the way, as in pending/.
        quarantine(directory, READY, name, now_or(None))
        return 0
    match = STAMPED_RE.fullmatch(name)
    marker = id_of_entry(name)
    info = lstat(directory, KNOWN, marker) if match else None
    published = 0
    # One link: only known/. More: published already (by an earlier pass that died before
    # removing the doorbell, or by recovery). No marker, or not a regular one: nothing to publish.
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        try:
            record = decode_entry(directory, KNOWN, marker)
        except (RecordError, FileNotFoundError):
            record = None  # torn: recovery moves it to failed/ once its producer is surely gone
        if record is not None:
            new = stamped_name(marker, record.enqueued)
            published = int(link_marker(directory, marker, target=PENDING, new=new))
    unlink(directory, READY, name)
    return published
