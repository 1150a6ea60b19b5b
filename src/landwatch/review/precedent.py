"""What the history before a change already holds near a path: the evidence that a test
fixture directory keeps its files' bytes on purpose (most of them end without a newline), so a
missing final newline there follows the project's practice. Read from the parent's tree,
bounded, and only when a finding asks.

Secrets are never judged this way: a file or directory that held a secret before is no reason
to let a new one through (rules/secrets.py says what a secret finding does take into account).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

import pygit2

from landwatch.review.change import Change, blob_data
from landwatch.review.findings import Finding
from landwatch.review.globs import TEST_PATHS, matches_any
from landwatch.review.rules.base import Fixtures, RuleSet

# How much of the parent tree one question may read.
MAX_NEIGHBOURS = 40
MAX_BLOB_BYTES = 256 * 1024


def unprecedented(
    findings: list[Finding],
    change: Change,
    rules: RuleSet,
    notes: list[str],
    *,
    insisted: Callable[[Finding], bool] = lambda _finding: False,
) -> list[Finding]:
    """The findings the history before the change does not show as the project's practice, as
    each rule's `fixtures` says; the others are counted in a note: missing final newlines in
    test fixture directories whose files end so. What the project `insisted` on (its
    .editorconfig asks for the final newline) no practice quiets."""
    practice = {rule.id: rule.fixtures for rule in rules.rules if rule.fixtures is not None}
    if not any(f.path and f.rule in practice for f in findings):
        return findings
    precedent = Precedent(change.repo, change.tree_before)
    kept, endings = [], 0
    for finding in findings:
        path, kind = finding.path, practice.get(finding.rule)
        if (
            path
            and kind is Fixtures.BYTES
            and not insisted(finding)
            and precedent.keeps_bytes(path)
        ):
            endings += 1
            continue
        kept.append(finding)
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
        return blob_data(self.repo, entry.id)

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
