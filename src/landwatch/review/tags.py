"""An annotated tag's message judged by the secret rules, as a commit's message is: a tag is no
commit, so no review reads its words, yet a push sends them (the push gate asks).
"""

from __future__ import annotations

import os

import pygit2

from landwatch.review import engine
from landwatch.review.bursts import one_per_secret, unique_fingerprints
from landwatch.review.change import open_repository
from landwatch.review.checking import message_secrets
from landwatch.review.findings import Finding
from landwatch.review.message import Message

# How deep a tag naming a tag is followed: git allows any depth, and nobody makes more than one.
DEPTH = 10


def annotated(git_dir: os.PathLike[str] | str, oid: str) -> list[str]:
    """The annotated tag `oid` and the tags it names in turn (to DEPTH), outermost first; none
    when `oid` is not a tag object here."""
    repo = open_repository(git_dir)
    found: list[str] = []
    tag = _object(repo, oid)
    while isinstance(tag, pygit2.Tag) and len(found) < DEPTH:
        found.append(str(tag.id))
        tag = _object(repo, tag.target)
    return found


def message_findings(git_dir: os.PathLike[str] | str, oid: str) -> list[Finding]:
    """What the secret rules find in the message of annotated tag `oid`, configured as the commit
    it names configures them (the defaults when it names none), redacted as a review's are."""
    repo = open_repository(git_dir)
    tag = _object(repo, oid)
    if not isinstance(tag, pygit2.Tag):
        return []
    try:
        tree: pygit2.Tree | None = tag.peel(pygit2.Commit).tree
    except (pygit2.GitError, ValueError, KeyError):
        tree = None  # a tag of a tree or a blob: no committed configuration
    config, _ = engine.configuration(repo, tree)  # a bad one is its commit's review's finding
    rules, _ = engine.rules_of(config, at_push=True)
    tagger = tag.tagger
    message = Message(
        tag.raw_message, tagger.name if tagger else "", tagger.email if tagger else ""
    )
    notes: list[str] = []
    findings = one_per_secret(message_secrets(message, rules, notes), rules)
    engine.redact(findings, notes, [], {})
    unique_fingerprints(findings)
    return findings


def _object(repo: pygit2.Repository, oid: str | pygit2.Oid) -> pygit2.Object | None:
    try:
        return repo.get(oid)
    except (ValueError, pygit2.GitError):
        return None
