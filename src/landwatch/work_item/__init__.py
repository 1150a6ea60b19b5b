"""The durable work-item record and its state directories: enqueue, claim, renew, settle,
requeue, recovery and pruning, correct under crashes, races and garbage (docs/queue.md).

A file per item inside the worktree's own git dir, moved between state directories by rename.
Producers (the hooks, the sweep, `landwatch enqueue`) use `enqueue`; the consumer (the reviewer)
claims, renews and settles, and runs `requeue_expired` and `prune` now and then. It imports
nothing of landwatch's: the hooks and any other program may rely on the format alone.

Its modules, from the bottom: `names` (directories, grammar, the item), `record` (its bytes and
its producer), `directory` (the file-system steps and crash points), `produce`, `listing` (FIFO
without a scan per claim, and publishing what the hooks said is whole), `claims`, `recovery`,
`reading`.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from landwatch.work_item.claims import (
    claim_next,
    find_claim,
    rebase_pending,
    renew_claim,
    retry,
    run_again,
    settle,
)
from landwatch.work_item.listing import _listings, forget_listing, next_due, publish_ready
from landwatch.work_item.names import (
    CLAIMED,
    DONE,
    FAILED,
    FOREIGN_PRODUCER_GRACE,
    KIND,
    KNOWN,
    LISTING_TTL,
    MAX_DELAY,
    MAX_RECORD_BYTES,
    MAX_REWRITTEN,
    OID,
    ORPHAN_GRACE,
    PENDING,
    READY,
    RECOVERING,
    RECOVERY_LOCK,
    STATES,
    TMP,
    TMP_GRACE,
    VERSION,
    WORK_DIRECTORY,
    Claimed,
    Enqueued,
    QueueError,
    RecordError,
    Recovered,
    WorkItem,
    WorkKind,
    claim_file_name,
    id_of_entry,
    is_kind_name,
    is_object_id,
    micros,
    new_generation,
    rebased,
    seconds_of,
    state_directory,
)
from landwatch.work_item.produce import enqueue, ensure_work_directory
from landwatch.work_item.reading import (
    entries,
    given_up,
    in_line,
    is_known,
    known_record,
    next_claim_expiry,
    oldest_landing,
    pending_summary,
    read_entry,
    unusable,
    work_trees,
)
from landwatch.work_item.record import boot_time, encode_record, this_producer
from landwatch.work_item.recovery import RetryAfter, prune, requeue, requeue_expired

# The crash tests set this to a function that kills the process at a named step
# (tests/support/queue.py); directory.checkpoint calls it after every file-system step.
_fault_hook: Callable[[str], None] | None = None


# --- names the seed contract gives twice --------------------------------------------------------
# docs/queue.md's contract spells four of these operations a second way; those names stay, each
# bound to the one operation it always was. landwatch itself uses the names above.

claim_next_of = claim_next
settle_named = settle
requeue_expired_reporting = requeue_expired


def oldest_pending_age(
    git_dir: os.PathLike[str] | str, *, now: float | None = None
) -> float | None:
    """How long the oldest pending item has waited (pending_summary's second half; None when
    nothing waits)."""
    waiting, age = pending_summary(git_dir, now=now)
    return age if waiting else None


__all__ = [
    "CLAIMED",
    "DONE",
    "FAILED",
    "FOREIGN_PRODUCER_GRACE",
    "KIND",
    "KNOWN",
    "LISTING_TTL",
    "MAX_DELAY",
    "MAX_RECORD_BYTES",
    "MAX_REWRITTEN",
    "OID",
    "ORPHAN_GRACE",
    "PENDING",
    "READY",
    "RECOVERING",
    "RECOVERY_LOCK",
    "STATES",
    "TMP",
    "TMP_GRACE",
    "VERSION",
    "WORK_DIRECTORY",
    "Claimed",
    "Enqueued",
    "QueueError",
    "RecordError",
    "Recovered",
    "RetryAfter",
    "WorkItem",
    "WorkKind",
    "_listings",
    "boot_time",
    "claim_file_name",
    "claim_next",
    "claim_next_of",
    "encode_record",
    "enqueue",
    "ensure_work_directory",
    "entries",
    "find_claim",
    "forget_listing",
    "given_up",
    "id_of_entry",
    "in_line",
    "is_kind_name",
    "is_known",
    "is_object_id",
    "known_record",
    "micros",
    "new_generation",
    "next_claim_expiry",
    "next_due",
    "oldest_landing",
    "oldest_pending_age",
    "pending_summary",
    "prune",
    "publish_ready",
    "read_entry",
    "rebase_pending",
    "rebased",
    "renew_claim",
    "requeue",
    "requeue_expired",
    "requeue_expired_reporting",
    "retry",
    "run_again",
    "seconds_of",
    "settle",
    "settle_named",
    "state_directory",
    "this_producer",
    "unusable",
    "work_trees",
]
