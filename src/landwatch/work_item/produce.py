"""Producing an item (docs/queue.md, "Producing an item"): the record written to a temp file,
synced, linked as its dedup marker in known/ (the one exclusive step), then into pending/.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from landwatch.work_item.claims import run_again
from landwatch.work_item.directory import WorkDirectory, checkpoint, fsync_directory, opened
from landwatch.work_item.listing import forget_listing
from landwatch.work_item.names import (
    KNOWN,
    PENDING,
    READY,
    STATES,
    TMP,
    WORK_DIRECTORY,
    Enqueued,
    WorkItem,
    micros,
    now_or,
    stamped_name,
)
from landwatch.work_item.record import encode_record, this_producer


def ensure_work_directory(git_dir: os.PathLike[str] | str) -> Path:
    """Create the work directory and every directory in it (0700); its path."""
    with opened(git_dir, "cannot create the work directory in", create=True) as directory:
        for name in (TMP, KNOWN, READY, *STATES):
            directory.fd(name)
    return Path(git_dir) / WORK_DIRECTORY


def enqueue(item: WorkItem, *, now: float | None = None, again: bool = False) -> Enqueued:
    """Record `item` as pending unless its id is known in any state; whole or absent. `again`
    (a person asking by name): an item of that id already done runs again (AGAIN), while one
    waiting or running is left to run once (KNOWN): the dedup a landing's producers meet."""
    moment = now_or(now)
    data = encode_record(item, enqueued=moment, producer=this_producer())
    tmp_name = f"{item.id}.{micros(moment)}.{os.getpid()}.{os.urandom(4).hex()}"
    with opened(item.git_dir, f"cannot record {item.id[:19]} in", create=True) as directory:
        result = _publish(directory, item.id, tmp_name, data, micros(moment))
    if result is Enqueued.ADDED:
        forget_listing(item.git_dir)
    elif again and run_again(item.git_dir, item.id, now=moment) is not None:
        return Enqueued.AGAIN
    return result


def _publish(directory: WorkDirectory, id: str, tmp: str, data: bytes, stamp: int) -> Enqueued:
    tmp_fd, known_fd, pending_fd = directory.fd(TMP), directory.fd(KNOWN), directory.fd(PENDING)
    fd = os.open(
        tmp,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=tmp_fd,
    )
    checkpoint("create tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        checkpoint("write tmp")
        try:
            os.link(tmp, id, src_dir_fd=tmp_fd, dst_dir_fd=known_fd, follow_symlinks=False)
        except FileExistsError:
            return Enqueued.KNOWN
        checkpoint("link known")
        # The marker is the enqueue: if recovery took this producer for dead and published the
        # marker itself (EEXIST), or swept the temp file after a stall of TMP_GRACE (ENOENT), the
        # item is in the queue all the same.
        with contextlib.suppress(FileExistsError, FileNotFoundError):
            os.link(
                tmp,
                stamped_name(id, stamp),
                src_dir_fd=tmp_fd,
                dst_dir_fd=pending_fd,
                follow_symlinks=False,
            )
            checkpoint("link pending")
        fsync_directory(directory, KNOWN)
        fsync_directory(directory, PENDING)
        return Enqueued.ADDED
    finally:
        # Recovery may already have swept it once the item was published.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=tmp_fd)
            checkpoint("unlink tmp")
