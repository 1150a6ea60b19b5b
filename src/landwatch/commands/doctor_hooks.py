"""What `landwatch doctor` checks of a registered repository's hooks: that git runs landwatch's at
each landing (coverage) and at each push (the gate, judged apart: a tool that replaces the one
replaces the other), in every linked worktree, beside git-lfs's, and as this landwatch writes
them. Where install mends a problem with no decision to make, `--fix` runs it once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from landwatch import coverage, hook_slots, lfs_slots
from landwatch.commands import install
from landwatch.commands.doctor import Problem
from landwatch.git import Worktree
from landwatch.text import safe


def problems(common: Path) -> list[Problem]:
    """Every problem of the hooks of the repository of `common`, coverage first."""
    covered = coverage.inspect(common)
    top = coverage.main_worktree(common)  # where install mends them
    return [
        *_coverage(common, top, covered),
        *_unhooked_worktrees(common),
        *_git_lfs(common, top),
        *_older(common, top, covered.gate),
    ]


@functools.cache
def _reinstall(top: Worktree) -> Callable[[TextIO], None]:
    """install in `top`, one mend for every problem it mends (doctor runs each mend once),
    refused where git there finds a repository other than its git dir's (one above it)."""

    def mend(out: TextIO) -> None:
        install.install(top.where, out=out, git_dir=top.git_dir)

    return mend


def _coverage(common: Path, top: Worktree | None, covered: coverage.Coverage) -> list[Problem]:
    """The landing hooks git runs there are not (all) landwatch's; the push gate does not run
    (its `gate`), mended as they are: by install, or where it cannot, as their fix says."""
    gate = covered.gate
    mend = _reinstall(top) if top is not None else None
    found = []
    # A partial reach with nothing to mend is how it works beside that tool (status says so).
    if covered.reach is not coverage.Reach.HOOKS and covered.fix is not None:
        found.append(
            Problem(
                f"{safe(str(common))}: {covered.summary}",
                covered.fix,
                mend if covered.fixable else None,
            )
        )
    if gate and covered.fix is not None and not covered.fixable:
        found.append(Problem(f"{safe(str(common))}: {gate}", covered.fix))  # as they are mended
    elif gate:
        found.append(Problem(f"{safe(str(common))}: {gate}", "landwatch install", mend))
    return found


def _unhooked_worktrees(common: Path) -> list[Problem]:
    """A linked worktree whose landings no hook records (only the reflog sweep, later)."""
    return [
        Problem(
            f"{safe(str(worktree))}: {safe(what)}; what lands there is not recorded by a hook "
            "(the reflog sweep reviews it, later)",
            "call landwatch's hooks from the tool's (docs/hooks.md, a lasting husky setup)",
        )
        for worktree, what in coverage.unhooked_worktrees(common)
    ]


def _git_lfs(common: Path, top: Worktree | None) -> list[Problem]:
    """git-lfs's hooks beside ours: refused since, or run though git-lfs is gone."""
    hooks_dir = hook_slots.recorded_hooks_dir(common)
    if top is None or hooks_dir is None:
        return []
    refused = lfs_slots.lfs_refused(hooks_dir, common)
    behind = lfs_slots.lfs_left_behind(hooks_dir, common)
    if not (refused or behind):
        return []
    what = (
        f"git-lfs's {', '.join(refused)} hook(s) do not run: git-lfs, installed after "
        "landwatch, stopped at landwatch's"
        if refused
        else f"landwatch still runs git-lfs's {', '.join(behind)} hook(s), though "
        "git-lfs was uninstalled here"
    )
    return [Problem(f"{safe(str(common))}: {what}", "landwatch install", _reinstall(top))]


def _older(common: Path, top: Worktree | None, gate: str | None) -> list[Problem]:
    """The landing hooks in place, an older landwatch's: the fixes since do not run there (where
    the gate is off, the install that mends it writes them again)."""
    hooks_dir = hook_slots.recorded_hooks_dir(common)
    if top is None or hooks_dir is None or not hook_slots.runs_ours(hooks_dir / "post-commit"):
        return []  # coverage says what is wrong with the hooks as a whole
    if gate or not (older := coverage.older_events(hooks_dir)):
        return []
    what = f"its {', '.join(older)} hook(s) are an older landwatch's, without the fixes since"
    return [Problem(f"{safe(str(common))}: {what}", "landwatch install", _reinstall(top))]
