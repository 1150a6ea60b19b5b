"""A rewritten commit (rebased, amended) whose patch is the one already reviewed: the old review
carried over to it, lines moved with their hunks, instead of reviewing it and saying it again.

Carried over only when nothing the review reads differs: the patch byte for byte (paths, modes,
every line with its whitespace; only where its hunks sit may move), the message, the
configuration, the files linters are given, and what the linters were allowed; anything else is
a review of its own.
"""

from __future__ import annotations

import dataclasses
import time

import pygit2

from landwatch.review.change import ChangeError, label_of, resolve, tree_diff
from landwatch.review.config import CONFIG_FILE, PYPROJECT, ConfigError, read_config
from landwatch.review.findings import Finding
from landwatch.review.linters import LinterPolicy
from landwatch.review.pinned import pin
from landwatch.review.report import Report

# The newest reflog entries of HEAD looked at for the amend that made a commit: an amend's
# review is claimed moments after it landed, so it is among the first few.
AMEND_LOOKBACK = 32

# The local branches looked at for a commit before it is taken for replaced: past them, it is
# taken as kept (a line too many, never a finding lost).
BRANCHES_LOOKED_AT = 64

Hunks = dict[str, list[tuple[int, int]]]  # path -> (first new line, lines) of each hunk


def amended_from(repo: pygit2.Repository, oid: str) -> str | None:
    """The commit `git commit --amend` replaced by `oid`, from HEAD's reflog; None if not one."""
    try:
        entries = repo.lookup_reference("HEAD").log()
        for count, entry in enumerate(entries):
            if count >= AMEND_LOOKBACK:
                break
            # An entry written without a message (`git update-ref`, libgit2's tools) has None.
            message = entry.message or ""
            if str(entry.oid_new) == oid and message.startswith("commit (amend):"):
                old = str(entry.oid_old)
                return None if set(old) == {"0"} else old
    except (KeyError, ValueError, pygit2.GitError):
        pass
    return None


def replaced(repo: pygit2.Repository, oid: str) -> bool:
    """Whether `oid` is neither HEAD nor on a local branch any more: a rebase or amend replaced
    it before its review was kept, and its line would tell of a commit the person no longer has."""
    try:
        target = pygit2.Oid(hex=oid)
        tips = [] if repo.head_is_unborn else [repo.head.target]
        for count, name in enumerate(repo.branches.local):
            if count >= BRANCHES_LOOKED_AT:
                return False
            tips.append(repo.branches.local[name].target)
        return not any(tip == target or repo.descendant_of(tip, target) for tip in tips)
    except (KeyError, ValueError, pygit2.GitError):
        return False


def carry_over(
    repo: pygit2.Repository, revision: str, previous: Report, linters: LinterPolicy
) -> Report | None:
    """`previous` (the review of the commit `revision` replaced) as the review of `revision`;
    None when the two differ in anything the review reads, or a finding cannot be placed."""
    if previous.base is not None or previous.shape not in ("commit", "root"):
        return None
    try:
        new = resolve(repo, revision)
        old = resolve(repo, previous.commit)
    except ChangeError:
        return None
    if len(new.parents) > 1 or len(old.parents) > 1 or new.raw_message != old.raw_message:
        return None
    for name in (CONFIG_FILE, PYPROJECT):
        if _entry_id(new.tree, name) != _entry_id(old.tree, name):
            return None
    if _given(repo, new) != _given(repo, old):
        return None  # what the linters are given differs, so may what they find
    if previous.linters_held_back is not None and linters.vet(previous.linters_held_back) is None:
        return None  # the linters held back then are allowed now: they have something to run
    (new_diff, new_prefix), (old_diff, old_prefix) = _diff(new), _diff(old)
    # Not git's patch id, which ignores white space: the whitespace, line-end and syntax rules
    # read it, and an amend that fixed only that is the most common rewrite of all.
    if _patch_text(new_diff, new_prefix) != _patch_text(old_diff, old_prefix):
        return None
    moved = _moves(_hunks(old_diff, old_prefix), _hunks(new_diff, new_prefix))
    findings = []
    for finding in previous.findings:
        placed = _placed(finding, moved)
        if placed is None:
            return None
        findings.append(placed)
    # Stored and shown as the new commit's review, saying whose it was.
    return dataclasses.replace(
        previous,
        commit=str(new.id),
        label=label_of(str(new.id)),
        findings=findings,
        carried_from=previous.commit,
        started=time.time(),
        duration=0.0,
    )


