"""File events that wake the resident process: a work directory that may hold new work, a reflog
that may tell of a landing nobody recorded, a worktree added or removed, the registry replaced.
Only events that can bring work count.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from landwatch import layout
from landwatch.files import private_directory

log = logging.getLogger("landwatch.reviewer")


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
        # Started first: each directory's watch is then added on its own, and one past the
        # limit of inotify's watches is said and rescanned (before, the first one past it
        # ended the reviewer at its start: an audit).
        self._observer.start()
        self.watch(git_dirs, repositories)

    def watch(self, git_dirs: list[Path], repositories: list[Path]) -> None:
        """Watch exactly these worktrees and repositories (and the registry), replacing what was
        watched."""
        if self._observer is None:
            return
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        from landwatch.daemon.watched import (
            EVERY_CHANGE,
            LANDINGS,
            Reflogs,
            Registry,
            Work,
            Worktrees,
        )

        self._observer.unschedule_all()
        registry_dir = private_directory(layout.config_dir(), trusted=None)
        # The whole work directory, not just pending/: a claim moves an item to claimed/, and
        # watchdog holds an unpaired moved_from for 0.5 s, delaying every event behind it.
        registry = Registry(layout.REGISTRY.path().name, self.on_registry)
        targets: list[tuple[FileSystemEventHandler, Path, bool, list[type[FileSystemEvent]]]] = [
            (registry, registry_dir, False, EVERY_CHANGE)
        ]
        targets += [
            (Work(git_dir, self.on_work), layout.work_dir(git_dir), True, LANDINGS)
            for git_dir in git_dirs
        ]
        for common in repositories:
            targets.append((Reflogs(common, self.on_reflog), common / "logs", True, EVERY_CHANGE))
            worktrees = Worktrees(common, self.on_registry, self.on_reflog)
            if (common / "worktrees").is_dir():
                targets.append((worktrees, common / "worktrees", True, EVERY_CHANGE))
            else:  # only its making matters here: the common dir's own files are not looked at
                targets.append((worktrees, common, False, EVERY_CHANGE))
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
