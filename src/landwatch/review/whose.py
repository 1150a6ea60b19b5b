"""Whose commits a landed range brings. When none is the person's (a teammate's commits arriving
by pull or merge) its review is told only at error: the person who pulled cannot act on the
warnings of others' commits, but must know of a secret or a broken file that arrived with them.
"""

from __future__ import annotations

import pygit2

# A range this long with none of the person's commits among those looked at is taken for others'.
LOOKED_AT = 10_000
NOTE = (
    "the commits of others, landed by a pull or a merge (none is yours by user.email): "
    "the one line tells only of their errors"
)


def others_only(repo: pygit2.Repository, tip: str, base: str, email: str) -> bool:
    """Whether every commit `base..tip` brings, merges aside, was written and committed by
    others than `email` (compared without case); False when `email` is empty (whose a commit
    is cannot be told) or the range brings none."""
    mine = email.strip().lower().encode()
    if not mine:
        return False
    try:
        walker = repo.walk(tip)
        walker.hide(base)
    except (KeyError, ValueError, pygit2.GitError):
        return False
    others = False
    for count, commit in enumerate(walker):
        if count >= LOOKED_AT:
            break
        if len(commit.parents) > 1:
            continue  # a merge: the pull's own, or one among theirs; its commits say whose
        if mine in (commit.author.raw_email.lower(), commit.committer.raw_email.lower()):
            return False
        others = True
    return others
