"""The repositories a user's reviewer drains, one real path of a common git dir per line.

Like `git maintenance register`, keyed by real path; rewritten whole under a lock, so a reader
never sees half a file and two installs at once lose neither repository.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from landwatch import layout
from landwatch.files import exclusive, read_file, write_atomic


def registered() -> list[Path]:
    try:
        text = read_file(layout.REGISTRY.path(), trusted=None).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return []
    return [Path(line) for line in text.splitlines() if line.startswith("/")]


def worktree_git_dirs(common_git_dir: Path) -> list[Path]:
    """The git dir of every worktree of a repository: the main one and each linked one."""
    linked = common_git_dir / "worktrees"
    found = [common_git_dir]
    with contextlib.suppress(OSError):  # unreadable: the main worktree is still drained
        found += sorted(path for path in linked.iterdir() if (path / "HEAD").is_file())
    return found


def problem_with(common_git_dir: Path) -> str | None:
    """Why a registered repository cannot be drained, or None."""
    try:
        info = common_git_dir.stat()
    except FileNotFoundError:
        return "it vanished"
    except OSError as error:
        return f"it cannot be read ({error.strerror})"
    if not common_git_dir.is_dir():
        return "it is not a directory"
    if info.st_uid != os.getuid():
        return f"it belongs to uid {info.st_uid}, not to you"
    if not (common_git_dir / "HEAD").is_file() or not (common_git_dir / "objects").is_dir():
        return "it is not a git repository"
    return None


def register(common_git_dir: Path) -> bool:
    """Add a repository; False when it was registered already."""
    key = _key(common_git_dir)
    with exclusive(layout.REGISTRY_LOCK.path()):
        current = registered()
        if key in current:
            return False
        _write([*current, key])
        return True


def unregister(common_git_dir: Path) -> bool:
    key = _key(common_git_dir)
    with exclusive(layout.REGISTRY_LOCK.path()):
        current = registered()
        if key not in current:
            return False
        _write([path for path in current if path != key])
        return True


def _key(common_git_dir: Path) -> Path:
    key = common_git_dir.resolve()
    if "\n" in str(key):
        raise ValueError(f"a path with a newline cannot be registered: {str(key)!r}")
    return key


def _write(repositories: list[Path]) -> None:
    data = "".join(f"{path}\n" for path in repositories)
    write_atomic(
        layout.REGISTRY.path(), data.encode("utf-8", errors="surrogateescape"), trusted=None
    )
