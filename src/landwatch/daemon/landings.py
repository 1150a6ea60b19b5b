"""What one reflog entry lands (docs/coverage.md, how a reflog entry is read): the reviews a
movement of a ref asks for that nobody did, a commit each or a range, asked of the repository
(`Repository`: what was recorded, reviewed or skipped here, and git's answers).

Kept apart from the sweep's passes and cursors (daemon.sweep), which feed it each entry.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from landwatch import layout, registry, report_store, work_item
from landwatch.daemon.reflog import Entry
from landwatch.git import run_git
from landwatch.kinds import FLOOD
from landwatch.lazy_re import lazy_compile
from landwatch.work_item import WorkKind

_ZERO = lazy_compile(r"0{40}|0{64}")
_ONTO = lazy_compile(rf" onto ({work_item.OID})$")
# A ref moving without landing anything: a clone's birth, a rename.
_NOT_LANDINGS = ("clone:", "Branch: renamed")
# A ref moved by hand: `git reset`, `git branch -f`, `checkout -B`, `switch -C` (`branch: Reset
# to`), `git fetch origin main:main` into a branch, HEAD going from branch to branch. A branch
# moved forward or sideways (a diverged branch reset onto its fetched upstream) lands what it
# brings as a pull does, one range from where it was: what the worktree did not hold, so a
# squash-merged copy of its own commits is not told again; HEAD's reflog says it again where a
# branch moved, and a detached HEAD is no branch.
_MOVED = ("reset:", "branch:", "checkout:", "fetch")
# What writes a commit where a ref was unborn: git's `commit (initial)`, a cherry-pick or `am`
# onto an orphan branch, a libgit2 client's `commit:` on a new branch. Any other birth of a ref
# (a new worktree's HEAD, whose entry has no message; `branch: Created from`; `initial pull`) is
# at a commit that was there.
_WRITES_COMMIT = lazy_compile(r"(?:commit(?: \(\w+\))?|cherry-pick|am):")
# What writes commits onto a branch, by the action git wrote before the first colon: `commit`,
# `commit (amend)`, `cherry-pick`, `revert`, `am`, `merge X`, `pull ...`, `filter-branch`. Any
# other entry (a script's `update-ref`, which writes no message; `push`; a tool's own words)
# says nothing of how the branch moved: its old and new commits do, and one moved sideways is
# moved as by hand.
_WRITES = lazy_compile(r"(?:commit|cherry-pick|revert|am|merge|pull|filter-branch)\b")
# A rebase's entries, by the action that wrote them (before the first colon): `rebase (pick)`,
# `rebase -i (finish)`, `pull --rebase origin main (start)`, `pull -r (finish)`. Never the word
# anywhere: `commit: Fix the rebase script` is a landing like any other.
_REBASE_ACTION = lazy_compile(r"rebase\b|pull\b.*\s(?:--rebase\b|-r\b)")


class Repository:
    """What the sweep asks of one repository while it works through its entries."""

    def __init__(self, common: Path) -> None:
        self.common = common
        self.worktrees = registry.worktree_git_dirs(common)

    def recorded(self, oid: str) -> bool:
        """Recorded in any worktree's queue (in any state), reviewed, or skipped on purpose.

        A report counts only when it is a report of this commit, a marker only when it holds
        its record: a copied one, or one planted with the repository, reviews nothing."""
        id_ = f"{WorkKind.REVIEW}-{oid}"
        for git_dir in self.worktrees:
            if work_item.is_known(git_dir, id_) and work_item.known_record(git_dir, id_):
                return True
            if os.path.lexists(layout.SKIPPED.path(git_dir) / oid):
                return True
        return os.path.lexists(layout.report_file(self.common, oid)) and (
            report_store.read_review(self.common, oid) is not None
        )

    def waits_elsewhere(self, oid: str, here: Path) -> bool:
        """Whether the landing at `oid` is still to be reviewed by a linked worktree's queue
        other than `here`'s, and nowhere else: that worktree removed first, its queue goes with
        it, and only its reflog read again finds the commit (the sweep waits before it)."""
        linked = [git_dir for git_dir in self.worktrees[1:] if git_dir != here]
        id_ = f"{WorkKind.REVIEW}-{oid}"
        # Most repositories have no other linked worktree: no entry of theirs asks more.
        if not linked or work_item.is_known(self.common, id_):
            return False
        if os.path.lexists(layout.report_file(self.common, oid)):
            return False
        for git_dir in linked:
            with contextlib.suppress(work_item.QueueError):
                if work_item.in_line(git_dir, id_):
                    return True
        return False

    def landed_from(self, oid: str) -> str | None:
        """Where the review of the landing at `oid` reads it from: its record's or its report's
        base, else its first parent (`oid^`: a merge's review reads all it brought in); None
        when neither was kept (skipped on purpose: nobody reviews it)."""
        id_ = f"{WorkKind.REVIEW}-{oid}"
        for git_dir in self.worktrees:
            if work_item.is_known(git_dir, id_) and (item := work_item.known_record(git_dir, id_)):
                return item.base or f"{oid}^"
        report = report_store.read_review(self.common, oid)
        return None if report is None else report.base or f"{oid}^"

    def covered(self, entry: Entry, commits: list[str], tips: Sequence[str]) -> bool:
        """Whether a landing recorded here at one of `tips` (where the reflog read with `entry`
        moved its ref) brought each of `commits`, which `entry` brings: a pull after a branch
        moved sideways came back, whose review reads them all (from where it was, as `entry`'s
        would). The landings above `entry`'s commit are found in one walk."""
        landed = [tip for tip in dict.fromkeys(tips) if tip != entry.new and self.recorded(tip)]
        if not landed or len(commits) > FLOOD:
            return False  # a flood is listed only in part
        walk = ["rev-list", "--ancestry-path", "--stdin"]
        above = set(self.git(*walk, input="\n".join([f"^{entry.new}", *landed, ""])))
        for tip in landed:
            base = self.landed_from(tip) if tip in above else None
            if base is not None and set(commits) <= set(self.commits(entry.new, entry.old, base)):
                return True
        return False

    def git(self, *args: str, input: str | None = None) -> list[str]:
        result = run_git(*args, git_dir=self.common, input=input)
        return result.stdout.split() if result.ok else []

    def commits(self, tip: str, *hide: str | None) -> list[str]:
        """What `tip` has that none of `hide` has, oldest first, at most FLOOD + 1 of them."""
        args = ["rev-list", f"--max-count={FLOOD + 1}", tip]
        args += [f"^{hidden}" for hidden in hide if hidden is not None]
        return list(reversed(self.git(*args, "--")))

    def shallow(self) -> bool:
        """Whether its history is cut short (a shallow clone): there, two commits with no
        merge base may still be one history."""
        return os.path.lexists(self.common / "shallow")

    def merge_base(self, a: str, b: str) -> str | None:
        found = self.git("merge-base", a, b)
        return found[0] if found else None


def landings(
    repo: Repository, entry: Entry, is_head: bool, tips: Sequence[str] = ()
) -> list[tuple[str, str | None]]:
    """(tip, base) of each review this movement asks for that nobody has done: a single commit
    (base None) or a range. `tips`: where the entries read with it moved the ref."""
    message = entry.message
    moved = message.startswith(_MOVED)
    if _ZERO.fullmatch(entry.new) or message.startswith(_NOT_LANDINGS) or (moved and is_head):
        return []
    # A pull --rebase with nothing of its own to replay fast-forwards: a pull, written as one.
    if _REBASE_ACTION.match(message.partition(":")[0]) and not message.endswith(": Fast-forward"):
        if "(finish)" not in message or is_head:
            return []  # the steps of a rebase; its finish is read from the branch's reflog
        return _rebase(repo, entry)
    if repo.recorded(entry.new):
        return []  # the hooks recorded it (or it was reviewed, or skipped on purpose)
    if _ZERO.fullmatch(entry.old):
        # A ref born: what was below its commit had landed before (or before the install).
        return [(entry.new, None)] if _WRITES_COMMIT.match(message) else []
    commits = [oid for oid in repo.commits(entry.new, entry.old) if not repo.recorded(oid)]
    if not commits:
        return []  # nothing new: moved backwards, or onto what was recorded
    if moved or not _WRITES.match(message.partition(":")[0]):
        base = repo.merge_base(entry.old, entry.new)
        if moved or base != entry.old:  # said to, or sideways: its old commit is not below it
            if is_head:
                return []  # the branch's reflog says it again; a detached HEAD moves no branch
            # No merge base: an unrelated history, as a ref born at a commit that was there;
            # in a shallow clone, one cut short (a fetch --depth 1, then a reset: an audit).
            if (base is None and not repo.shallow()) or repo.covered(entry, commits, tips):
                return []
            return [(entry.new, entry.old)]
    if message.startswith(("merge ", "pull", "commit (merge)")) or len(commits) > FLOOD:
        return [(entry.new, entry.old)]  # as the post-merge hook does: what landed, as one range
    return [(oid, None) for oid in commits]


def _rebase(repo: Repository, entry: Entry) -> list[tuple[str, str | None]]:
    """A finished rebase: the upstream commits it brought in, once as a range, and each of the
    rewritten commits (the post-rewrite hook's, unless it was displaced)."""
    found: list[tuple[str, str | None]] = []
    onto = _ONTO.search(entry.message)
    rewritten_from = entry.old
    if onto is not None:
        upstream = onto[1]
        base = repo.merge_base(entry.old, upstream)
        incoming = [oid for oid in repo.commits(upstream, base) if not repo.recorded(oid)]
        if incoming and base is not None:  # from where the branch was, as a move sideways
            found.append((upstream, entry.old))
        rewritten_from = upstream
    rewritten = [oid for oid in repo.commits(entry.new, rewritten_from) if not repo.recorded(oid)]
    if len(rewritten) > FLOOD:
        return [*found, (entry.new, rewritten_from)]
    return [*found, *((oid, None) for oid in rewritten)]
