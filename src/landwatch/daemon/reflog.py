"""One reflog file as the sweep reads it: its entries, where a pass stopped in it (`Cursor`),
whether it is still the file a cursor was taken in, where a branch born since is read from, and
where to read on after an expire rewrote it.

Only the bytes a file held are read (never past a size the caller saw), a line at a time.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from landwatch import work_item

# At most this much of one reflog is read in a pass; the rest comes at the next.
CHUNK = 4 << 20
# What is read back of the last line a cursor took, to know the file again (a line is a few
# hundred bytes: git writes a commit's subject, not its message).
LINE = 4096
# The entry git (and libgit2) writes last into a branch's reflog renamed or copied from another's.
_INHERITED = (b"Branch: renamed ", b"Branch: copied ", b"branch: renamed ")


@dataclass
class Cursor:
    """How far one reflog was read: its inode, the byte after the last entry taken, that entry's
    time and a digest of its line (to read on after it, or to skip what is older than it, if an
    expire rewrites the file; "" where no entry was taken, or an older release kept none)."""

    inode: int
    offset: int
    time: int
    last: str = ""


@dataclass
class Entry:
    old: str
    new: str
    time: int
    message: str


def parse(line: bytes) -> Entry | None:
    head, _, message = line.partition(b"\t")
    parts = head.split(b" ")
    if len(parts) < 4:
        return None
    old, new = parts[0].decode("ascii", "replace"), parts[1].decode("ascii", "replace")
    if not (work_item.is_object_id(old) and work_item.is_object_id(new)):
        return None
    try:
        time = int(parts[-2])
    except ValueError:
        return None
    return Entry(old, new, time, message.decode("utf-8", "replace"))


def digest(line: bytes) -> str:
    """What a cursor keeps of the last line it took: enough to find it again, not the line (its
    committer's name and address stay in the reflog). An entry with no message is written
    without its tab, and rewritten by an expire with it."""
    head, _, message = line.partition(b"\t")
    return hashlib.blake2b(head + b"\t" + message, digest_size=16).hexdigest()


def born(path: Path, info: os.stat_result, now: float) -> Cursor:
    """Where a branch's reflog born since the last pass is read from: its start, or just after
    the entry saying git renamed or copied it from another's (`git branch -m`, `-c`), whose
    entries before it were the other's (read there, or landed before the install)."""
    offset, after, stamp = 0, 0, 0
    with path.open("rb") as file:
        for line in file:  # once in a reflog's life
            offset += len(line)
            if offset > info.st_size or not line.endswith(b"\n"):
                break
            entry = parse(line[:-1])
            if entry is not None and line.partition(b"\t")[2].startswith(_INHERITED):
                after, stamp = offset, min(entry.time, int(now))
    return Cursor(info.st_ino, after, stamp)


def resumed(path: Path, info: os.stat_result, cursor: Cursor) -> Cursor | None:
    """Where to read on in a reflog an expire rewrote: just after the last line the cursor took,
    where the expire kept it (it keeps the entries it keeps in their order, each written as it
    was); None where it did not, or the cursor names none."""
    if not cursor.last:
        return None
    offset, after = 0, None
    with path.open("rb") as file:
        for line in file:  # once for each rewrite: a `git gc`
            offset += len(line)
            if offset > info.st_size or not line.endswith(b"\n"):
                break
            if digest(line[:-1]) == cursor.last:
                after = offset  # the last one: a line written twice was read twice
    return None if after is None else Cursor(info.st_ino, after, cursor.time, cursor.last)


def continues(path: Path, cursor: Cursor) -> bool:
    """Whether the reflog at `path` is the one the cursor was taken in, grown since: the line
    before its offset is the last one it took. A reflog deleted and made again may be given the
    inode of the one deleted, and be as long by now. True where that cannot be told (no line
    taken, an older release's cursor, a line longer than what is read of it)."""
    if not cursor.last or cursor.offset == 0:
        return True
    start = max(0, cursor.offset - LINE)
    with path.open("rb") as file:
        file.seek(start)
        data = file.read(cursor.offset - start)
    if not data.endswith(b"\n"):
        return False  # no line ends where the cursor stopped: another file
    _, newline, line = data[:-1].rpartition(b"\n")
    return (start > 0 and not newline) or digest(line) == cursor.last


def time_before(path: Path, offset: int, now: float) -> int:
    """The second after the newest reflog entry before `offset` (each was read; their times need
    not be in order: a commit may be dated before its parent), of those not dated after `now`
    (one stamped ahead would hold a rewritten reflog back); 0 for none."""
    newest, rest = -1, b""
    with path.open("rb") as file:
        while file.tell() < offset and (chunk := file.read(min(CHUNK, offset - file.tell()))):
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                if (entry := parse(line)) is not None and entry.time <= now:
                    newest = max(newest, entry.time)
    return newest + 1 if newest >= 0 else 0
