"""`landwatch forget PATH`: drop from the reviewer's list a registered repository it cannot reach
(vanished, unreadable, another's), named by its worktree or its git dir.

A repository still there is refused: its hooks would go on recording into a queue nobody drains,
and `landwatch uninstall` there takes them out with the registration.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from landwatch import registry
from landwatch.git import Confirm, Fallback, worktree_of
from landwatch.text import safe


def forget(path: Path) -> int:
    common = _registered_as(path)
    if common is None:
        print(f"landwatch: {safe(str(path))} is not registered", file=sys.stderr)
        return 1
    shown = safe(str(common))
    if registry.problem_with(common) is None:
        where = shlex.quote(
            str(worktree_of(common, confirm=Confirm.READING, fallback=Fallback.NONE).where)
        )
        print(
            f"landwatch: {shown} is still there, and its hooks would go on recording; to stop "
            f"reviewing it, take them out too: cd {safe(where)} && landwatch uninstall",
            file=sys.stderr,
        )
        return 1
    registry.unregister(common)
    print(f"landwatch: forgot {shown}")
    return 0


def _registered_as(path: Path) -> Path | None:
    """The registered common git dir `path` names: itself, or the `.git` of the worktree it is
    (whether or not either exists any more)."""
    registered = registry.registered()
    for candidate in (path, path / ".git"):
        if candidate.resolve() in registered:
            return candidate.resolve()
    return None
