"""A rewritten commit (amended, rebased) that reads as the one already reviewed: the old review
carried over to it instead of reviewing it again (and the commits rewrite replaced found).

Carried over only when nothing the review reads differs: the tree, the parent's tree, the message,
the author and what the linters were allowed (an amend of the date, the commits after one a
rebase reworded); anything else is a review of its own, which tells only what was not seen.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator

import pygit2

from landwatch.review.change import ChangeError, label_of, resolve
from landwatch.review.linters import LinterPolicy
from landwatch.review.report import Report

# The most entries of HEAD's reflog walked back for the one that made a commit. The walk ends at
# the first entry older than the commit (git writes that entry at the commit's own time), so an
# amend is found however often HEAD moved after it; this bounds a walk no entry ends (every
# entry as old, with GIT_COMMITTER_DATE held fixed). libgit2 parses the whole reflog first
# whatever is walked: ~45 ms for 100,000 entries (14 MB); walking 10,000 of them adds ~5 ms.
MOST_ENTRIES = 10_000
# The newest entries walked whatever their time: a clock stepped back since the commit (or a
# commit dated ahead, GIT_COMMITTER_DATE) leaves the entries after it older than it.
FEWEST_ENTRIES = 32
# The most commits a reset took HEAD off that one commit made in their place is taken to replace
# (a squash by hand): past it, a reset further back than anyone squashes, told anew.
MOST_SQUASHED = 100
# The most commits made one after another since such a reset that each replace what it took HEAD
# off (a split by hand: `reset HEAD~1`, then a commit of each part): past it, new work.
MOST_PIECES = 16
# What git's reflog says of a commit made by `git commit` (`commit (initial):` and `commit
# (merge):` make none an amend replaces), and of `git reset`.
_AMEND, _COMMIT, _RESET = "commit (amend):", "commit:", "reset: moving to "


def amended_from(
    repo: pygit2.Repository, oid: str, *, gone: Callable[[list[str]], set[str]]
) -> tuple[str, ...]:
    """The commits an amend replaced by `oid`, from HEAD's reflog: `git commit --amend`'s one, or
    those `git reset` took HEAD off just before `oid` was committed in their place (a squash by
    hand: `reset --soft HEAD~3 && commit`), oldest first; none if none."""
    try:
        made = repo.get(oid)
        if not isinstance(made, pygit2.Commit):
            return ()
        entries = repo.lookup_reference("HEAD").log()
        for count, entry in enumerate(entries):
            older = count >= FEWEST_ENTRIES and entry.committer.time < made.commit_time
            if older or count >= MOST_ENTRIES:
                break
            if entry.oid_new != made.id:
                continue
            # An entry written without a message (`git update-ref`, libgit2's tools) has None.
            message = entry.message or ""
            if message.startswith(_AMEND):
                old = str(entry.oid_old)
                return () if set(old) == {"0"} else (old,)
            if message.startswith(_COMMIT):
                return _reset_away(repo, made, entries, gone)
    except (KeyError, ValueError, pygit2.GitError):
        pass
    return ()


def _reset_away(
    repo: pygit2.Repository,
    made: pygit2.Commit,
    entries: Iterator[pygit2.RefLogEntry],
    gone: Callable[[list[str]], set[str]],
) -> tuple[str, ...]:
    """The commits `git reset` took HEAD off just before `made`, or before the commits made one
    on another up to it (`entries`: the reflog after `made`'s entry; a split by hand), when
    they took their place: HEAD went down its first parents to the first one's, and the person
    has none of them any more (`gone`, asked once of all); at most MOST_SQUASHED."""
    before = next(entries, None)
    for _ in range(MOST_PIECES):  # back over the parts made before it, if a split
        if before is None or not (before.message or "").startswith(_COMMIT):
            break
        part = repo.get(before.oid_new)
        if not made.parent_ids or made.parent_ids[0] != before.oid_new:
            return ()
        if not isinstance(part, pygit2.Commit):
            return ()
        made, before = part, next(entries, None)
    if before is None or not (before.message or "").startswith(_RESET) or not made.parent_ids:
        return ()
    parent = made.parent_ids[0]
    if before.oid_new != parent:
        return ()
    walked: list[str] = []
    at = repo.get(before.oid_old)
    while isinstance(at, pygit2.Commit) and at.id != parent and len(walked) < MOST_SQUASHED:
        walked.append(str(at.id))
        at = repo.get(at.parent_ids[0]) if at.parent_ids else None
    if not walked or not isinstance(at, pygit2.Commit) or at.id != parent:
        return ()
    return tuple(reversed(walked)) if gone(walked) >= set(walked) else ()


def carry_over(
    repo: pygit2.Repository, revision: str, previous: Report, linters: LinterPolicy
) -> Report | None:
    """`previous` (the review of the commit `revision` replaced) as the review of `revision`;
    None unless the two read alike: one tree, one parent's tree, one message, one author."""
    if previous.base is not None or previous.shape not in ("commit", "root"):
        return None
    try:
        new = resolve(repo, revision)
        old = resolve(repo, previous.commit)
    except ChangeError:
        return None
    if len(new.parents) > 1 or len(old.parents) > 1 or new.raw_message != old.raw_message:
        return None
    # The author too: a bot's commit is read apart, and a person's by their own practice.
    if (new.author.name, new.author.email) != (old.author.name, old.author.email):
        return None
    # The same tree on the same parent's tree is the same patch at the same places, and the
    # same everything else a review reads beyond it: the configuration, the secret scanners'
    # declarations, the files the linters are given, whole files, the tree a secret was copied
    # from. A patch alike on another base is reviewed anew (told only for what is new).
    if new.tree_id != old.tree_id or _parent_tree(new) != _parent_tree(old):
        return None
    if previous.linters_held_back is not None and linters.vet(previous.linters_held_back) is None:
        return None  # the linters held back then are allowed now: they have something to run
    # Stored and shown as the new commit's review, saying whose it was.
    return dataclasses.replace(
        previous,
        commit=str(new.id),
        label=label_of(str(new.id)),
        findings=[dataclasses.replace(finding) for finding in previous.findings],
        carried_from=previous.commit,
        started=time.time(),
        duration=0.0,
    )


def _parent_tree(commit: pygit2.Commit) -> pygit2.Oid | None:
    return commit.parents[0].tree_id if commit.parents else None
