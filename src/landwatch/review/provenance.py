"""What makes two reviews of one commit the same review, so that a teammate's can stand for one's
own: the rules that ran (their version) and the effective configuration (its hash).

The rules version is a digest of the review's own code, the secret rule set's version and each
plug-in rule's package; the configuration hash covers what the commit's tree decides (its
landwatch configuration) and what differs between people: which linters run, and how.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from landwatch import __version__
from landwatch.lazy_re import lazy_compile
from landwatch.review.config import CONFIG_FILE, PYPROJECT, ConfigError, ReviewConfig, read_config
from landwatch.review.linters import LinterPolicy
from landwatch.review.pinned import CONFIGURATION, describe, pin

# The names of the root's files linters may be given (review.pinned), as one pattern: a range
# of 1,000 commits asks it of every root entry of each.
_CONFIGURATION = lazy_compile("|".join(fnmatch.translate(name) for name in CONFIGURATION))
RULE_SET_PACKAGE = "kingfisher-secret-scanner"  # the provider rule set the secret rules run


@functools.cache
def rules_version() -> str:
    """The digest of what decides the rules' findings: landwatch's review code (its sources, so a
    build with local changes is another version), the secret rule set's package version, and
    each plug-in rule's name and package version. Computed once a process (~3 ms)."""
    import importlib.metadata

    from landwatch.review.rules import ENTRY_POINT_GROUP

    digest = hashlib.sha256(f"landwatch {__version__}\0".encode())
    package = Path(__file__).resolve().parent
    for source in sorted(package.rglob("*.py")):
        digest.update(str(source.relative_to(package)).encode() + b"\0")
        digest.update(source.read_bytes() + b"\0")
    try:
        digest.update(importlib.metadata.version(RULE_SET_PACKAGE).encode() + b"\0")
    except importlib.metadata.PackageNotFoundError:
        digest.update(b"no secret rule set\0")
    for entry_point in sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name
    ):
        dist = entry_point.dist
        owner = f"{dist.name} {dist.version}" if dist is not None else "?"
        digest.update(f"{entry_point.name}={entry_point.value} ({owner})\0".encode())
    return digest.hexdigest()


@dataclass
class Memo:
    """What one pass over many commits of a repository need not compute again: configurations
    by their files' blobs, what is pinned by what it reads, and what the person trusts."""

    configs: dict[tuple[str | None, ...], ReviewConfig | None] = field(default_factory=dict)
    hashes: dict[tuple[Any, ...], str] = field(default_factory=dict)
    vetted: dict[str, bool] = field(default_factory=dict)


def config_hash(
    repo: pygit2.Repository,
    commit: pygit2.Commit,
    linters: LinterPolicy,
    memo: Memo | None = None,
) -> str:
    """The hash of the configuration a review of `commit` runs under with `linters`: the
    commit's landwatch configuration, what its linters would be given and whether they run, and
    the person's own linters.

    Not what the history taught (the subject limit, the conventions): each reviewer learns it
    from the same history, but where its sample was last learned (up to 100 commits back) moves
    the subject limit by a few characters, and a hash of it would leave a third of a real pull's
    shared reviews untaken (bench/bench_team.py). A document says what its reviewer learned, so
    `landwatch ci` can tell a difference it makes from another."""
    memo = memo or Memo()
    tree = commit.tree
    committed = tuple(_entry_id(tree, name) for name in (CONFIG_FILE, PYPROJECT))
    if committed not in memo.configs:
        try:
            memo.configs[committed] = read_config(tree, repo)
        except ConfigError:
            memo.configs[committed] = None  # every reviewer gets the defaults and a finding
    config = memo.configs[committed]
    read = sorted(
        (entry.name, str(entry.id))
        for entry in tree
        if entry.name and _CONFIGURATION.fullmatch(entry.name) is not None
    )
    extra = sorted(
        {path for linter in (config.linters if config else []) for path in linter.config}
    )
    key = (committed, tuple(read), tuple((path, _entry_id(tree, path)) for path in extra))
    if key not in memo.hashes:
        memo.hashes[key] = _hash(repo, tree, config, committed, linters, memo)
    return memo.hashes[key]


def _hash(
    repo: pygit2.Repository,
    tree: pygit2.Tree,
    config: ReviewConfig | None,
    committed: tuple[str | None, ...],
    linters: LinterPolicy,
    memo: Memo,
) -> str:
    pinned = pin(repo, tree, config.linters if config else [])
    if pinned.empty():
        theirs = "none"
    else:
        if pinned.digest not in memo.vetted:
            memo.vetted[pinned.digest] = linters.vet(pinned.digest) is None
        theirs = f"run {pinned.digest}" if memo.vetted[pinned.digest] else "held back"
    own = sorted(json.dumps(describe(linter)) for linter in linters.own)
    runs = bool(own) or theirs.startswith("run")
    document = {
        "committed": list(committed),
        "linters": theirs,
        "own": own,
        "sandboxed": linters.decided().sandboxed if runs else None,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


def _entry_id(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except (KeyError, ValueError):
        return None
