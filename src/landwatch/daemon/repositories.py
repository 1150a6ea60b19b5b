"""The registry as the reviewer sees it: the repositories it drains and the git dir of each of
their worktrees, read again when asked or when the registry file changed; a repository that
cannot be drained is skipped, said once, and what was registered goes on being drained while
the registry itself cannot be read.
"""

from __future__ import annotations

import logging
from pathlib import Path

from landwatch import layout, registry, work_item

log = logging.getLogger("landwatch.reviewer")


class Repositories:
    """What is drained: `repositories` (common git dirs) and `git_dirs` (their worktrees)."""

    def __init__(self) -> None:
        self.git_dirs: list[Path] = []
        self.repositories: list[Path] = []
        self._repository_of: dict[Path, Path] = {}  # worktree git dir -> its common dir
        self._registry_seen: tuple[int, int, int] | None = None
        self._registered: set[Path] = set()
        self._registry_problem: str | None = None
        self._told: dict[Path, str] = {}
        self._entries_told: dict[Path, str] = {}  # a worktree entry passed over -> why
        self._queue_told: dict[Path, set[str]] = {}
        self.registered_count = 0

    def read_registry(self) -> list[Path] | None:
        """The registered repositories; None when the registry cannot be read (said once a
        problem), and what was registered goes on being drained until it can be again."""
        try:
            repositories = registry.registered()
        except (OSError, registry.RegistryError) as error:
            problem = f"cannot read the registry: {error}; draining what was registered before"
            if problem != self._registry_problem:
                log.warning("%s", problem)
                self._registry_problem = problem
            return None
        self._registry_problem = None
        return repositories

    def reload(self) -> bool:
        """Read the registry and every repository's worktrees again; True when the worktrees
        drained changed (False too when the registry could not be read)."""
        repositories = self.read_registry()
        if repositories is None:
            return False
        git_dirs: list[Path] = []
        usable: list[Path] = []
        skipped: list[tuple[Path, str]] = []
        for common in repositories:
            problem = registry.problem_with(common)
            if problem is not None:
                if self._told.get(common) != problem:
                    log.warning("skipping %s: %s", common, problem)
                    self._told[common] = problem
                continue
            self._told.pop(common, None)
            usable.append(common)
            for git_dir in registry.worktree_git_dirs(common, skipped):
                git_dirs.append(git_dir)
                self._repository_of[git_dir] = common
        self._tell_skipped(skipped)
        for git_dir in set(git_dirs) - set(self.git_dirs):
            # A worktree added since: its work directory made now, so that it can be watched
            # before its first landing (the hook would make it, unwatched), and marked as
            # landwatch's: a registered repository's is the person's (one the hook made, or a
            # release before the marks).
            try:
                if not registry.made_here(git_dir):
                    registry.mark_made(git_dir)
            except (work_item.QueueError, OSError) as error:
                self.queue_problem(git_dir, error)
        changed = git_dirs != self.git_dirs
        self.git_dirs, self.repositories = git_dirs, usable
        self.registered_count = len(repositories)
        return changed

    def _tell_skipped(self, skipped: list[tuple[Path, str]]) -> None:
        """Each worktree entry passed over (registry.worktree_git_dirs) logged once a reason:
        a planted one is read at every rescan, and one that mends and breaks is said again."""
        for entry, why in skipped:
            if self._entries_told.get(entry) != why:
                log.warning("skipping the worktree %s: %s", entry, why)
        self._entries_told = dict(skipped)

    def queue_problem(self, git_dir: Path, error: Exception) -> None:
        """A worktree's queue that cannot be used, logged once a problem: a file where pending/
        should be fails every claim, every pass, and a log of that line alone hid the rest."""
        told = self._queue_told.setdefault(git_dir, set())
        if str(error) not in told:
            told.add(str(error))
            log.warning("%s", error)

    def queue_usable(self, git_dir: Path) -> None:
        """A worktree's queue worked again: a problem that comes back is said again."""
        self._queue_told.pop(git_dir, None)

    def watched(self) -> tuple[object, ...]:
        """What the file events depend on: the worktrees, the repositories, and whether each
        has a worktrees directory (made by a `git worktree add` whose worktree is not complete
        yet, it is watched at once, so the worktree's HEAD is seen)."""
        return (
            tuple(self.git_dirs),
            tuple(self.repositories),
            tuple((common / "worktrees").is_dir() for common in self.repositories),
        )

    def still_registered(self, git_dir: Path) -> bool:
        """Whether `git_dir`'s repository is registered now: the registry is read again only
        when its file changed (one stat per claim)."""
        try:
            info = layout.REGISTRY.path().stat()
            seen = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            seen = None
        if seen != self._registry_seen or seen is None:
            # Unreadable, it is read again when it changes: what was registered is kept.
            self._registry_seen = seen
            current = self.read_registry()
            if current is not None:
                self._registered = set(current)
        common = self._repository_of.get(git_dir)
        return common is not None and common in self._registered
