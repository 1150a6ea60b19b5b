"""File events that wake the resident process: a work directory that may hold new work, a reflog
that may tell of a landing nobody recorded, a worktree added or removed, the registry replaced.
Only events that can bring work count.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from landwatch import layout
from landwatch.files import private_directory

log = logging.getLogger("landwatch.reviewer")

# Reading a watched directory (our own listing) raises open and close events: waking on those
# would spin.
_CHANGES = ("created", "moved", "deleted", "modified")


class Watcher:
    """watchdog's observer over the registry's directory and, for every registered repository,
    its worktrees' work directories, its reflogs and its list of worktrees."""

    def __init__(
        self,
        on_work: Callable[[Path], None],
        on_registry: Callable[[], None],
        on_reflog: Callable[[Path], None],
        *,
        rescan: float,
    ) -> None:
        self.on_work = on_work
        self.on_registry = on_registry
        self.on_reflog = on_reflog
        self.rescan = rescan
        self._observer: Any = None

    def start(self, git_dirs: list[Path], repositories: list[Path]) -> None:
        try:
            from watchdog.observers import Observer
        except ImportError as error:  # pragma: no cover - a dependency
            log.warning("no file events (%s); rescanning every %.0f s", error, self.rescan)
            return
        # A long timeout: emitter threads wake this rarely when idle (stop() waits that long).
        self._observer = Observer(timeout=5.0)
        self._observer.daemon = True
        self.watch(git_dirs, repositories)
        self._observer.start()

    def watch(self, git_dirs: list[Path], repositories: list[Path]) -> None:
        """Watch exactly these worktrees and repositories (and the registry), replacing what was
        watched."""
        if self._observer is None:
            return
        from watchdog import events
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        # Asked of the kernel as the watches' masks: the opens and closes of our own reads (every
        # claim opens the work directories) are never even queued, let alone read and dropped.
        landings = [
            events.FileCreatedEvent,
            events.DirCreatedEvent,
            events.FileMovedEvent,
            events.DirMovedEvent,
        ]
        changes = [
            *landings,
            events.FileDeletedEvent,
            events.DirDeletedEvent,
            events.FileModifiedEvent,
            events.DirModifiedEvent,
        ]

        watcher = self
        registry_name = layout.REGISTRY.path().name

        class Work(FileSystemEventHandler):
            def __init__(self, git_dir: Path) -> None:
                self.git_dir = git_dir

            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in ("created", "moved"):
                    watcher.on_work(self.git_dir)

        class Reflogs(FileSystemEventHandler):
            def __init__(self, common: Path) -> None:
                self.common = common

            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in _CHANGES and not event.is_directory:
                    watcher.on_reflog(self.common)

        class Worktrees(FileSystemEventHandler):
            # `git worktree add` writes worktrees/NAME/HEAD (the mark of a worktree) and
            # `remove` deletes the directory: the worktree is drained (or swept for) from the
            # next tick, not the next rescan. Its HEAD reflog growing asks for a sweep.
            def __init__(self, common: Path) -> None:
                self.common = common

            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type not in _CHANGES:
                    return
                for raw in (event.src_path, getattr(event, "dest_path", "") or ""):
                    try:
                        parts = Path(os.fsdecode(raw)).relative_to(self.common).parts
                    except ValueError:
                        continue
                    if parts[:1] != ("worktrees",):
                        continue
                    if len(parts) <= 2 or parts[2:] == ("HEAD",):
                        watcher.on_registry()
                        watcher.on_reflog(self.common)
                    elif parts[2:] == ("logs", "HEAD"):
                        watcher.on_reflog(self.common)

        class Registry(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                # Replaced by a rename: the new name is the event's dest_path.
                paths = (event.src_path, getattr(event, "dest_path", "") or "")
                names = {os.path.basename(os.fsdecode(path)) for path in paths}
                if event.event_type in _CHANGES and registry_name in names:
                    watcher.on_registry()

        self._observer.unschedule_all()
        registry_dir = private_directory(layout.config_dir(), trusted=None)
        # The whole work directory, not just pending/: a claim moves an item to claimed/, and
        # watchdog holds an unpaired moved_from for 0.5 s, delaying every event behind it.
        targets: list[tuple[FileSystemEventHandler, Path, bool, list[type[FileSystemEvent]]]] = [
            (Registry(), registry_dir, False, changes)
        ]
        targets += [
            (Work(git_dir), layout.work_dir(git_dir), True, landings) for git_dir in git_dirs
        ]
        for common in repositories:
            targets.append((Reflogs(common), common / "logs", True, changes))
            worktrees = common / "worktrees"
            if worktrees.is_dir():
                targets.append((Worktrees(common), worktrees, True, changes))
            else:  # only its making matters here: the common dir's own files are not looked at
                targets.append((Worktrees(common), common, False, changes))
        for handler, directory, recursive, wanted in targets:
            if not directory.is_dir() or directory.is_symlink():
                continue
            try:
                self._observer.schedule(
                    handler, str(directory), recursive=recursive, event_filter=wanted
                )
            except OSError as error:
                log.warning(
                    "no file events for %s (%s); rescanning every %.0f s",
                    directory,
                    error.strerror or error,
                    self.rescan,
                )

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
