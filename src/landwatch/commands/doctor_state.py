"""What `landwatch doctor` checks of landwatch's own state: each versioned state file this release
cannot read, or a newer one wrote (layout.state: the person's trust.json, a repository's sweep
cursors and share record), with what that stops; a reviewer service given other XDG
directories than the command line has, which keeps its state and reads approvals elsewhere; and
a systemd unit where the user manager does not read it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from landwatch import coverage, layout, registry
from landwatch.commands.doctor import Problem
from landwatch.text import safe


def _stops(place: layout.Place, error: layout.StateError, common: Path | None) -> str:
    """What a state file that cannot be read (`error`) stops, in the words status and the
    reviewer's log use."""
    if place == layout.SWEEP_STATE and common is not None:
        if error.newer:
            return coverage.sweep_off(common) or str(error)
        return (
            f"{error}: the reviewer's next sweep reads every reflog again from when it was last "
            "written, and writes it anew"
        )
    what = {
        layout.TRUST: "nothing in it is trusted (committed linters and project hooks are held "
        "back), and `landwatch trust` neither approves nor withdraws",
        layout.SHARE_UNDO: "`landwatch share` and `share --off` change nothing here",
    }.get(place, "landwatch does not write over it")
    return f"{error}: {what}"


def _state_files(scope: layout.Scope, git_dir: Path | None) -> list[Problem]:
    problems = []
    for place in layout.state_places():
        if place.scope is not scope:
            continue
        try:
            layout.read_state(place, git_dir)
        except layout.StateError as error:
            fix = error.fix
            if place == layout.SWEEP_STATE and not error.newer:
                fix = "landwatch reviewer --once (or the reviewer running: its next sweep)"
            problems.append(Problem(_stops(place, error, git_dir), fix))
    return problems


def person() -> list[Problem]:
    """The person's own state files, and their reviewer's service."""
    return [*_state_files(layout.Scope.USER, None), *_service()]


def repository(common: Path) -> list[Problem]:
    """A registered repository's state files, and each of its worktrees'."""
    found = _state_files(layout.Scope.REPOSITORY, common)
    if (blind := coverage.unlogged(common)) is not None:
        found.append(Problem(blind, coverage.UNLOGGED_FIX))
    for git_dir in registry.worktree_git_dirs(common):
        found += _state_files(layout.Scope.WORKTREE, git_dir)
    return found


def _service() -> list[Problem]:
    """The reviewer's service given other XDG directories than this command line has: it keeps
    its log, state and work key elsewhere, and reviews under approvals it does not read; or its
    unit where the service manager does not read it: it never starts."""
    from landwatch.commands import service

    def mend(out: TextIO) -> None:
        service.service("install", out=out)

    unread = service.unread()
    if unread is not None:
        what = (
            f"the reviewer's unit ({safe(str(unread))}) is where your systemd user manager does "
            "not read it: the reviewer never starts as a service"
        )
        return [Problem(what, "landwatch service install", mend)]
    found = service.apart()
    if found is None:
        return []
    path, names = found
    what = (
        f"the reviewer's service ({safe(str(path))}) is not given your {', '.join(names)} as this "
        "command line has it: it keeps its state and log elsewhere, and reviews without the "
        "approvals you gave (landwatch trust)"
    )
    return [Problem(what, "landwatch service install", mend)]
