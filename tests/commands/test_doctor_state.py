"""What doctor says of landwatch's own state: each versioned state file this release cannot read,
or a newer one wrote, named with what it stops and what to do."""

from __future__ import annotations

from pathlib import Path

from landwatch import layout
from landwatch.commands.doctor import problems
from support.repos import Repo


def said(cwd: Path) -> list[str]:
    return [f"{problem.what}; fix: {problem.fix}" for problem in problems(cwd)]


def test_each_state_file_that_cannot_be_read_is_named_with_what_it_stops(repo: Repo) -> None:
    """trust.json a newer release wrote: one line, naming the file, what it stops, and what to
    do."""
    trust = layout.TRUST.path()
    trust.parent.mkdir(parents=True, exist_ok=True)
    trust.write_text('{"format": 3, "approvals": []}')
    lines = said(repo.path)
    assert (
        f"{trust} was written by a newer landwatch (format 3; this one reads 1): nothing in it is "
        "trusted (committed linters and project hooks are held back), and `landwatch trust` "
        "neither approves nor withdraws; fix: upgrade landwatch to the release that wrote it, or "
        f"move it aside to start afresh (mv {trust} {trust}.aside)"
    ) in lines
