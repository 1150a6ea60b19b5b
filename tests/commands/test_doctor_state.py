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
    """trust.json a newer release wrote, sweep.json garbage, share.json of no format: each one
    line, naming the file, what it stops, and what to do (the sweep's mends itself: the next
    pass writes it anew, so `reviewer --once` is what to run)."""
    trust, sweep, share = (
        layout.TRUST.path(),
        layout.SWEEP_STATE.path(repo.git_dir),
        layout.SHARE_UNDO.path(repo.git_dir),
    )
    trust.parent.mkdir(parents=True, exist_ok=True)
    trust.write_text('{"format": 3, "approvals": []}')
    sweep.write_bytes(b"\x00garbage{")
    share.write_text('{"remote": "origin"}')
    lines = said(repo.path)
    assert (
        f"{trust} was written by a newer landwatch (format 3; this one reads 1): nothing in it is "
        "trusted (committed linters and project hooks are held back), and `landwatch trust` "
        "neither approves nor withdraws; fix: upgrade landwatch to the release that wrote it, or "
        f"move it aside to start afresh (mv {trust} {trust}.aside)"
    ) in lines
    assert (
        f"{sweep} cannot be read (not JSON): the reviewer's next sweep reads every reflog again "
        "from when it was last written, and writes it anew; fix: landwatch reviewer --once (or "
        "the reviewer running: its next sweep)"
    ) in lines
    assert (
        f"{share} cannot be read (not a file landwatch wrote: no format): `landwatch share` and "
        "`share --off` change nothing here; fix: mend it, or move it aside to start afresh "
        f"(mv {share} {share}.aside)"
    ) in lines
