"""The queue's names: its directories and limits, the grammar of ids, stamps and claims, the item
and the answers every operation shares. One home for each, read by the rest of the package.

The grammar is docs/queue.md's ("Names"); the hooks write the same names in shell.
"""

from __future__ import annotations

import enum
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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
# The most commits a record names as the ones its commit replaced (a squash of more names the
# first): 256 SHA-256 ids take 17 KB of the record's bound.
MAX_REWRITTEN = 256
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

OID = r"[0-9a-f]{40}|[0-9a-f]{64}"
KIND = r"[a-z][a-z0-9_]{0,31}"
_ID = rf"(?P<kind>{KIND})-(?P<oid>{OID})"
_STAMP = r"(?P<stamp>0|[1-9][0-9]{0,18})"
_GENERATION = r"[0-9a-f]{16}"
_OID_RE = re.compile(OID)
_KIND_RE = re.compile(KIND)
ID_RE = re.compile(_ID)
STAMPED_RE = re.compile(rf"{_ID}\.{_STAMP}")
CLAIM_RE = re.compile(rf"{_ID}\.(?P<generation>{_GENERATION})\.{_STAMP}")
GENERATION_RE = re.compile(_GENERATION)
_STAMPED_LINES_RE = re.compile(rf"^((?P<kind>{KIND})-(?:{OID})\.{_STAMP})$", re.MULTILINE)
TMP_RE = re.compile(rf"{_ID}\.{_STAMP}\.[0-9]+\.[0-9a-f]+")
PRUNE_PREFIX = "prune."
INVALID_PREFIX = "invalid-"


class WorkKind(enum.StrEnum):
    """The built-in kinds (the hooks record the first three); any name of the kind grammar is a
    kind all the same."""

    REVIEW = "review"
    PUSH = "push"
    MAINTENANCE = "maintenance"
    PROJECT_HOOKS = "project_hooks"
    SHARE = "share"  # recorded by the review kind, not the hooks: a review's note to push


class Enqueued(enum.Enum):
    ADDED = "added"
    KNOWN = "known"
    AGAIN = "again"  # done before, and pending again (enqueue's `again`)


class QueueError(Exception):
    """A work directory that cannot be used (full disk, read-only, not ours): one line to show."""


class RecordError(ValueError):
    """A record that does not decode: garbage, truncated, a wrong version or a wrong name."""


def is_object_id(text: str) -> bool:
    """A full lowercase object id, SHA-1 or SHA-256 (what every record and name holds)."""
    return _OID_RE.fullmatch(text) is not None


def is_kind_name(text: str) -> bool:
    """A name of the kind grammar: lower case, a letter first, at most 32 characters."""
    return isinstance(text, str) and _KIND_RE.fullmatch(text) is not None


def checked_kind(kind: str) -> str:
    if not is_kind_name(kind):
        raise ValueError(f"not a kind name ([a-z][a-z0-9_]{{0,31}}): {kind!r}")
    return str(kind)


@dataclass(frozen=True)
class WorkItem:
    kind: str  # a WorkKind, or any name of the kind grammar (docs/queue.md)
    oid: str
    git_dir: Path
    work_tree: Path | None = None
    base: str | None = None
    tries: int = 0
    rewritten: str | None = None  # the commit a rebase or amend replaced by this one
    also_rewritten: tuple[str, ...] = ()  # the others a squash or fixup folded into it

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", checked_kind(self.kind))
        # Made for every claim: a path already one is not parsed again.
        if not isinstance(self.git_dir, Path):
            object.__setattr__(self, "git_dir", Path(self.git_dir))
        if self.work_tree is not None and not isinstance(self.work_tree, Path):
            object.__setattr__(self, "work_tree", Path(self.work_tree))
        if not isinstance(self.also_rewritten, tuple):
            object.__setattr__(self, "also_rewritten", tuple(self.also_rewritten))
        for oid in (self.oid, self.base, self.rewritten, *self.also_rewritten):
            if oid is not None and not is_object_id(oid):
                raise ValueError(f"not a full lowercase object id: {oid!r}")
        if len(self.also_rewritten) + (self.rewritten is not None) > MAX_REWRITTEN:
            raise ValueError(f"more than {MAX_REWRITTEN} commits replaced")
        if self.tries < 0:
            raise ValueError(f"tries cannot be negative: {self.tries}")

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.oid}"

    @property
    def replaced(self) -> tuple[str, ...]:
        """Every commit this one replaced, in post-rewrite's order: a squash's review asks what
        was seen of each."""
        return ((self.rewritten,) if self.rewritten else ()) + self.also_rewritten


