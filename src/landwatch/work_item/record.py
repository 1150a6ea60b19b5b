"""The record of a work item, as bytes (docs/queue.md, "The record"), and who produced it: the
host, the boot and the pid that let recovery decide whether an unpublished marker's producer
is gone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from landwatch.work_item.names import (
    FOREIGN_PRODUCER_GRACE,
    GENERATION_RE,
    ID_RE,
    MAX_RECORD_BYTES,
    MAX_REWRITTEN,
    ORPHAN_GRACE,
    VERSION,
    RecordError,
    WorkItem,
    checked_kind,
    is_object_id,
    micros,
    seconds_of,
)

_MAGIC = b"landwatch-work-item"


class Record(NamedTuple):
    kind: str
    oid: str
    enqueued: int
    producer: tuple[str, str, int] | None
    base: str | None
    work_tree: bytes | None
    base_tries: int
    rewritten: str | None
    also_rewritten: tuple[str, ...]
    tried: frozenset[str]

    @property
    def tries(self) -> int:
        return self.base_tries + len(self.tried)

    def item(self, git_dir: Path) -> WorkItem:
        work_tree = Path(os.fsdecode(self.work_tree)) if self.work_tree else None
        return WorkItem(
            self.kind,
            self.oid,
            git_dir,
            work_tree,
            self.base,
            self.tries,
            self.rewritten,
            self.also_rewritten,
        )


def encode_record(item: WorkItem, *, enqueued: float, producer: tuple[str, str, int]) -> bytes:
    """The bytes of a fresh record (docs/queue.md); a second producer writes the same lines."""
    host, boot, pid = producer
    lines = [
        b"%s %d" % (_MAGIC, VERSION),
        b"kind " + item.kind.encode(),
        b"oid " + item.oid.encode(),
        b"enqueued %d" % micros(enqueued),
        b"producer %s %s %d" % (host.encode(), boot.encode(), pid),
    ]
    if item.base:
        lines.append(b"base " + item.base.encode())
    if item.work_tree is not None:
        raw = os.fsencode(item.work_tree)
        if b"\n" not in raw and b"\0" not in raw:
            lines.append(b"work-tree " + raw)
    if item.tries:
        lines.append(b"tries %d" % item.tries)
    if item.rewritten:
        lines.append(b"rewritten " + item.rewritten.encode())
    if item.also_rewritten:
        lines.append(b"also-rewritten " + " ".join(item.also_rewritten).encode())
    lines.append(b"end")
    return b"\n".join(lines) + b"\n"


def decode_record(data: bytes, id: str) -> Record:
    """The record in `data`, filed under `id`; RecordError when it is not a whole one."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"record larger than {MAX_RECORD_BYTES} bytes")
    lines = data.split(b"\n")
    head = lines[0].split(b" ")
    if len(head) != 2 or head[0] != _MAGIC:
        raise RecordError("not a landwatch work item")
    if head[1] != str(VERSION).encode():
        raise RecordError(f"record version {head[1][:16]!r} is not {VERSION}")
    fields, trailer = _fields(lines)
    # `landwatch retry` appends `reset`: the tries before it (and the header's) count no more.
    resets = [number for number, line in enumerate(trailer) if line == b"reset"]
    if resets:
        trailer = trailer[resets[-1] + 1 :]
    tried = frozenset(
        value.decode()
        for key, _, value in (line.partition(b" ") for line in trailer)
        if key == b"tried" and GENERATION_RE.fullmatch(value.decode("ascii", "replace"))
    )
    try:
        kind = checked_kind(fields[b"kind"].decode())
        oid = fields[b"oid"].decode()
        enqueued = int(fields[b"enqueued"])
        base = fields[b"base"].decode() if b"base" in fields else None
        base_tries = 0 if resets else int(fields.get(b"tries", b"0"))
    except (KeyError, ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"missing or bad field: {error}") from None
    if not is_object_id(oid) or (base is not None and not is_object_id(base)):
        raise RecordError("bad object id")
    if f"{kind}-{oid}" != id:
        raise RecordError(f"record of {kind}-{oid[:12]} filed under {id[:40]}")
    if enqueued < 0 or base_tries < 0:
        raise RecordError("negative number")
    # Optional, and only hints (which reviews the rewritten commit replaces): never fatal.
    rewritten = fields.get(b"rewritten", b"").decode("ascii", "replace")
    return Record(
        kind,
        oid,
        enqueued,
        _parse_producer(fields.get(b"producer")),
        base,
        fields.get(b"work-tree"),
        base_tries,
        rewritten if is_object_id(rewritten) else None,
        _also_rewritten(fields.get(b"also-rewritten"), is_object_id(rewritten)),
        tried,
    )


