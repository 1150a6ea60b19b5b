"""What a push's remote holds, asked rather than told by this repository (push_remote): the
branches and tags a place names now (`git ls-remote`, the share kind's), or why it did not answer.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from landwatch.git import run_git


def heard_tips(
    place: str,
    *,
    cwd: os.PathLike[str] | str,
    git_dir: os.PathLike[str] | str | None,
    timeout: float,
    alive: Callable[[], None] | None = None,
) -> tuple[list[str] | None, str]:
    """What `place` holds now, as `git ls-remote` hears it: the objects at its branches and tags
    (tracking refs may be another place's: a set-url since, a branch deleted there); or None and
    why, where it did not answer within `timeout`. Run in `cwd`, as the person's git is (a
    relative URL is relative to it), on `git_dir` (its configuration)."""
    result = run_git(
        "ls-remote",
        "--heads",
        "--tags",
        "--",
        place,
        cwd=cwd,
        git_dir=git_dir,
        timeout=timeout,
        alive=alive,
        network=True,
    )
    if not result.ok or result.timed_out:
        return None, unanswered("ls-remote", result.returncode, result.stderr, result.timed_out)
    return sorted({line.partition("\t")[0] for line in result.stdout.splitlines()}), ""


def unanswered(what: str, code: int, err: str, timed_out: bool) -> str:
    """Why `git WHAT` asking a remote got nothing, in a line: no answer in time, else the first
    line git said (the reason: a host unknown, no repository there; its last is git's advice),
    else its exit `code`."""
    said = [line.strip() for line in err.splitlines() if line.strip()]
    return "no answer" if timed_out else (said[0] if said else f"git {what} exit {code}")