def _entry_id(tree: pygit2.Tree, name: str) -> str | None:
    try:
        return str(tree[name].id)
    except KeyError:
        return None


def _diff(commit: pygit2.Commit) -> tuple[pygit2.Diff, str]:
    # Three lines of context, as git's patch ids have: the same added lines amid other
    # surroundings are another patch, reviewed anew.
    parent = commit.parents[0].tree if commit.parents else None
    return tree_diff(parent, commit.tree, context_lines=3)


def _patch_text(diff: pygit2.Diff, prefix: str) -> str:
    """A digest of everything a patch says but where its hunks sit: each file's paths, modes and
    status (a binary one's new content), each hunk's line counts and every line, bytes as they
    are; two patches are the same review's only when these are equal."""
    import hashlib  # 3 ms, only where a digest is made

    digest = hashlib.sha256()
    for patch in diff:
        if patch is None:
            continue
        delta = patch.delta
        head = (
            f"{prefix}{delta.old_file.path}\0{prefix}{delta.new_file.path}\0"
            f"{delta.old_file.mode:o}\0{delta.new_file.mode:o}\0{delta.status}\0"
            f"{delta.new_file.id if delta.is_binary else ''}\n"
        )
        digest.update(head.encode("utf-8", "surrogateescape"))
        for hunk in patch.hunks:
            digest.update(f"@@{hunk.old_lines},{hunk.new_lines}\n".encode())
            for line in hunk.lines:
                digest.update(line.origin.encode() + line.raw_content + b"\0")
    return digest.hexdigest()


def _hunks(diff: pygit2.Diff, prefix: str) -> Hunks:
    hunks: Hunks = {}
    for patch in diff:
        if patch is None:
            continue
        path = prefix + patch.delta.new_file.path
        hunks[path] = [(h.new_start, h.new_lines) for h in patch.hunks]
    return hunks


def _given(repo: pygit2.Repository, commit: pygit2.Commit) -> str | None:
    """The digest of what a commit's linters are given (review.pinned); None: unreadable."""
    try:
        return pin(repo, commit.tree, read_config(commit.tree, repo).linters).digest
    except ConfigError:
        return None


def _moves(old: Hunks, new: Hunks) -> dict[str, list[tuple[int, int, int]]]:
    """Per path, each hunk's new-side range in the old commit and how far it moved since."""
    moves: dict[str, list[tuple[int, int, int]]] = {}
    for path, hunks in old.items():
        now = new.get(path, [])
        if len(now) != len(hunks):
            continue  # cannot happen with equal patch ids; such a path places nothing
        moves[path] = [
            (start, lines, moved_start - start)
            for (start, lines), (moved_start, _) in zip(hunks, now, strict=True)
        ]
    return moves


def _placed(finding: Finding, moves: dict[str, list[tuple[int, int, int]]]) -> Finding | None:
    """The finding at its line in the new commit; None when that line is outside every hunk
    (what surrounds a hunk may differ between the two commits)."""
    if finding.line is None:
        return dataclasses.replace(finding)
    if finding.path is None:
        # A message finding: the messages are the same.
        return dataclasses.replace(finding)
    for start, lines, by in moves.get(finding.path, []):
        if start <= finding.line < start + max(lines, 1):
            end = finding.end_line + by if finding.end_line is not None else None
            return dataclasses.replace(finding, line=finding.line + by, end_line=end)
    return None
