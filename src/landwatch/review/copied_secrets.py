"""A secret the tree before the change already held is no new leak: a file copied, or a value
copied into a new place (a README's badge token into a new page of docs). Such a finding is told
at info, naming where the value was, as one already in its own file is (rules.secret_rule). Before
a merge were all its parents: a value on its own lines that any of them held is copied too. Only
a place the secret rules read holds a value (not excluded, nor binary): one where they never
looked was never told, so a value copied out of it is as new as it looks.

One walk over the parent's tree answers all of a change's questions, bounded in what it reads;
it is taken only when a secret finding above info is left to judge, which few commits have.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pygit2

from landwatch.review.binary import looks_binary
from landwatch.review.blobs import blob_data
from landwatch.review.change import Change, FileChange
from landwatch.review.config import ReviewConfig
from landwatch.review.diffs import BroughtIn
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import matches_any
from landwatch.review.redacting import LinesRead
from landwatch.review.rules.base import RuleSet

# A shorter value could be in some file by chance.
SHORTEST = 8
# What one walk may read. A file past MOST_BLOB_BYTES is data, not where a credential is copied
# from; past MOST_TREE_BYTES or MOST_ENTRIES the walk stops, and what it did not read lowers
# nothing. Past MOST_VALUES a commit's secrets are not asked about at all: they stay as found.
MOST_BLOB_BYTES = 1 << 20
MOST_TREE_BYTES = 64 << 20
MOST_ENTRIES = 100_000
MOST_VALUES = 64


@dataclass
class Holders:
    """Where in the tree before the change each value asked about was first found, and
    whether the walk read every file it meant to."""

    paths: dict[bytes, str]
    complete: bool


def copied_told_at_info(
    findings: list[Finding],
    files: dict[str, FileChange],
    change: Change,
    config: ReviewConfig,
    rules: RuleSet,
    notes: list[str],
) -> list[Finding]:
    """The findings, each secret one whose value the tree before the change already held where
    the secret rules of `config` read, lowered to info and saying where it was; counted in
    `notes`."""
    if change.tree_before is None:
        return findings  # a root commit: nothing was there before
    secret_rules = {rule.id for rule in rules.rules if rule.secret}
    asked: list[tuple[Finding, bytes]] = []
    read = LinesRead(files)  # not the message: what a message holds is never asked about
    for finding in findings:
        if finding.rule not in secret_rules or finding.severity <= Severity.INFO:
            continue
        text = read.value(finding)
        if text is not None and len(text) >= SHORTEST:
            asked.append((finding, text.encode("utf-8", "surrogatepass")))
    if not asked or len(asked) > MOST_VALUES:
        return findings
    reads = read_for_secrets(config, rules)
    values = {value for _, value in asked}
    holders = holders_of(change.repo, change.tree_before, values, reads=reads)
    elsewhere = _in_other_parents(change, asked, holders, reads)
    told = 0
    for at, (finding, value) in enumerate(asked):
        where = holders.paths.get(value) or elsewhere.get(at)
        if where is not None:
            finding.severity = Severity.INFO
            finding.message += f" (already in {where} before the change: copied, not new)"
            told += 1
    if told:
        notes.append(
            f"{told} secret finding{'s' if told != 1 else ''} told at info: the tree before the "
            "change already held the value (copied or moved, not new)"
        )
    if not holders.complete and told < len(asked):
        notes.append(
            "the tree before the change was too large to read whole for copied secrets; "
            "the secrets it did not find there are told as new"
        )
    return findings


def read_for_secrets(config: ReviewConfig, rules: RuleSet) -> Callable[[str], bool]:
    """Whether the secret `rules` read a file at a path, as `config` excludes and allows paths:
    a place they never read holds nothing they told."""
    secret = [rule for rule in rules.rules if rule.secret]
    skipped = (*config.exclude, *config.secrets_allow_paths)

    def reads(path: str) -> bool:
        return not matches_any(path, skipped) and any(rule.wants(path) for rule in secret)

    return reads


def _in_other_parents(
    change: Change,
    asked: list[tuple[Finding, bytes]],
    holders: Holders,
    reads: Callable[[str], bool],
) -> dict[int, str]:
    """Of a merge, where its other parents' trees hold the values of `asked` the tree before the
    change (the first parent's) lacks, by their place in `asked`: only of findings on what none
    of its parents has (a line one of them holds, the merge brought in: it stays as found).
    `holders` is told when a walk stopped short; a parent not readable here lowers nothing."""
    merge = change.commit
    if len(merge.parent_ids) < 2:
        return {}
    found: dict[bytes, str] = {}
    try:
        brought = BroughtIn(change.repo, merge)
        own = {
            at: value
            for at, (finding, value) in enumerate(asked)
            if value not in holders.paths and not brought.holds(finding.path, finding.line)
        }
        for tree in brought.others:
            if not (left := set(own.values()) - found.keys()):
                break
            walked = holders_of(change.repo, tree, left, reads=reads)
            found |= walked.paths
            holders.complete &= walked.complete
    except (KeyError, ValueError, pygit2.GitError):
        return {}
    return {at: found[value] for at, value in own.items() if value in found}


def holders_of(
    repo: pygit2.Repository,
    tree: pygit2.Tree,
    values: set[bytes],
    *,
    reads: Callable[[str], bool] = lambda path: True,
    most_bytes: int = MOST_TREE_BYTES,
    most_entries: int = MOST_ENTRIES,
) -> Holders:
    """Where in `tree` each of `values` is first found in a text file at a path the secret rules
    `reads`, reading each distinct blob once, none past MOST_BLOB_BYTES, and no more than
    `most_bytes` and `most_entries` in all."""
    paths: dict[bytes, str] = {}
    left, seen = set(values), set[pygit2.Oid]()
    read = entries = 0
    pending: list[tuple[str, pygit2.Tree]] = [("", tree)]
    while pending and left:
        prefix, current = pending.pop()
        for entry in current:
            entries += 1
            if entries > most_entries:
                return Holders(paths, complete=False)
            path = f"{prefix}{entry.name}"
            if entry.type_str == "tree":
                subtree = repo.get(entry.id)
                if isinstance(subtree, pygit2.Tree):
                    pending.append((f"{path}/", subtree))
                continue
            if entry.type_str != "blob" or entry.id in seen or not reads(path):
                continue  # a submodule's commit, content already read, or where no rule reads
            seen.add(entry.id)
            _, size = repo.odb.read_header(entry.id)
            if size > MOST_BLOB_BYTES:
                continue
            if read + size > most_bytes:
                return Holders(paths, complete=False)
            read += size
            data = blob_data(repo, entry.id) or b""
            if looks_binary(data):
                continue  # no line rule reads it (review.binary)
            for value in [value for value in left if value in data]:
                paths[value] = path
                left.discard(value)
    return Holders(paths, complete=True)
