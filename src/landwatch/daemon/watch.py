"""File events that wake the resident process: a registered work directory that may hold new
work, and the registry file being replaced. Only events that can bring work count.
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


class Watcher:
    """watchdog's observer over the registry's directory and every worktree's work directory."""

    def __init__(
        self,
        on_work: Callable[[Path], None],
        on_registry: Callable[[], None],
        *,
        rescan: float,
    ) -> None:
        self.on_work = on_work
        self.on_registry = on_registry
        self.rescan = rescan
        self._observer: Any = None

    def start(self, git_dirs: list[Path]) -> None:
        try:
            from watchdog.observers import Observer
        except ImportError as error:  # pragma: no cover - a dependency
            log.warning("no file events (%s); rescanning every %.0f s", error, self.rescan)
            return
        # A long timeout: emitter threads wake this rarely when idle (stop() waits that long).
        self._observer = Observer(timeout=5.0)
        self._observer.daemon = True
        self.watch(git_dirs)
        self._observer.start()

    def watch(self, git_dirs: list[Path]) -> None:
        """Watch exactly these worktrees (and the registry), replacing what was watched."""
        if self._observer is None:
            return
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        watcher = self
        registry_name = layout.registry_file().name

        class Poke(FileSystemEventHandler):
            # Only what can bring work: reading a watched directory (our own listing) raises
            # open/close events, and waking on those would spin.
            def __init__(self, git_dir: Path | None) -> None:
                self.git_dir = git_dir

            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type not in ("created", "moved", "deleted", "modified"):
                    return
                if self.git_dir is not None:
                    if event.event_type in ("created", "moved"):
                        watcher.on_work(self.git_dir)
                    return
                names = {
                    os.path.basename(os.fsdecode(event.src_path)),
                    os.path.basename(os.fsdecode(getattr(event, "dest_path", "") or "")),
                }
                if registry_name in names:  # replaced by rename: the new name is dest_path
                    watcher.on_registry()

        self._observer.unschedule_all()
        registry_dir = private_directory(layout.config_dir(), trusted=None)
        # The whole work directory, not just pending/: a claim moves an item to claimed/, and
        # watchdog holds an unpaired moved_from for 0.5 s, delaying every event behind it.
        targets: list[tuple[Path | None, Path, bool]] = [(None, registry_dir, False)]
        targets += [(git_dir, layout.work_dir(git_dir), True) for git_dir in git_dirs]
        for git_dir, directory, recursive in targets:
            if not directory.is_dir():
                continue
            try:
                self._observer.schedule(Poke(git_dir), str(directory), recursive=recursive)
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