def _fields(lines: list[bytes], *, torn: bool = False) -> tuple[dict[bytes, bytes], list[bytes]]:
    """The `key value` lines up to `end`, and the lines appended after it (tries, resets). Of a
    `torn` record (named_record), whatever reads before the cut, the first of a repeated key."""
    fields: dict[bytes, bytes] = {}
    # A whole record's last element follows its final newline; a torn one's may be a line cut
    # short, kept as the rest are (each field is checked where it is used: an id, a work tree
    # confirmed against its git dir).
    for index, line in enumerate(lines[1:] if torn else lines[1:-1], start=2):
        key, _, value = line.partition(b" ")
        if line == b"end" or (torn and key == b"end"):  # a torn `end` cut into: the end too
            return fields, lines[index:-1]
        if key in fields and not torn:
            raise RecordError(f"field {key[:32]!r} repeated")
        fields.setdefault(key, value)
    if not torn:
        raise RecordError("truncated record (no end line)")
    return fields, []


def _also_rewritten(value: bytes | None, first: bool) -> tuple[str, ...]:
    """The other commits a squash replaced (`also-rewritten`, spaces between), within the bound
    with the `rewritten` one (`first`); an id that is not one is passed over."""
    if not value:
        return ()
    named = (each for each in value.decode("ascii", "replace").split(" ") if is_object_id(each))
    return tuple(named)[: MAX_REWRITTEN - (1 if first else 0)]


def _parse_producer(value: bytes | None) -> tuple[str, str, int] | None:
    parts = (value or b"").decode("ascii", "replace").split(" ")
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    return parts[0], parts[1], int(parts[2])


# --- who produced it ----------------------------------------------------------------------------


def _read_first_line(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.readline().strip()
    except OSError:
        return ""


# The host name gethostname(2) gives, read without importing socket (5 ms of every command).
_HOST = os.uname().nodename.replace(" ", "_") or "-"
_BOOT_ID = _read_first_line("/proc/sys/kernel/random/boot_id") or "-"


def this_producer() -> tuple[str, str, int]:
    return _HOST, _BOOT_ID, os.getpid()


def named_record(
    id: str, git_dir: os.PathLike[str] | str, torn: bytes, *, enqueued: float
) -> bytes | None:
    """The record an item's id says (its kind and commit) with what of its `torn` bytes still
    reads (a range's base, the work tree, what it rewrote), for one that does not decode (a
    write the disk lost, cut short); None for no id, or a record of another version."""
    named = ID_RE.fullmatch(id)
    version = torn.split(b"\n", 1)[0].split(b" ")[1:2] if torn.startswith(_MAGIC + b" ") else []
    if named is None or (version and version[0].isdigit() and int(version[0]) != VERSION):
        return None  # a later landwatch's record, whatever it holds, is left as it is
    fields, _ = _fields(torn.split(b"\n"), torn=True)
    base = fields.get(b"base", b"").decode("ascii", "replace")
    rewritten = fields.get(b"rewritten", b"").decode("ascii", "replace")
    tree = fields.get(b"work-tree", b"")
    item = WorkItem(
        named["kind"],
        named["oid"],
        Path(git_dir),
        work_tree=Path(os.fsdecode(tree)) if tree.startswith(b"/") and b"\0" not in tree else None,
        base=base if is_object_id(base) else None,
        rewritten=rewritten if is_object_id(rewritten) else None,
        also_rewritten=_also_rewritten(fields.get(b"also-rewritten"), is_object_id(rewritten)),
    )
    return encode_record(item, enqueued=enqueued, producer=this_producer())


def boot_time() -> int | None:
    """The wall-clock second the machine booted, as the kernel tells it now (Linux's
    /proc/stat btime): it moves with every step of the wall clock."""
    try:
        with open("/proc/stat", "rb") as file:
            for line in file:
                if line.startswith(b"btime "):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _process_start(pid: int) -> float | None:
    """Wall-clock start of a process (Linux), to notice a pid reused after a producer died."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            ticks = int(file.read().rpartition(b")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None
    boot = boot_time()
    return None if boot is None else boot + ticks / os.sysconf("SC_CLK_TCK")


def producer_may_be_alive(record: Record, now: float) -> bool:
    age = now - seconds_of(record.enqueued)
    if age < ORPHAN_GRACE:
        return True
    if record.producer is None:
        return age < FOREIGN_PRODUCER_GRACE
    host, boot, pid = record.producer
    if host != _HOST:
        return age < FOREIGN_PRODUCER_GRACE
    if boot != "-" and _BOOT_ID != "-" and boot != _BOOT_ID:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    started = _process_start(pid)
    return started is None or started <= seconds_of(record.enqueued) + 1.0
