"""Whose commits a landed range brings, and whose a commit is. When none is the person's (a
teammate's commits arriving by pull or merge) its review is told only at error: the person who
pulled cannot act on the warnings of others' commits, but must know of a secret or a broken file
that arrived with them. A GitHub app's commit is a bot's, unless the app is a coding agent.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

import pygit2

from landwatch.lazy_re import lazy_compile

# A range this long with none of the person's commits among those looked at is taken for others'.
LOOKED_AT = 10_000
NOTE = (
    "the commits of others, landed by a pull or a merge (none is yours by user.email): "
    "the one line tells only of their errors"
)

# GitHub apps that write code for a person, whose commits are reviewed as a person's; every
# other app (`name[bot]`: mergify, release bots) is a bot author as skip_authors' are. The app
# logins CHAOSS' disclosure project lists for coding agents (detection/constants.go).
CODING_AGENTS = frozenset(
    {
        "Copilot",
        "copilot-swe-agent",
        "copilot",
        "claude",
        "anthropic-claude",
        "claude-code-action",
        "cursor",
        "cursoragent",
        "openai-codex",
        "chatgpt-codex-connector",
        "gemini-code-assist",
        "google-labs-jules",
        "devin-ai-integration",
        "cline",
        "continue",
        "sourcegraph-cody",
        "jetbrains-ai",
        "amazon-q-developer",
        "coderabbitai",
        "windsurf-bot",
    }
)
_APP = lazy_compile(r"^(?:\d+\+)?([A-Za-z0-9-]+)\[bot\](?:@users\.noreply\.github\.com)?$")


def app_login(name: str, email: str) -> str | None:
    """The login of the GitHub app that authored a commit (`mergify[bot]`, or the address
    `37929162+mergify[bot]@users.noreply.github.com` under another name), else None."""
    for said in (email, name):
        match = _APP.match(said.strip())
        if match is not None:
            return match[1]
    return None


def others_only(repo: pygit2.Repository, tip: str, base: str, email: str) -> bool:
    """Whether every commit `base..tip` brings, merges aside, was written and committed by
    others than `email` (compared without case), a copy of one `base` holds (a hosting service's
    "Rebase and merge") counting as none; False when `email` is empty or the range brings none."""
    mine = email.strip().lower().encode("utf-8", "surrogateescape")  # as git wrote it
    if not mine:
        return False
    try:
        walked = _walk(repo, [tip], base)
    except (KeyError, ValueError, pygit2.GitError):
        return False
    others = False
    held: set[pygit2.Oid] | None = None  # the patches of what `base` holds that `tip` does not
    for commit in walked:
        if len(commit.parents) > 1:
            continue  # a merge: the pull's own, or one among theirs; its commits say whose
        if mine in (commit.author.raw_email.lower(), commit.committer.raw_email.lower()):
            held = _patches(repo, base, tip) if held is None else held
            if not commit.parents or _patch(commit) not in held:
                return False
            continue  # a copy of one the branch held ("Rebase and merge"): its lines are in base
        others = True
    return others


def copied(
    repo: pygit2.Repository,
    tip: str,
    unreviewed: Iterable[pygit2.Commit],
    kept: Callable[[str], bool],
) -> list[str]:
    """The commits of the person's local branches that `tip` lacks, reviewed here (`kept`), of
    which `unreviewed` (a landed range's commits with no review) holds a copy: the same patch by
    the same author (their branch "Rebase and merge"d by the host, then pulled)."""
    by_author: dict[bytes, list[pygit2.Commit]] = {}
    for commit in unreviewed:
        if len(commit.parents) == 1:
            by_author.setdefault(commit.author.raw_email.lower(), []).append(commit)
    try:
        branches = [at for name in repo.branches.local if (at := _commit_of(repo, name))]
        if not by_author or not branches:
            return []
        found, copies = [], {}  # copies: each author's patches, made once asked for
        for commit in _walk(repo, branches, tip):
            author = commit.author.raw_email.lower()
            if len(commit.parents) != 1 or author not in by_author or not kept(str(commit.id)):
                continue
            if author not in copies:
                copies[author] = {_patch(each) for each in by_author[author]}
            if _patch(commit) in copies[author]:
                found.append(str(commit.id))
        return found
    except (KeyError, ValueError, pygit2.GitError):
        return []


def _commit_of(repo: pygit2.Repository, branch: str) -> pygit2.Oid | None:
    """The commit the local `branch` is at, through a symbolic one (`master` for `main`); None
    for one at no commit (dangling, a tree): a walk cannot start from it (an audit: one such
    branch stopped the whole walk, and copied found nothing)."""
    try:
        at = repo.get(repo.branches.local[branch].resolve().target)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return at.id if isinstance(at, pygit2.Commit) else None


def _patches(repo: pygit2.Repository, base: str, tip: str) -> set[pygit2.Oid]:
    """The patch ids of the commits, merges aside, that `base` brings and `tip` does not."""
    return {_patch(commit) for commit in _walk(repo, [base], tip) if len(commit.parents) == 1}


def _walk(
    repo: pygit2.Repository, tips: Sequence[pygit2.Oid | str], hidden: str
) -> Iterator[pygit2.Commit]:
    """The first LOOKED_AT commits `tips` hold and `hidden` does not (`git rev-list tips
    ^hidden`); a name git cannot read raises here, an object missing on the way as it is read."""
    walker = repo.walk(tips[0])
    for other in tips[1:]:
        walker.push(other)
    walker.hide(hidden)
    return itertools.islice(walker, LOOKED_AT)


def _patch(commit: pygit2.Commit) -> pygit2.Oid:
    """What git's patch-id says of a commit against its parent: equal for a copy of it."""
    return commit.parents[0].tree.diff_to_tree(commit.tree).patchid
