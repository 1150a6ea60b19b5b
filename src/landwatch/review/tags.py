"""An annotated tag's message judged by the secret rules, as a commit's message is, and a tree or
blob a tag names read as a commit's tree: no review reads either, yet a push sends them (the
push gate asks).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Mapping

import pygit2

from landwatch.review import engine
from landwatch.review.bursts import one_per_secret, unique_fingerprints
from landwatch.review.change import open_repository
from landwatch.review.checking import message_secrets
from landwatch.review.findings import Finding
from landwatch.review.message import Message
from landwatch.review.redacting import LinesRead, found_secrets, redact, refingerprinted

# How deep a tag naming a tag is followed: git allows any depth, and nobody makes more than one.
DEPTH = 10
# The name a blob pushed without a tree is read under: it has none, and a name in a test path,
# or of a file no person writes, would lower or skip what the rules say of it.
BLOB_NAME = "(blob)"


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


def beside_commits(
    git_dir: os.PathLike[str] | str, sending: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Of the objects `sending` (by the ref each is pushed from): the annotated tags, with those
    they name in turn, by ref; and the trees and blobs among them or that a tag names at any
    depth, by kind and ref. No review reads a tag's message, nor what no commit holds."""
    repo = open_repository(git_dir)
    found: dict[str, str] = {}
    contents: dict[str, tuple[str, str]] = {}
    for oid, ref in sending.items():
        for tag in annotated(git_dir, oid):
            found.setdefault(tag, ref)
        named = _peeled(repo, oid)
        if isinstance(named, pygit2.Blob | pygit2.Tree):
            contents.setdefault(str(named.id), (named.type_str, ref))
    return found, contents


def as_commit(git_dir: os.PathLike[str] | str, oid: str) -> str:
    """`oid` where it names a commit; for a tree, or a blob (as BLOB_NAME in a tree of its own), a
    root commit of it, which the review engine reads as any commit's tree. Made in this process's
    memory (`_Unwritten`), never where git keeps objects: a full disk stops no scan."""
    repo = open_repository(git_dir)
    found = _peeled(repo, oid)
    if isinstance(found, pygit2.Blob | pygit2.Tree) and repo not in _unwritten:
        _unwritten[repo] = _Unwritten()
        repo.odb.add_backend(_unwritten[repo], _FIRST)
    if isinstance(found, pygit2.Blob):
        builder = repo.TreeBuilder()
        builder.insert(BLOB_NAME, found.id, pygit2.enums.FileMode.BLOB)
        tree = builder.write()
    elif isinstance(found, pygit2.Tree):
        tree = found.id
    else:
        return oid
    nobody = pygit2.Signature("landwatch", "landwatch@localhost", 0, 0)
    return str(repo.create_commit(None, nobody, nobody, f"{found.type_str} {oid}\n", tree, []))


class _Unwritten(pygit2.OdbBackend):
    """Objects written through a repository this process opened, kept in its memory: the gate's
    root commits of a blob or tree, which its own scan alone reads (nothing else is written)."""

    def __init__(self) -> None:
        super().__init__()
        self.objects: dict[pygit2.Oid, tuple[int, bytes]] = {}

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.objects[oid]  # KeyError: not here, the next backend is asked

    def read_prefix_cb(self, oid: pygit2.Oid) -> tuple[int, bytes, pygit2.Oid]:
        raise KeyError(oid)  # its objects are asked for by their whole id

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self.objects[oid]
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return oid in self.objects

    def exists_prefix_cb(self, oid: pygit2.Oid) -> pygit2.Oid:
        raise KeyError(oid)

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        self.objects[oid] = (kind, data)

    def refresh_cb(self) -> None:
        pass

    def __iter__(self) -> Iterator[pygit2.Oid]:
        return iter(list(self.objects))


# libgit2 writes to the writable backend of highest priority (its own loose one's is 1).
_FIRST = 1 << 16
_unwritten: weakref.WeakKeyDictionary[pygit2.Repository, _Unwritten] = weakref.WeakKeyDictionary()


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
    findings = message_secrets(message, rules, notes)
    secrets = found_secrets(findings, LinesRead({}, message))
    findings = one_per_secret(findings, rules)
    refingerprinted(findings, secrets)
    redact(findings, notes, [], {}, secrets, message)
    unique_fingerprints(findings)
    return findings


def _peeled(repo: pygit2.Repository, oid: str) -> pygit2.Object | None:
    """The object `oid` names past any tags, as git peels them; None where it cannot be read."""
    found = _object(repo, oid)
    if isinstance(found, pygit2.Tag):
        try:
            return _object(repo, found.peel(None).id)
        except (pygit2.GitError, ValueError, KeyError):
            return None
    return found


def _object(repo: pygit2.Repository, oid: str | pygit2.Oid) -> pygit2.Object | None:
    try:
        return repo.get(oid)
    except (ValueError, pygit2.GitError):
        return None
