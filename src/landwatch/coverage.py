"""How a repository's landings reach landwatch: whether the hooks git runs now are landwatch's,
which tool displaced them if not, and so what covers the repository (docs/coverage.md).

The reflog sweep covers every repository whatever its hooks say; this tells how much more.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

from landwatch import hooks as hookfiles
from landwatch.errors import UserError
from landwatch.hooks import HOOK_EVENTS, whose


class Reach(enum.Enum):
    """What covers the repository's landings."""

    HOOKS = "hooks ok"
    PARTIAL = "hooks partly displaced"
    SWEEP = "sweep only"


@dataclass(frozen=True)
class Coverage:
    reach: Reach
    detail: str  # one line: what was found
    fix: str | None = None  # the command that mends it, when one does
    fixable: bool = False  # `landwatch doctor --fix` may do it with no decision to make

    @property
    def summary(self) -> str:
        reach: str = self.reach.value
        return reach if self.reach is Reach.HOOKS else f"{reach}: {self.detail}"


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def worktree_of(common: Path) -> Path | None:
    """The main worktree of a registered repository (its common dir's parent)."""
    return common.parent if common.name == ".git" else None


def inspect(common: Path) -> Coverage:
    """The coverage of the repository of `common`, from the hooks git runs now."""
    top = worktree_of(common)
    if top is None or not top.is_dir():
        return Coverage(Reach.SWEEP, "no worktree to run hooks in was found")
    try:
        repository = hookfiles.find_repository(top)
    except UserError as error:
        return Coverage(Reach.SWEEP, str(error))
    hooks = repository.hooks_dir
    default = repository.default_hooks_dir
    if hooks.resolve() != default.resolve():
        ours = [event for event in HOOK_EVENTS if whose(hooks / event) == "landwatch"]
        if len(ours) == len(HOOK_EVENTS):
            return Coverage(Reach.HOOKS, f"hooks ok in {hooks}")
        manager = whose(hooks / "post-commit") or "another tool"
        return Coverage(
            Reach.SWEEP,
            f"not reached: core.hooksPath points to {hooks} ({manager}); git does not run "
            f"landwatch's hooks",
            "landwatch install --hooks-path DIR, or call .git/hooks/<event> from that tool's "
            "hooks (docs/hooks.md)",
        )
    missing, displaced = [], {}
    for event in HOOK_EVENTS:
        hook = hooks / event
        owner = whose(hook)
        if owner == "landwatch" and _runnable(hook):
            continue
        if owner is None and not os.path.lexists(hook):
            missing.append(event)
            continue
        for suffix in (".legacy", ".old"):
            if whose(hook.with_name(event + suffix)) == "landwatch":
                displaced[event] = (owner or "another tool", suffix)
                break
        else:
            missing.append(event)
    if not missing and not displaced:
        return Coverage(Reach.HOOKS, "hooks ok")
    if displaced:
        tool, suffix = next(iter(displaced.values()))
        runs_ours = suffix == ".legacy"  # pre-commit and prek run it; lefthook never runs .old
        events = ", ".join(sorted(displaced))
        if runs_ours:
            detail = (
                f"{tool} moved landwatch's {events} to *.legacy and runs them without "
                "post-rewrite's list: rebases are left to the sweep"
            )
            return Coverage(Reach.PARTIAL, detail, "landwatch install (see docs/hooks.md)")
        detail = f"{tool} moved landwatch's {events} to *{suffix}, which it never runs"
        return Coverage(Reach.SWEEP, detail, "landwatch install (see docs/hooks.md)")
    return Coverage(
        Reach.SWEEP,
        f"landwatch's {', '.join(missing)} hook(s) missing or not runnable in {hooks}",
        "landwatch install",
        fixable=True,
    )
