"""What `landwatch doctor` checks of a registered repository's sharing (`landwatch share`): no
refspec fetching into the local notes (a forced fetch would replace them); the setting saying
what share turned on; the remote named being one; its fetch bringing the notes, and never a ref
below them (the negative refspec a share before it did not add: one pushed there failed every
fetch). `landwatch share` mends what needs no decision, run once by `--fix`.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from landwatch import sharing
from landwatch.commands.doctor import Problem
from landwatch.git import Confirm, Fallback, git, run_git, worktree_of
from landwatch.review.notes import NOTES_REF
from landwatch.text import safe


def problems(common: Path, remote: str | None) -> list[Problem]:
    """Every problem of the sharing of the repository of `common`, which shares with `remote`
    (landwatch.share.remote) if it is set."""
    where = worktree_of(common, confirm=Confirm.READING, fallback=Fallback.NONE).where
    found = _into_the_notes(common, where) + _half_shared(common, where, remote)
    if not remote:
        return found
    shown = safe(str(common))
    if not run_git("remote", "get-url", "--", remote, cwd=where).ok:
        return [
            *found,
            Problem(
                f"{shown}: reviews are shared with {safe(remote)!r}, which is no remote here",
                "landwatch share --off (then landwatch share REMOTE)",
            ),
        ]
    fetched = git("config", "--get-all", f"remote.{remote}.fetch", cwd=where, check=False)
    refspecs = sharing.fetch_refspecs(remote)
    key = f"remote.{safe(remote)}.fetch"
    if refspecs[0] not in fetched.splitlines():
        what = (
            f"{shown}: a fetch of {safe(remote)} does not bring its review notes (the refspec "
            f"{safe(refspecs[0])} is missing from {key})"
        )
        found.append(Problem(what, f"landwatch share {shlex.quote(remote)}", _share(where, remote)))
    if sharing.EXCLUDED in refspecs and sharing.EXCLUDED not in fetched.splitlines():
        what = (
            f"{shown}: a fetch of {safe(remote)} fails once anyone who can push there puts a "
            f"ref below {NOTES_REF} (the refspec {sharing.EXCLUDED} is missing from {key}: a "
            "share by an older landwatch did not add it)"
        )
        found.append(Problem(what, f"landwatch share {shlex.quote(remote)}", _share(where, remote)))
    return found


def _half_shared(common: Path, where: Path, remote: str | None) -> list[Problem]:
    """Sharing turned on by `landwatch share` (share.json) while the setting says otherwise: gone
    (unset by hand, a config restored), nothing is shared, and share said it was already."""
    from landwatch.commands.share import SHARE_KEY, shared_remote

    recorded = shared_remote(common)
    if recorded is None or recorded == remote:
        return []
    said = f"is {safe(remote)!r}, set since" if remote else "is not set: the reviews are not shared"
    what = (
        f"{safe(str(common))}: landwatch share turned sharing on with {safe(recorded)}, but "
        f"{SHARE_KEY} {said}"
    )
    fix = f"landwatch share {shlex.quote(recorded)}"
    if remote:  # another remote named by hand: which one is the person's to say
        return [Problem(what, f"{fix} (or landwatch share --off, then landwatch share REMOTE)")]
    return [Problem(what, fix, _share(where, recorded))]


def _into_the_notes(common: Path, where: Path) -> list[Problem]:
    """Each refspec of any remote that fetches into the local notes, which a fetch replaces."""
    found = []
    fetches = git("config", "--get-regexp", r"^remote\..*\.fetch$", cwd=where, check=False)
    for line in fetches.splitlines():
        key, _, value = line.partition(" ")
        if value.rpartition(":")[2] in (NOTES_REF, f"{NOTES_REF}*"):
            found.append(
                Problem(
                    f"{safe(str(common))}: {safe(key)} fetches into {NOTES_REF} ({safe(value)}): "
                    "a fetch would replace the reviews written here",
                    f"git -C {shlex.quote(str(where))} config --fixed-value --unset "
                    f"{shlex.quote(key)} {shlex.quote(value)}",
                )
            )
    return found


@functools.cache
def _share(where: Path, remote: str) -> Callable[[TextIO], None]:
    """`landwatch share REMOTE` in `where`, one mend for every problem it mends (once)."""

    def mend(out: TextIO) -> None:
        from landwatch.commands.share import share

        share(where, remote=remote, off=False, out=out)

    return mend