class Claimed(NamedTuple):
    item: WorkItem
    id: str
    name: str


class Recovered(int):
    """What a recovery pass did: the number of items it moved (it is that number), and in
    `failed` the items it gave up, which nobody settled: the caller tells the person."""

    failed: list[WorkItem]

    def __new__(cls, moved: int = 0, failed: list[WorkItem] | None = None) -> Recovered:
        recovered = super().__new__(cls, moved)
        recovered.failed = list(failed or [])
        return recovered

    @property
    def moved(self) -> int:
        return int(self)


# --- names of entries ---------------------------------------------------------------------------


def state_directory(git_dir: os.PathLike[str] | str, state: str) -> Path:
    if state not in STATES:
        raise ValueError(f"not a state directory: {state!r}")
    return Path(git_dir) / WORK_DIRECTORY / state


def claim_file_name(id: str, generation: str, reading: float) -> str:
    if not ID_RE.fullmatch(id):
        raise ValueError(f"not a work item id: {id!r}")
    if not GENERATION_RE.fullmatch(generation):
        raise ValueError(f"not a claim generation: {generation!r}")
    return f"{id}.{generation}.{micros(reading)}"


def id_of_entry(name: str) -> str:
    return name.partition(".")[0]


def new_generation() -> str:
    return os.urandom(8).hex()  # secrets.token_hex, without importing it for every command


def stamped_name(id: str, stamp: int) -> str:
    return f"{id}.{stamp}"


def invalid_name(name: str, stamp: int) -> str:
    """The safe name garbage gets in failed/ (any bytes may have been in its own)."""
    import hashlib  # only for garbage: a command that reads the queue does not load OpenSSL

    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    return f"{INVALID_PREFIX}{digest}.{stamp}"


def parse_claim(name: str) -> tuple[str, str, int] | None:
    """(id, generation, reading) of a claim; a bare id is a claim an older release wrote."""
    match = CLAIM_RE.fullmatch(name)
    if match:
        return id_of_entry(name), match["generation"], int(match["stamp"])
    if ID_RE.fullmatch(name):
        return name, "0" * 16, 0
    return None


def stamp_of(name: str) -> int | None:
    match = STAMPED_RE.fullmatch(name)
    return int(match["stamp"]) if match else None


def stamped(names: list[str]) -> list[tuple[str, str, str]]:
    """(name, kind, stamp) of every well-formed `<id>.<stamp>` name, in one regex pass.

    Listings of thousands of names are parsed on the hooks' and the claims' paths; one findall
    over the joined names is several times faster than a match per name.
    """
    text = "\n".join(name for name in names if "\n" not in name)
    return _STAMPED_LINES_RE.findall(text)


# --- stamps: microseconds of the wall clock ----------------------------------------------------


def micros(seconds: float) -> int:
    """A stamp: whole microseconds since the epoch, as every name and record holds them."""
    return max(0, round(seconds * 1_000_000))


def seconds_of(stamp: int) -> float:
    """The wall-clock seconds a stamp stands for."""
    return stamp / 1_000_000


def rebased(moment: float, step: float, now: float) -> float:
    """A due time once the wall clock stepped by `step` seconds, `now` read by the new clock: one
    still ahead by either clock moves with the step (a backoff waits as long as it was given, a
    step back leaves nothing waiting for the clock to catch up); a past one stays."""
    return moment + step if moment > min(now, now - step) else moment


def now_or(now: float | None) -> float:
    """The time an operation was given (`now=`, so tests drive the clock), or the wall clock."""
    return time.time() if now is None else now
