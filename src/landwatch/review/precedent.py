"""What the history before a change already holds near a path: the evidence that a file is a
fixture, so that findings follow the project's own practice there instead of a fixed rule.

A secret-looking value in a file that already held some, or in a test path whose neighbours
did, is a fixture (a secret scanner's test data, example keys); a test fixture directory whose
files mostly end without a newline keeps its bytes on purpose. Read from the parent's tree,
bounded, and only when a finding asks.
"""

from __future__ import annotations

import posixpath

import pygit2

from landwatch.review.binary import looks_binary
from landwatch.review.change import Change
from landwatch.review.findings import Finding
from landwatch.review.globs import matches_any
from landwatch.review.rules.base import Fixtures, RuleSet
from landwatch.review.secrets.assignments import assignments
from landwatch.review.secrets.credentials import credentials
from landwatch.review.secrets.detectors import may_hold_secret
from landwatch.review.secrets.private_keys import key_spans
from landwatch.review.secrets.token_formats import tokens

# Paths whose files are test inputs by convention.
TEST_PATHS = (
    "test/**",
    "tests/**",
    "testdata/**",
    "test-data/**",
    "test_data/**",
    "fixtures/**",
    "__fixtures__/**",
    "__tests__/**",
    "spec/**",
    "*_test.go",
    "*_test.py",
    "test_*.py",
    "*.test.js",
    "*.test.ts",
    "*.spec.js",
    "*.spec.ts",
)
# How much of the parent tree one question may read.
MAX_NEIGHBOURS = 40
MAX_BLOB_BYTES = 256 * 1024
MAX_OWN_BYTES = 2 * 1024 * 1024  # the file itself, a long rule list or allow-list included
# Files beside it holding secret-looking values that make a directory one of fixtures: one for
# a test path, two elsewhere (a directory of rule definitions, each with its examples).
TEST_NEIGHBOURS = 1
NEIGHBOURS = 2


def unprecedented(
    findings: list[Finding], change: Change, rules: RuleSet, notes: list[str]
) -> list[Finding]:
    """The findings the history before the change does not show as the project's practice, as
    each rule's `fixtures` says; the others are counted in a note. Secret-looking values in files
    (or test directories) that already held them, and missing final newlines in test fixture
    directories whose files end so, are the practice."""
    practice = {rule.id: rule.fixtures for rule in rules.rules if rule.fixtures is not None}
    wanted = [f for f in findings if f.path and f.rule in practice]
    if not wanted:
        return findings
    precedent = Precedent(change.repo, change.tree_before)
    # A batch of fixtures landing together: secret-looking values in two or more files of one
    # test directory in this very change.
    batches: dict[str, set[str]] = {}
    for finding in wanted:
        secret = practice[finding.rule] is Fixtures.SECRETS
        if secret and finding.path and matches_any(finding.path, TEST_PATHS):
            batches.setdefault(posixpath.dirname(finding.path), set()).add(finding.path)
    kept, secrets, endings = [], 0, 0
    for finding in findings:
        path, kind = finding.path, practice.get(finding.rule)
        in_batch = path is not None and len(batches.get(posixpath.dirname(path), ())) >= 2
        if path and kind is Fixtures.SECRETS and (in_batch or precedent.holds_secrets(path)):
            secrets += 1
            continue
        if path and kind is Fixtures.BYTES and precedent.keeps_bytes(path):
            endings += 1
            continue
        kept.append(finding)
    if secrets:
        notes.append(
            f"{secrets} secret-looking value(s) not reported: they are in files (or test "
            "directories) that already held such values, the project's fixtures"
        )
    if endings:
        notes.append(
            f"{endings} missing final newline(s) not reported: test fixtures whose files end "
            "that way"
        )
    return kept


class Precedent:
    """Questions about the tree before a change, each answered once per path or directory."""

    def __init__(self, repo: pygit2.Repository, before: pygit2.Tree | None) -> None:
        self.repo = repo
        self.before = before
        self._secrets: dict[str, bool] = {}
        self._neighbour_secrets: dict[str, bool] = {}
        self._endings: dict[str, bool] = {}

    def _blob(self, path: str, limit: int = MAX_BLOB_BYTES) -> bytes | None:
        if self.before is None:
            return None
        try:
            entry = self.before[path]
        except KeyError:
            return None
        if entry.type_str != "blob" or self.repo.odb.read_header(entry.id)[1] > limit:
            return None
        blob = self.repo[entry.id]
        return blob.data if isinstance(blob, pygit2.Blob) else None

    def _neighbours(self, path: str) -> list[str]:
        directory = posixpath.dirname(path)
        if self.before is None:
            return []
        try:
            tree = self.repo[self.before[directory].id] if directory else self.before
        except KeyError:
            return []
        if not isinstance(tree, pygit2.Tree):
            return []
        names = [entry.name for entry in tree if entry.type_str == "blob" and entry.name]
        return [posixpath.join(directory, name) for name in sorted(names)[:MAX_NEIGHBOURS]]

    def holds_secrets(self, path: str) -> bool:
        """Whether the file, before the change, already held secret-looking values, or files
        beside it did (one for a test path, two elsewhere): then a new one there is a fixture."""
        if path not in self._secrets:
            found = _has_secret(self._blob(path, MAX_OWN_BYTES))
            if not found:
                needed = TEST_NEIGHBOURS if matches_any(path, TEST_PATHS) else NEIGHBOURS
                holding = 0
                for other in self._neighbours(path):
                    if other != path and self._neighbour_holds_secrets(other):
                        holding += 1
                        if holding >= needed:
                            found = True
                            break
            self._secrets[path] = found
        return self._secrets[path]

    def _neighbour_holds_secrets(self, path: str) -> bool:
        """Read once per review: findings in many files of one directory share its files."""
        if path not in self._neighbour_secrets:
            self._neighbour_secrets[path] = _has_secret(self._blob(path))
        return self._neighbour_secrets[path]

    def keeps_bytes(self, path: str) -> bool:
        """Whether a test path's directory is one whose files end without a newline as a rule
        (fixtures compared byte for byte): most of its text files, at least two, did before."""
        if not matches_any(path, TEST_PATHS):
            return False
        directory = posixpath.dirname(path)
        if directory not in self._endings:
            texts = [
                data
                for other in self._neighbours(path)
                if other != path and (data := self._blob(other))
            ]
            bare = sum(1 for data in texts if not data.endswith(b"\n"))
            self._endings[directory] = bare >= 2 and bare * 2 >= len(texts)
        return self._endings[directory]


def _has_secret(data: bytes | None) -> bool:
    if not data or looks_binary(data):
        return False
    if b"PRIVATE KEY-----" in data:
        return True  # a PEM key: header and body on lines of their own
    for line in data.decode("utf-8", errors="replace").splitlines():
        if not may_hold_secret(line) and "://" not in line:
            continue
        if tokens(line) or key_spans(line):
            return True
        if assignments(line, unquoted=False, min_entropy=3.0):
            return True
        if credentials(line):
            return True
    return False
