"""A consumer that claims and settles many items in a row with the queue's own steps: directories
opened once, settles made durable together (one fsync of each target directory every
`sync_every` settles and at the end, not one per settle).

The bench's measure of what the queue's steps allow (bench_queue.py); the reviewer settles each
item on its own, as a review costs milliseconds at least. A power cut can undo the settles since
the last sync: those items are claimed and worked again (at least once), never lost.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from landwatch.work_item import DONE, Claimed
from landwatch.work_item.claims import claim_in, settle_in
from landwatch.work_item.directory import fsync_directory, opened, queue_error
from landwatch.work_item.listing import wanted_kinds
from landwatch.work_item.names import now_or


class Drain:
    """Claims and settles in one work directory, synced every `sync_every` settles."""

    def __init__(self, git_dir: os.PathLike[str] | str, *, sync_every: int = 64) -> None:
        self.git_dir = git_dir
        self.sync_every = sync_every
        self._unsynced: set[str] = set()
        self._settled = 0
        # Opened as every other operation opens it (None: nothing there, nothing to drain).
        self._opened = contextlib.ExitStack()
        self._directory = self._opened.enter_context(opened(git_dir, "cannot claim from"))

    def claim_next(self, kinds: Iterable[str], *, now: float | None = None) -> Claimed | None:
        """As work_item.claim_next."""
        if self._directory is None:
            return None
        try:
            return claim_in(self._directory, wanted_kinds(kinds), now_or(now))
        except OSError as error:
            raise queue_error("cannot claim from", self.git_dir, error) from None

    def settle(self, claimed: Claimed, state: str = DONE, *, now: float | None = None) -> bool:
        """As work_item.settle, durable by the next sync."""
        if self._directory is None:
            return False
        try:
            if not settle_in(self._directory, claimed.name, state, now_or(now)):
                return False
        except OSError as error:
            raise queue_error("cannot settle in", self.git_dir, error) from None
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
                fsync_directory(self._directory, state)
        except OSError as error:
            raise queue_error("cannot settle in", self.git_dir, error) from None
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
