"""The durable work-item record and its state directories (enqueue, claim, renew, settle, requeue).

A file per item inside the worktree's own git dir, moved between state directories by rename; the
protocol, the naming grammar and the crash analysis are written down in docs/queue.md.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import errno
import fcntl
import hashlib
import os
import re
import secrets
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

VERSION = 1
WORK_DIRECTORY = "landwatch"

PENDING = "pending"
CLAIMED = "claimed"
RECOVERING = "recovering"
DONE = "done"
FAILED = "failed"
STATES = (PENDING, CLAIMED, RECOVERING, DONE, FAILED)

# Not state directories: they hold temp files, dedup markers and the recovery lock.
TMP = "tmp"
KNOWN = "known"
# `<id>.<enqueued>`, empty: a producer that cannot link (the shell hooks) says its marker is
# whole; a consumer links the marker into pending/ for it (`publish_ready`). Not a state.
READY = "ready"
RECOVERY_LOCK = "recovery.lock"

MAX_RECORD_BYTES = 64 * 1024
# A marker nobody published is resurrected only once its producer is gone and this much older,
# so that an `ln` left running by a killed shell hook cannot publish a second copy.
ORPHAN_GRACE = 10.0
# Producers on another host cannot be asked whether they are alive; wait this long for them.
FOREIGN_PRODUCER_GRACE = 3600.0
# Temp files linked to nothing are swept after this long (Maildir readers use 36 hours).
TMP_GRACE = 3600.0
# A consumer re-reads the pending directory at least this often (monotonic seconds), so items
# published by other processes are seen in FIFO order without a directory scan per claim.
LISTING_TTL = 1.0
# The longest an item given back may be made to wait. A pending stamp further ahead than this
# was not given by a backoff but by a clock that went back since: it is due at once.
MAX_DELAY = 6 * 3600.0

_MAGIC = b"landwatch-work-item"
_OID = r"[0-9a-f]{40}|[0-9a-f]{64}"
_KIND = r"[a-z][a-z0-9_]{0,31}"
_ID = rf"(?P<kind>{_KIND})-(?P<oid>{_OID})"
_STAMP = r"(?P<stamp>0|[1-9][0-9]{0,18})"
_GENERATION = r"[0-9a-f]{16}"
_OID_RE = re.compile(_OID)
_KIND_RE = re.compile(_KIND)
_ID_RE = re.compile(_ID)
_STAMPED_RE = re.compile(rf"{_ID}\.{_STAMP}")
_CLAIM_RE = re.compile(rf"{_ID}\.(?P<generation>{_GENERATION})\.{_STAMP}")
_GENERATION_RE = re.compile(_GENERATION)
_STAMPED_LINES_RE = re.compile(rf"^((?P<kind>{_KIND})-(?:{_OID})\.{_STAMP})$", re.MULTILINE)
_TMP_RE = re.compile(rf"{_ID}\.{_STAMP}\.[0-9]+\.[0-9a-f]+")
_PRUNE_PREFIX = "prune."

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Anything in a state directory may be garbage: a symlink, a FIFO, a directory.
_GARBAGE_ERRNOS = {errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR, errno.EMLINK}


class WorkKind(enum.StrEnum):
    """The kinds the built-in hooks record; any name of the kind grammar is a kind all the same."""

    REVIEW = "review"
    PUSH = "push"
    MAINTENANCE = "maintenance"


class Enqueued(enum.Enum):
    ADDED = "added"
    KNOWN = "known"


class QueueError(Exception):
    """A work directory that cannot be used (full disk, read-only, not ours): one line to show."""


class RecordError(ValueError):
    """A record that does not decode: garbage, truncated, a wrong version or a wrong name."""


@dataclass(frozen=True)
class WorkItem:
    kind: str  # a WorkKind, or any name of the kind grammar (docs/queue.md)
    oid: str
    git_dir: Path
    work_tree: Path | None = None
    base: str | None = None
    tries: int = 0
    rewritten: str | None = None  # the commit a rebase or amend replaced by this one

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(self.kind))
        # Made for every claim: a path already one is not parsed again.
        if not isinstance(self.git_dir, Path):
            object.__setattr__(self, "git_dir", Path(self.git_dir))
        if self.work_tree is not None and not isinstance(self.work_tree, Path):
            object.__setattr__(self, "work_tree", Path(self.work_tree))
        if not _OID_RE.fullmatch(self.oid):
            raise ValueError(f"not a full lowercase object id: {self.oid!r}")
        for oid in (self.base, self.rewritten):
            if oid is not None and not _OID_RE.fullmatch(oid):
                raise ValueError(f"not a full lowercase object id: {oid!r}")
        if self.tries < 0:
            raise ValueError(f"tries cannot be negative: {self.tries}")

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.oid}"


@dataclass(frozen=True)
class Claimed:
    item: WorkItem
    id: str
    name: str


@dataclass
class Recovered:
    moved: int = 0
    failed: list[WorkItem] = field(default_factory=list)


# --- names -------------------------------------------------------------------------------------


def state_directory(git_dir: os.PathLike[str] | str, state: str) -> Path:
    if state not in STATES:
        raise ValueError(f"not a state directory: {state!r}")
    return Path(git_dir) / WORK_DIRECTORY / state


def _kind(kind: str) -> str:
    if not isinstance(kind, str) or not _KIND_RE.fullmatch(kind):
        raise ValueError(f"not a kind name ([a-z][a-z0-9_]{{0,31}}): {kind!r}")
    return str(kind)


def claim_file_name(id: str, generation: str, reading: float) -> str:
    if not _ID_RE.fullmatch(id):
        raise ValueError(f"not a work item id: {id!r}")
    if not _GENERATION_RE.fullmatch(generation):
        raise ValueError(f"not a claim generation: {generation!r}")
    return f"{id}.{generation}.{_micros(reading)}"


def id_of_entry(name: str) -> str:
    return name.partition(".")[0]


def new_generation() -> str:
    return secrets.token_hex(8)


def _micros(seconds: float) -> int:
    return max(0, round(seconds * 1_000_000))


def _seconds(micros: int) -> float:
    return micros / 1_000_000


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _stamped_name(id: str, micros: int) -> str:
    return f"{id}.{micros}"


def _invalid_name(name: str, micros: int) -> str:
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    return f"invalid-{digest}.{micros}"


def _parse_claim(name: str) -> tuple[str, str, int] | None:
    """(id, generation, reading) of a claim; a bare id is a claim an older release wrote."""
    match = _CLAIM_RE.fullmatch(name)
    if match:
        return id_of_entry(name), match["generation"], int(match["stamp"])
    if _ID_RE.fullmatch(name):
        return name, "0" * 16, 0
    return None


def _stamp_of(name: str) -> int | None:
    match = _STAMPED_RE.fullmatch(name)
    return int(match["stamp"]) if match else None


def _stamped(names: list[str]) -> list[tuple[str, str, str]]:
    """(name, kind, stamp) of every well-formed `<id>.<stamp>` name, in one regex pass.

    Listings of thousands of names are parsed on the hooks' and the claims' paths; one findall
    over the joined names is several times faster than a match per name.
    """
    text = "\n".join(name for name in names if "\n" not in name)
    return _STAMPED_LINES_RE.findall(text)


# --- the record --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Record:
    kind: str
    oid: str
    enqueued: int
    producer: tuple[str, str, int] | None
    base: str | None
    work_tree: bytes | None
    base_tries: int
    rewritten: str | None
    tried: frozenset[str]

    @property
    def tries(self) -> int:
        return self.base_tries + len(self.tried)

    def item(self, git_dir: Path) -> WorkItem:
        work_tree = Path(os.fsdecode(self.work_tree)) if self.work_tree else None
        return WorkItem(
            self.kind, self.oid, git_dir, work_tree, self.base, self.tries, self.rewritten
        )


def encode_record(item: WorkItem, *, enqueued: float, producer: tuple[str, str, int]) -> bytes:
    """The bytes of a fresh record (docs/queue.md); a second producer writes the same lines."""
    host, boot, pid = producer
    lines = [
        b"%s %d" % (_MAGIC, VERSION),
        b"kind " + item.kind.encode(),
        b"oid " + item.oid.encode(),
        b"enqueued %d" % _micros(enqueued),
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
    lines.append(b"end")
    return b"\n".join(lines) + b"\n"


def _decode_record(data: bytes, id: str) -> _Record:
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"record larger than {MAX_RECORD_BYTES} bytes")
    lines = data.split(b"\n")
    head = lines[0].split(b" ")
    if len(head) != 2 or head[0] != _MAGIC:
        raise RecordError("not a landwatch work item")
    if head[1] != str(VERSION).encode():
        raise RecordError(f"record version {head[1][:16]!r} is not {VERSION}")
    fields: dict[bytes, bytes] = {}
    index = 1
    while True:
        if index >= len(lines) - 1:  # the last element follows the final newline
            raise RecordError("truncated record (no end line)")
        line = lines[index]
        index += 1
        if line == b"end":
            break
        key, _, value = line.partition(b" ")
        if key in fields:
            raise RecordError(f"field {key[:32]!r} repeated")
        fields[key] = value
    trailer = lines[index:-1]
    # `landwatch retry` appends `reset`: the tries before it (and the header's) count no more.
    resets = [number for number, line in enumerate(trailer) if line == b"reset"]
    if resets:
        trailer = trailer[resets[-1] + 1 :]
    tried = frozenset(
        value.decode()
        for key, _, value in (line.partition(b" ") for line in trailer)
        if key == b"tried" and _GENERATION_RE.fullmatch(value.decode("ascii", "replace"))
    )
    try:
        kind = _kind(fields[b"kind"].decode())
        oid = fields[b"oid"].decode()
        enqueued = int(fields[b"enqueued"])
        base = fields[b"base"].decode() if b"base" in fields else None
        base_tries = 0 if resets else int(fields.get(b"tries", b"0"))
    except (KeyError, ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"missing or bad field: {error}") from None
    if not _OID_RE.fullmatch(oid) or (base is not None and not _OID_RE.fullmatch(base)):
        raise RecordError("bad object id")
    if f"{kind}-{oid}" != id:
        raise RecordError(f"record of {kind}-{oid[:12]} filed under {id[:40]}")
    if enqueued < 0 or base_tries < 0:
        raise RecordError("negative number")
    # Optional, and only a hint (which review the rewritten commit replaces): never fatal.
    rewritten = fields.get(b"rewritten", b"").decode("ascii", "replace")
    return _Record(
        kind,
        oid,
        enqueued,
        _parse_producer(fields.get(b"producer")),
        base,
        fields.get(b"work-tree"),
        base_tries,
        rewritten if _OID_RE.fullmatch(rewritten) else None,
        tried,
    )


def _parse_producer(value: bytes | None) -> tuple[str, str, int] | None:
    parts = (value or b"").decode("ascii", "replace").split(" ")
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    return parts[0], parts[1], int(parts[2])


# --- producer identity (for deciding whether an unpublished marker's producer is gone) ----------


def _read_first_line(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.readline().strip()
    except OSError:
        return ""


_HOST = socket.gethostname().replace(" ", "_") or "-"
_BOOT_ID = _read_first_line("/proc/sys/kernel/random/boot_id") or "-"


def this_producer() -> tuple[str, str, int]:
    return _HOST, _BOOT_ID, os.getpid()


def _process_start(pid: int) -> float | None:
    """Wall-clock start of a process (Linux), to notice a pid reused after a producer died."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            ticks = int(file.read().rpartition(b")")[2].split()[19])
        with open("/proc/stat", "rb") as file:
            boot = next(int(line.split()[1]) for line in file if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _producer_may_be_alive(record: _Record, now: float) -> bool:
    age = now - _seconds(record.enqueued)
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
    return started is None or started <= _seconds(record.enqueued) + 1.0


# --- crash-point injection ---------------------------------------------------------------------

# Tests set this to a function that kills the process at a named step (tests/queue_helpers.py).
_fault_hook: Callable[[str], None] | None = None


def _checkpoint(step: str) -> None:
    if _fault_hook is not None:
        _fault_hook(step)


# --- directories -------------------------------------------------------------------------------


class _WorkDirectory:
    """Directory fds of one work directory, opened without following any symlink inside it."""

    def __init__(self, git_dir: os.PathLike[str] | str, *, create: bool) -> None:
        self.git_dir = Path(git_dir)
        self.root = -1
        self._fds: dict[str, int] = {}
        work = os.path.join(git_dir, WORK_DIRECTORY)
        try:
            self.root = os.open(work, _DIRECTORY_FLAGS)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(work, 0o700)
                _checkpoint("mkdir")
            self.root = os.open(work, _DIRECTORY_FLAGS)
        _require_own_directory(self.root, work)

    def fd(self, name: str) -> int:
        if name not in self._fds:
            try:
                self._fds[name] = os.open(name, _DIRECTORY_FLAGS, dir_fd=self.root)
            except FileNotFoundError:
                # Inside an existing work directory every directory is made on first use.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=self.root)
                    _checkpoint("mkdir")
                self._fds[name] = os.open(name, _DIRECTORY_FLAGS, dir_fd=self.root)
            _require_own_directory(self._fds[name], name, self)
        return self._fds[name]

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        if self.root >= 0:
            os.close(self.root)
            self.root = -1

    def __enter__(self) -> _WorkDirectory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _require_own_directory(fd: int, name: str, parent: _WorkDirectory | None = None) -> None:
    info = os.fstat(fd)
    if info.st_uid != os.getuid():
        where = os.path.join(parent.git_dir, WORK_DIRECTORY, name) if parent else name
        raise QueueError(f"{where} belongs to uid {info.st_uid}, not to you; not touching it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.fchmod(fd, 0o700)


@contextlib.contextmanager
def _existing(git_dir: os.PathLike[str] | str, doing: str) -> Iterator[_WorkDirectory | None]:
    """The work directory if it exists; None when the repository never had one (or vanished).

    Any OSError of the work done in it becomes one QueueError saying what was being `doing`:
    every public function fails the same way.
    """
    try:
        directory = _WorkDirectory(git_dir, create=False)
    except FileNotFoundError:
        # Nothing there when we looked (a producer may be making it this instant): nothing waits.
        yield None
        return
    except OSError as error:
        if error.errno in (errno.ENOTDIR, errno.ELOOP):
            work = os.path.join(git_dir, WORK_DIRECTORY)
            raise QueueError(f"landwatch: {work} is not a directory; not following it") from None
        raise _queue_error("cannot open the work directory of", git_dir, error) from None
    try:
        yield directory
    except OSError as error:
        raise _queue_error(doing, git_dir, error) from None
    finally:
        directory.close()


@contextlib.contextmanager
def _created(git_dir: os.PathLike[str] | str, doing: str) -> Iterator[_WorkDirectory]:
    """The work directory, made if missing; OSErrors become a QueueError as in `_existing`."""
    try:
        directory = _WorkDirectory(git_dir, create=True)
    except OSError as error:
        raise _queue_error(doing, git_dir, error) from None
    try:
        yield directory
    except OSError as error:
        raise _queue_error(doing, git_dir, error) from None
    finally:
        directory.close()


def _queue_error(what: str, where: os.PathLike[str] | str, error: OSError) -> QueueError:
    return QueueError(f"landwatch: {what} {where}: {error.strerror or error}")


def _listdir(directory: _WorkDirectory, name: str) -> list[str]:
    try:
        return os.listdir(directory.fd(name))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        if error.errno in _GARBAGE_ERRNOS:
            return []
        raise


def _fsync_directory(directory: _WorkDirectory, name: str) -> None:
    os.fsync(directory.fd(name))
    _checkpoint(f"fsync {name}")


def _rename(directory: _WorkDirectory, *, source: str, name: str, target: str, new: str) -> bool:
    """Move exactly `source/name`; False when it is no longer there (someone else moved it)."""
    try:
        os.rename(name, new, src_dir_fd=directory.fd(source), dst_dir_fd=directory.fd(target))
    except FileNotFoundError:
        return False
    _checkpoint(f"rename {source} {target}")
    return True


def _link_marker(directory: _WorkDirectory, marker: str, *, target: str, new: str) -> bool:
    """Give the record of `known/marker` the name `target/new`; False when that name exists."""
    try:
        os.link(
            marker,
            new,
            src_dir_fd=directory.fd(KNOWN),
            dst_dir_fd=directory.fd(target),
            follow_symlinks=False,
        )
    except FileExistsError:
        return False
    _checkpoint(f"link {target}")
    return True


def _unlink(directory: _WorkDirectory, where: str, name: str) -> bool:
    try:
        os.unlink(name, dir_fd=directory.fd(where))
    except FileNotFoundError:
        return False
    _checkpoint(f"unlink {where}")
    return True


def _is_record_file(directory: _WorkDirectory, name: str) -> bool:
    """Whether done/`name` is a regular file: a directory or a link there is garbage to leave."""
    info = _lstat(directory, DONE, name)
    return info is not None and stat.S_ISREG(info.st_mode)


def _lstat(directory: _WorkDirectory, where: str, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=directory.fd(where), follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _read_entry(
    directory: _WorkDirectory, where: str, name: str, *, append: bool = False
) -> tuple[int, int]:
    """Open a regular file of a state directory: its fd and size; RecordError when the entry
    is not one."""
    flags = (os.O_RDWR | os.O_APPEND | (_READ_FLAGS & ~os.O_RDONLY)) if append else _READ_FLAGS
    try:
        fd = os.open(name, flags, dir_fd=directory.fd(where))
    except OSError as error:
        if error.errno in _GARBAGE_ERRNOS:
            raise RecordError(f"not a regular file ({error.strerror})") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RECORD_BYTES:
        os.close(fd)
        raise RecordError("not a regular file of a sane size")
    return fd, info.st_size


def _read_all(fd: int, size: int) -> bytes:
    """The bytes of a record fstat found `size` long: one read as a rule, of that size (a buffer
    the size of the largest record allowed costs more to allocate than the read itself)."""
    data = os.read(fd, size + 1)
    if len(data) == size:  # fewer bytes than asked for: the end of the file
        return data
    chunks, total = [data], len(data)
    while total <= MAX_RECORD_BYTES and (chunk := os.read(fd, MAX_RECORD_BYTES + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _decode_entry(directory: _WorkDirectory, where: str, name: str) -> _Record:
    fd, size = _read_entry(directory, where, name)
    try:
        return _decode_record(_read_all(fd, size), id_of_entry(name))
    finally:
        os.close(fd)


# --- enqueue -----------------------------------------------------------------------------------


def ensure_work_directory(git_dir: os.PathLike[str] | str) -> Path:
    """Create the work directory and every directory in it (0700); its path."""
    with _created(git_dir, "cannot create the work directory in") as directory:
        for name in (TMP, KNOWN, READY, *STATES):
            directory.fd(name)
    return Path(git_dir) / WORK_DIRECTORY


def enqueue(item: WorkItem, *, now: float | None = None) -> Enqueued:
    """Record `item` as pending unless its id is known in any state; whole or absent."""
    moment = _now(now)
    data = encode_record(item, enqueued=moment, producer=this_producer())
    tmp_name = f"{item.id}.{_micros(moment)}.{os.getpid()}.{secrets.token_hex(4)}"
    with _created(item.git_dir, f"cannot record {item.id[:19]} in") as directory:
        result = _publish(directory, item.id, tmp_name, data, _micros(moment))
    if result is Enqueued.ADDED:
        forget_listing(item.git_dir)
    return result


def _publish(directory: _WorkDirectory, id: str, tmp: str, data: bytes, stamp: int) -> Enqueued:
    tmp_fd, known_fd, pending_fd = directory.fd(TMP), directory.fd(KNOWN), directory.fd(PENDING)
    fd = os.open(
        tmp,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=tmp_fd,
    )
    _checkpoint("create tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        _checkpoint("write tmp")
        try:
            os.link(tmp, id, src_dir_fd=tmp_fd, dst_dir_fd=known_fd, follow_symlinks=False)
        except FileExistsError:
            return Enqueued.KNOWN
        _checkpoint("link known")
        # The marker is the enqueue: if recovery took this producer for dead and published the
        # marker itself (EEXIST), or swept the temp file after a stall of TMP_GRACE (ENOENT), the
        # item is in the queue all the same.
        with contextlib.suppress(FileExistsError, FileNotFoundError):
            os.link(
                tmp,
                _stamped_name(id, stamp),
                src_dir_fd=tmp_fd,
                dst_dir_fd=pending_fd,
                follow_symlinks=False,
            )
            _checkpoint("link pending")
        _fsync_directory(directory, KNOWN)
        _fsync_directory(directory, PENDING)
        return Enqueued.ADDED
    finally:
        # Recovery may already have swept it once the item was published.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=tmp_fd)
            _checkpoint("unlink tmp")


def publish_ready(git_dir: os.PathLike[str] | str) -> int:
    """Publish every marker a producer said is whole (`ready/`) into pending/; how many.

    Claims do it before each listing of pending/; any consumer (or a test) may call it first."""
    with _existing(git_dir, "cannot publish in") as directory:
        return 0 if directory is None else _publish_ready(directory)


def _publish_ready(directory: _WorkDirectory) -> int:
    if not _listdir(directory, READY):
        return 0
    with _recovery_lock(directory, wait=True):
        return _publish_ready_locked(directory)


def _publish_ready_locked(directory: _WorkDirectory) -> int:
    return sum(_publish_one_ready(directory, name) for name in _listdir(directory, READY))


def _publish_one_ready(directory: _WorkDirectory, name: str) -> int:
    """Under the recovery lock, so that no other publisher links the marker between our look at
    its link count and our link: an item claimed meanwhile would be published twice."""
    ready = _lstat(directory, READY, name)
    if ready is None:
        return 0
    if not stat.S_ISREG(ready.st_mode):
        # Garbage (a directory, a link, a FIFO), never opened: out of the way, as in pending/.
        _quarantine(directory, READY, name, _now(None))
        return 0
    match = _STAMPED_RE.fullmatch(name)
    marker = id_of_entry(name)
    info = _lstat(directory, KNOWN, marker) if match else None
    published = 0
    # One link: only known/. More: published already (by an earlier pass that died before
    # removing the doorbell, or by recovery). No marker, or not a regular one: nothing to publish.
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        try:
            record = _decode_entry(directory, KNOWN, marker)
        except (RecordError, FileNotFoundError):
            record = None  # torn: recovery moves it to failed/ once its producer is surely gone
        if record is not None:
            new = _stamped_name(marker, record.enqueued)
            published = int(_link_marker(directory, marker, target=PENDING, new=new))
    _unlink(directory, READY, name)
    return published


# --- the pending listing: FIFO without a directory scan per claim ------------------------------


@dataclass
class _Listing:
    taken: float
    by_kind: dict[str, collections.deque[tuple[int, str]]]


_listings: dict[str, _Listing] = {}
_listings_lock = threading.Lock()


def _listing_key(git_dir: os.PathLike[str] | str) -> str:
    return os.path.abspath(git_dir)


def forget_listing(git_dir: os.PathLike[str] | str) -> None:
    """Make the next claim re-read the pending directory (a consumer calls it on file events)."""
    with _listings_lock:
        _listings.pop(_listing_key(git_dir), None)


def _take_listing(directory: _WorkDirectory, now: float) -> _Listing:
    _publish_ready(directory)
    names = _listdir(directory, PENDING)
    stamped = _stamped(names)
    if len(stamped) < len(names):
        for name in set(names).difference(name for name, _, _ in stamped):
            _quarantine(directory, PENDING, name, now)
    by_kind: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for name, kind, stamp in stamped:
        by_kind[kind].append((int(stamp), name))
    return _Listing(
        time.monotonic(),
        {kind: collections.deque(sorted(entries)) for kind, entries in by_kind.items()},
    )


def _pop_oldest(listing: _Listing, kinds: tuple[str, ...], due_by: int) -> str | None:
    """The oldest name of `kinds` that may be claimed at `due_by` (a name's stamp is when)."""
    firsts = []
    for kind in kinds:
        queue = listing.by_kind.get(kind)
        if not queue:
            continue
        if _due(queue[0][0], due_by):
            firsts.append((queue[0], kind, 0))
        elif _due(queue[-1][0], due_by):
            # Only after the clock went back: the due ones are at the end, past every backoff.
            at = next(i for i, (stamp, _) in enumerate(queue) if _due(stamp, due_by))
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


def _due(stamp: int, now: int) -> bool:
    return stamp <= now or stamp > now + _micros(MAX_DELAY)


def _quarantine(directory: _WorkDirectory, where: str, name: str, now: float) -> bool:
    """Move an entry that is not a record out of the way, into failed, under a safe name."""
    return _rename(
        directory, source=where, name=name, target=FAILED, new=_invalid_name(name, _micros(now))
    )


# --- claim -------------------------------------------------------------------------------------


def claim_next(git_dir: os.PathLike[str] | str, *, now: float | None = None) -> Claimed | None:
    """Claim the oldest pending item of a built-in kind; None when there is none."""
    return claim_next_of(git_dir, list(WorkKind), now=now)


def claim_next_of(
    git_dir: os.PathLike[str] | str, kinds: Iterable[str], *, now: float | None = None
) -> Claimed | None:
    """Claim the oldest pending item of `kinds` (those the consumer can work: items of any other
    kind are left for a consumer that can); None when there is none."""
    with _existing(git_dir, "cannot claim from") as directory:
        if directory is None:
            return None
        return _claim_next_in(directory, _kinds(kinds), _now(now))


def _kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """The kinds a consumer asked for, checked, once each, in one order."""
    return tuple(sorted({_kind(kind) for kind in kinds}))


def _claim_next_in(
    directory: _WorkDirectory, wanted: tuple[str, ...], moment: float
) -> Claimed | None:
    key = _listing_key(directory.git_dir)
    relisted = False
    while True:
        with _listings_lock:
            listing = _listings.get(key)
            stale = listing is None or time.monotonic() - listing.taken > LISTING_TTL
            if stale or listing is None:
                name = None
            else:
                name = _pop_oldest(listing, wanted, _micros(moment))
        if name is None:
            if relisted:
                return None
            fresh = _take_listing(directory, moment)
            with _listings_lock:
                _listings[key] = fresh
            relisted = True
            continue
        claimed = _claim(directory, name, moment)
        if claimed is not None:
            return claimed


def next_due(
    git_dir: os.PathLike[str] | str, kinds: Iterable[str], *, now: float | None = None
) -> float | None:
    """Seconds until the first pending item of `kinds` may be claimed (0: one may now; None:
    none waits), from the claims' listing: no directory scan when it is fresh."""
    wanted = tuple(sorted({_kind(kind) for kind in kinds}))
    moment = _now(now)
    key = _listing_key(git_dir)
    with _listings_lock:
        listing = _listings.get(key)
        fresh = listing is not None and time.monotonic() - listing.taken <= LISTING_TTL
    if not fresh:
        with _existing(git_dir, "cannot list what waits in") as directory:
            if directory is None:
                return None
            listing = _take_listing(directory, moment)
        with _listings_lock:
            _listings[key] = listing
    assert listing is not None
    heads = [queue[0][0] for kind in wanted if (queue := listing.by_kind.get(kind))]
    if not heads:
        return None
    if any(_due(stamp, _micros(moment)) for stamp in heads):
        return 0.0
    return _seconds(min(heads)) - moment


def _claim(directory: _WorkDirectory, name: str, now: float) -> Claimed | None:
    id = id_of_entry(name)
    claim = claim_file_name(id, new_generation(), now)
    if not _rename(directory, source=PENDING, name=name, target=CLAIMED, new=claim):
        return None
    try:
        record = _decode_entry(directory, CLAIMED, claim)
    except RecordError:
        _rename(
            directory,
            source=CLAIMED,
            name=claim,
            target=FAILED,
            new=_stamped_name(id, _micros(now)),
        )
        _fsync_directory(directory, FAILED)
        return None
    return Claimed(record.item(directory.git_dir), id, claim)


def find_claim(git_dir: os.PathLike[str] | str, id: str) -> Path | None:
    with _existing(git_dir, "cannot look for a claim in") as directory:
        if directory is None:
            return None
        for state in (CLAIMED, RECOVERING):
            for name in _listdir(directory, state):
                if id_of_entry(name) == id:
                    return directory.git_dir / WORK_DIRECTORY / state / name
    return None


def renew_claim(
    git_dir: os.PathLike[str] | str, name: str, *, now: float | None = None
) -> str | None:
    """Restart the lease of exactly `name`; None when that name is no longer claimed."""
    parsed = _CLAIM_RE.fullmatch(name)
    if parsed is None:
        return None
    renewed = claim_file_name(id_of_entry(name), parsed["generation"], _now(now))
    with _existing(git_dir, "cannot renew a claim in") as directory:
        if directory is None:
            return None
        if renewed == name:
            return name if _lstat(directory, CLAIMED, name) is not None else None
        return (
            renewed
            if _rename(directory, source=CLAIMED, name=name, target=CLAIMED, new=renewed)
            else None
        )


# --- settle ------------------------------------------------------------------------------------


def settle(
    git_dir: os.PathLike[str] | str,
    claimed: Claimed,
    state: str = DONE,
    *,
    now: float | None = None,
) -> bool:
    return settle_named(git_dir, claimed.name, state, now=now)


def settle_named(
    git_dir: os.PathLike[str] | str, name: str, state: str = DONE, *, now: float | None = None
) -> bool:
    """Move exactly the claim `name` to done or failed; False when the claim is no longer ours."""
    with _existing(git_dir, "cannot settle in") as directory:
        if directory is None or not _settle_in(directory, name, state, _now(now)):
            return False
        _fsync_directory(directory, state)
        return True


def _settle_in(directory: _WorkDirectory, name: str, state: str, moment: float) -> bool:
    if state not in (DONE, FAILED):
        raise ValueError(f"a claim settles in done or failed, not {state!r}")
    if _parse_claim(name) is None:
        return False
    return _rename(
        directory,
        source=CLAIMED,
        name=name,
        target=state,
        new=_stamped_name(id_of_entry(name), _micros(moment)),
    )


class Drain:
    """Claims and settles in one work directory, for a consumer that works many items in a row.

    Its directories are opened once, and settles are made durable together: one fsync of each
    target directory every `sync_every` settles and when the drain ends, instead of one per
    settle. A power cut can undo the settles since the last sync; those items are claimed and
    worked again (at-least-once, as after an undone claim), never lost.
    """

    def __init__(self, git_dir: os.PathLike[str] | str, *, sync_every: int = 64) -> None:
        self.git_dir = git_dir
        self.sync_every = sync_every
        self._unsynced: set[str] = set()
        self._settled = 0
        self._asked: tuple[Iterable[str], tuple[str, ...]] | None = None
        # Opened as every other operation opens it (None: nothing there, nothing to drain).
        self._opened = contextlib.ExitStack()
        self._directory = self._opened.enter_context(_existing(git_dir, "cannot claim from"))

    def claim_next_of(self, kinds: Iterable[str], *, now: float | None = None) -> Claimed | None:
        """As `claim_next_of`."""
        if self._directory is None:
            return None
        # A consumer asks for the same kinds item after item: they are checked once.
        if self._asked is None or self._asked[0] != kinds:
            self._asked = (kinds, _kinds(kinds))
        try:
            return _claim_next_in(self._directory, self._asked[1], _now(now))
        except OSError as error:
            raise _queue_error("cannot claim from", self.git_dir, error) from None

    def settle(self, claimed: Claimed, state: str = DONE, *, now: float | None = None) -> bool:
        """As `settle`, durable by the next sync."""
        if self._directory is None:
            return False
        try:
            if not _settle_in(self._directory, claimed.name, state, _now(now)):
                return False
        except OSError as error:
            raise _queue_error("cannot settle in", self.git_dir, error) from None
        self._unsynced.add(state)
        self._settled += 1
        if self._settled % self.sync_every == 0:
            self.sync()
        return True

    def sync(self) -> None:
        """Make every settle so far durable."""
        if self._directory is None:
            return
        try:
            for state in sorted(self._unsynced):
                _fsync_directory(self._directory, state)
        except OSError as error:
            raise _queue_error("cannot settle in", self.git_dir, error) from None
        self._unsynced.clear()

    def close(self) -> None:
        try:
            self.sync()
        finally:
            self._directory = None
            self._opened.close()

    def __enter__(self) -> Drain:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def retry(git_dir: os.PathLike[str] | str, name: str, *, now: float | None = None) -> str | None:
    """Give a failed item another start: its tries counted from zero again, back in pending
    (claimable now); its name there, or None when `name` is not a failed record of ours.

    Two steps, each safe to repeat: append `reset` to the record (synced), move it to pending.
    """
    if _stamp_of(name) is None or name.startswith("invalid-"):
        return None
    moment = _now(now)
    id = id_of_entry(name)
    with _existing(git_dir, "cannot retry in") as directory:
        if directory is None:
            return None
        try:
            fd, size = _read_entry(directory, FAILED, name, append=True)
        except (FileNotFoundError, RecordError):
            return None
        try:
            data = _read_all(fd, size)
            try:
                _decode_record(data, id)
            except RecordError:
                return None  # not an item: it stays for the person to see
            os.write(fd, (b"" if data.endswith(b"\n") else b"\n") + b"reset\n")
            os.fsync(fd)
            _checkpoint("append reset")
        finally:
            os.close(fd)
        new = _stamped_name(id, _micros(moment))
        if not _rename(directory, source=FAILED, name=name, target=PENDING, new=new):
            return None
        _fsync_directory(directory, PENDING)
    forget_listing(git_dir)
    return new


# --- requeue and recovery ----------------------------------------------------------------------


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
    if _parse_claim(name) is None:
        return None
    moment = _now(now)
    with _existing(git_dir, "cannot requeue in") as directory:
        if directory is None or not _rename(
            directory, source=CLAIMED, name=name, target=RECOVERING, new=name
        ):
            return None
        outcome = _finish_recovering(
            directory, name, max_tries, moment, count_try=count_try, retry_after=lambda _: delay
        )
    forget_listing(git_dir)
    return outcome[0] if outcome else None


RetryAfter = Callable[[int], float]  # tries so far -> seconds before the next may start


def requeue_expired(
    git_dir: os.PathLike[str] | str,
    *,
    lease: float,
    max_tries: int,
    retry_after: RetryAfter | None = None,
    now: float | None = None,
) -> int:
    return requeue_expired_reporting(
        git_dir, lease=lease, max_tries=max_tries, retry_after=retry_after, now=now
    ).moved


def requeue_expired_reporting(
    git_dir: os.PathLike[str] | str,
    *,
    lease: float,
    max_tries: int,
    retry_after: RetryAfter | None = None,
    now: float | None = None,
) -> Recovered:
    """Return expired claims to pending (tries + 1) or to failed; finish any interrupted step.

    With `retry_after`, an item comes back claimable only after the backoff it gives.
    """
    moment = _now(now)
    recovered = Recovered()
    with _existing(git_dir, "cannot recover claims in") as directory:
        if directory is None:
            return recovered
        recovered.moved += _recover_unfinished(directory, moment)
        for name in _listdir(directory, RECOVERING):
            _count(
                recovered,
                _finish_recovering(directory, name, max_tries, moment, retry_after=retry_after),
            )
        for name in _listdir(directory, CLAIMED):
            parsed = _parse_claim(name)
            if parsed is None:
                recovered.moved += _quarantine(directory, CLAIMED, name, moment)
            elif _expired(parsed[2], lease, moment) and _rename(
                directory, source=CLAIMED, name=name, target=RECOVERING, new=name
            ):
                _count(
                    recovered,
                    _finish_recovering(directory, name, max_tries, moment, retry_after=retry_after),
                )
    if recovered.moved:
        forget_listing(git_dir)
    return recovered


def _count(recovered: Recovered, outcome: tuple[str, WorkItem | None] | None) -> None:
    if outcome is None:
        return
    recovered.moved += 1
    state, item = outcome
    if state == FAILED and item is not None:
        recovered.failed.append(item)


def _expired(reading: int, lease: float, now: float) -> bool:
    # A reading more than a lease in the future was taken before the clock jumped back; its
    # holder, if alive, would have renewed it since with the new clock.
    return abs(now - _seconds(reading)) > lease


def _finish_recovering(
    directory: _WorkDirectory,
    name: str,
    max_tries: int,
    now: float,
    *,
    count_try: bool = True,
    retry_after: RetryAfter | None = None,
) -> tuple[str, WorkItem | None] | None:
    """Finish moving `recovering/name` forward; idempotent, so any pass may finish any crash.

    Back in pending its stamp is when it may be claimed: its enqueue time (its place in line),
    or later by the backoff `retry_after` gives for its tries.
    """
    parsed = _parse_claim(name)
    if parsed is None:
        return (FAILED, None) if _quarantine(directory, RECOVERING, name, now) else None
    id, generation, _ = parsed
    try:
        fd, size = _read_entry(directory, RECOVERING, name, append=True)
    except FileNotFoundError:
        return None
    except RecordError:
        return _give_up_recovering(directory, name, now)
    try:
        data = _read_all(fd, size)
        try:
            record = _decode_record(data, id)
        except RecordError:
            record = None
        if record is not None and count_try and generation not in record.tried:
            # The try is named by the claim's generation, so a repeated append counts once and a
            # torn line (power loss) fails the generation's grammar and counts not at all.
            separator = b"" if data.endswith(b"\n") else b"\n"
            os.write(fd, separator + b"tried %s\n" % generation.encode())
            os.fsync(fd)
            _checkpoint("append try")
            record = dataclasses.replace(record, tried=record.tried | {generation})
    finally:
        os.close(fd)
    if record is None:
        return _give_up_recovering(directory, name, now)
    if record.tries >= max_tries:
        state, new = FAILED, _stamped_name(id, _micros(now))
    else:
        delay = min(retry_after(record.tries), MAX_DELAY) if retry_after is not None else 0.0
        due = record.enqueued if delay <= 0 else max(record.enqueued, _micros(now + delay))
        state, new = PENDING, _stamped_name(id, due)
    if not _rename(directory, source=RECOVERING, name=name, target=state, new=new):
        return None
    _fsync_directory(directory, state)
    return state, record.item(directory.git_dir)


def _give_up_recovering(
    directory: _WorkDirectory, name: str, now: float
) -> tuple[str, WorkItem | None] | None:
    """`recovering/name` holds no record that decodes: to failed, for the person to see."""
    new = _stamped_name(id_of_entry(name), _micros(now))
    if not _rename(directory, source=RECOVERING, name=name, target=FAILED, new=new):
        return None
    return FAILED, None


@contextlib.contextmanager
def _recovery_lock(directory: _WorkDirectory, *, wait: bool) -> Iterator[bool]:
    """Serialise the steps that remove dedup markers or publish a producer's item for it."""
    fd = os.open(
        RECOVERY_LOCK,
        os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=directory.root,
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _recover_unfinished(directory: _WorkDirectory, now: float) -> int:
    """Finish prunes, publish markers whose producer died, sweep temp files; items published."""
    with _recovery_lock(directory, wait=False) as locked:
        if not locked:
            return 0
        # Published the ordinary way, as a claim would: nothing recovered, nothing counted.
        _publish_ready_locked(directory)
        temp: dict[str, os.stat_result] = {}
        for name in _listdir(directory, TMP):
            info = _lstat(directory, TMP, name)
            if info is None or not stat.S_ISREG(info.st_mode):
                continue  # gone, or garbage (a directory, a link, a FIFO): left alone
            if name.startswith(_PRUNE_PREFIX):
                _finish_prune(directory, name, info)
            else:
                temp[name] = info
        temp_names: dict[int, list[str]] = collections.defaultdict(list)
        for name, info in temp.items():
            temp_names[info.st_ino].append(name)
        published: set[int] = set()
        resurrected = 0
        for marker in _listdir(directory, KNOWN):
            info = _lstat(directory, KNOWN, marker)
            if info is None or not stat.S_ISREG(info.st_mode) or not _ID_RE.fullmatch(marker):
                continue
            # The marker is read before its temp links are counted again: a temp link can only
            # vanish meanwhile (its producer published), which makes this look published, never
            # the reverse.
            links = sum(
                1
                for name in temp_names.get(info.st_ino, ())
                if (now_info := _lstat(directory, TMP, name)) and now_info.st_ino == info.st_ino
            )
            if info.st_nlink - links > 1:
                published.add(info.st_ino)
                continue
            outcome = _publish_orphan(directory, marker, info, now)
            resurrected += outcome
            if outcome:
                published.add(info.st_ino)
        for name, info in temp.items():
            if info.st_ino in published:
                _unlink(directory, TMP, name)
            elif now - _temp_age_origin(name, info) > TMP_GRACE:
                current = _lstat(directory, TMP, name)
                if current is not None and current.st_nlink == 1:
                    _unlink(directory, TMP, name)
        return resurrected


def _temp_age_origin(name: str, info: os.stat_result) -> float:
    match = _TMP_RE.fullmatch(name)
    return _seconds(int(match["stamp"])) if match else info.st_mtime


def _publish_orphan(
    directory: _WorkDirectory, marker: str, info: os.stat_result, now: float
) -> int:
    """A marker in no state directory: its producer died between its two links, or it is torn."""
    try:
        record = _decode_entry(directory, KNOWN, marker)
    except (RecordError, FileNotFoundError):
        if now - info.st_mtime <= FOREIGN_PRODUCER_GRACE:
            return 0  # a shell producer may still be writing it
        with contextlib.suppress(FileNotFoundError):
            _link_marker(directory, marker, target=FAILED, new=_stamped_name(marker, _micros(now)))
        return 0
    if _producer_may_be_alive(record, now):
        return 0
    new = _stamped_name(marker, record.enqueued)
    if not _link_marker(directory, marker, target=PENDING, new=new):
        return 0
    _fsync_directory(directory, PENDING)
    return 1


def _finish_prune(directory: _WorkDirectory, name: str, info: os.stat_result) -> None:
    marker = id_of_entry(name[len(_PRUNE_PREFIX) :])
    known = _lstat(directory, KNOWN, marker) if _ID_RE.fullmatch(marker) else None
    if known is not None and known.st_ino == info.st_ino:
        _unlink(directory, KNOWN, marker)
    _unlink(directory, TMP, name)


# --- reading the queue -------------------------------------------------------------------------


def next_claim_expiry(
    git_dir: os.PathLike[str] | str, *, lease: float, now: float | None = None
) -> float | None:
    """Seconds until the first held claim runs out (<= 0 when overdue); None when none is held."""
    moment = _now(now)
    remaining: list[float] = []
    with _existing(git_dir, "cannot read the claims of") as directory:
        if directory is None:
            return None
        for name in _listdir(directory, CLAIMED):
            parsed = _parse_claim(name)
            if parsed is None:
                continue
            reading = _seconds(parsed[2])
            if reading - moment > lease:
                remaining.append(moment + lease - reading)
            else:
                remaining.append(reading + lease - moment)
    return min(remaining) if remaining else None


def oldest_pending_age(
    git_dir: os.PathLike[str] | str, *, now: float | None = None
) -> float | None:
    """How long the oldest pending item has waited; one directory listing, no file opened."""
    summary = pending_summary(git_dir, now=now)
    return summary[1] if summary[0] else None


def pending_summary(
    git_dir: os.PathLike[str] | str, *, now: float | None = None
) -> tuple[int, float]:
    """(how many items wait, how long the oldest has waited) from one directory listing."""
    moment = _now(now)
    with _existing(git_dir, "cannot list what waits in") as directory:
        # A marker said whole but not yet published waits all the same; one being published
        # has the same name in both for a moment, and is one item.
        names = (
            []
            if directory is None
            else list(dict.fromkeys(_listdir(directory, PENDING) + _listdir(directory, READY)))
        )
    stamped = _stamped(names)
    if not stamped:
        return 0, 0.0
    return len(stamped), moment - _seconds(min(int(stamp) for _, _, stamp in stamped))


def entries(git_dir: os.PathLike[str] | str, state: str) -> list[str]:
    """The names in one state directory, or in ready/ (for status and tests); garbage included."""
    if state not in (*STATES, READY):
        raise ValueError(f"not a state directory: {state!r}")
    with _existing(git_dir, "cannot list") as directory:
        return [] if directory is None else _listdir(directory, state)


def given_up(git_dir: os.PathLike[str] | str, id: str) -> bool:
    """Whether the item `id` is in failed/ (given up, waiting for `landwatch retry`)."""
    return any(id_of_entry(name) == id for name in entries(git_dir, FAILED))


def read_entry(git_dir: os.PathLike[str] | str, state: str, name: str) -> WorkItem | None:
    """The item an entry of a state directory holds; None when it is gone or not a record."""
    if state not in STATES:
        raise ValueError(f"not a state directory: {state!r}")
    with _existing(git_dir, "cannot read an entry of") as directory:
        if directory is None:
            return None
        try:
            return _decode_entry(directory, state, name).item(directory.git_dir)
        except (RecordError, FileNotFoundError):
            return None


# --- pruning -----------------------------------------------------------------------------------


def prune(
    git_dir: os.PathLike[str] | str,
    *,
    keep_seconds: float,
    keep_count: int,
    now: float | None = None,
) -> int:
    """Remove done records older than `keep_seconds` beyond the newest `keep_count`; failed stay."""
    moment = _now(now)
    removed = 0
    with _existing(git_dir, "cannot prune") as directory:
        if directory is None:
            return 0
        done = sorted(
            (
                (stamp, name)
                for name in _listdir(directory, DONE)
                if (stamp := _stamp_of(name)) is not None and _is_record_file(directory, name)
            ),
            reverse=True,
        )
        old = [
            name
            for stamp, name in done[max(keep_count, 0) :]
            if moment - _seconds(stamp) > keep_seconds
        ]
        if not old:
            return 0
        with _recovery_lock(directory, wait=True):
            for name in old:
                intent = _PRUNE_PREFIX + name
                if not _rename(directory, source=DONE, name=name, target=TMP, new=intent):
                    continue
                info = _lstat(directory, TMP, intent)
                if info is not None:
                    _finish_prune(directory, intent, info)
                removed += 1
    return removed
