"""What each watched directory's file events mean to the reviewer (watchdog's handlers): new
work, a reflog that grew, a worktree added or removed, the registry replaced. Imported only once
file events are on, so a reviewer without them never loads watchdog.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from watchdog import events
from watchdog.events import FileSystemEvent, FileSystemEventHandler

# Reading a watched directory (our own listing) raises open and close events: waking on those
# would spin. Only these can bring work.
CHANGES = ("created", "moved", "deleted", "modified")
# Asked of the kernel as the watches' masks: the opens and closes of our own reads (every claim
# opens the work directories) are never even queued, let alone read and dropped.
LANDINGS: list[type[FileSystemEvent]] = [
    events.FileCreatedEvent,
    events.DirCreatedEvent,
    events.FileMovedEvent,
    events.DirMovedEvent,
]
EVERY_CHANGE: list[type[FileSystemEvent]] = [
    *LANDINGS,
    events.FileDeletedEvent,
    events.DirDeletedEvent,
    events.FileModifiedEvent,
    events.DirModifiedEvent,
]


def _paths(event: FileSystemEvent) -> tuple[str, ...]:
    # A rename's new name is the event's dest_path.
    return tuple(
        os.fsdecode(raw) for raw in (event.src_path, getattr(event, "dest_path", "") or "") if raw
    )


class Work(FileSystemEventHandler):
    """A worktree's work directory: something was recorded or published there."""

    def __init__(self, git_dir: Path, on_work: Callable[[Path], None]) -> None:
        self.git_dir = git_dir
        self.on_work = on_work

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("created", "moved"):
            self.on_work(self.git_dir)


class Reflogs(FileSystemEventHandler):
    """A repository's logs/: a reflog grew, which may tell of a landing nobody recorded."""

    def __init__(self, common: Path, on_reflog: Callable[[Path], None]) -> None:
        self.common = common
        self.on_reflog = on_reflog

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in CHANGES and not event.is_directory:
            self.on_reflog(self.common)


class Worktrees(FileSystemEventHandler):
    """A repository's worktrees/: `git worktree add` writes worktrees/NAME/HEAD (the mark of a
    worktree) and `remove` deletes the directory, so the worktree is drained (or swept for) from
    the next tick, not the next rescan; its HEAD reflog growing asks for a sweep."""

    def __init__(
        self, common: Path, on_registry: Callable[[], None], on_reflog: Callable[[Path], None]
    ) -> None:
        self.common = common
        self.on_registry = on_registry
        self.on_reflog = on_reflog

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in CHANGES:
            return
        for path in _paths(event):
            try:
                parts = Path(path).relative_to(self.common).parts
            except ValueError:
                continue
            if parts[:1] != ("worktrees",):
                continue
            if len(parts) <= 2 or parts[2:] == ("HEAD",):
                self.on_registry()
                self.on_reflog(self.common)
            elif parts[2:] == ("logs", "HEAD"):
                self.on_reflog(self.common)


class Registry(FileSystemEventHandler):
    """The directory of the registry: the registry file written (replaced by a rename)."""

    def __init__(self, name: str, on_registry: Callable[[], None]) -> None:
        self.name = name
        self.on_registry = on_registry

    def on_any_event(self, event: FileSystemEvent) -> None:
        names = {os.path.basename(path) for path in _paths(event)}
        if event.event_type in CHANGES and self.name in names:
            self.on_registry()
