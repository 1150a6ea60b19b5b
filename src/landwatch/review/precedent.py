"""What the tree before a change already holds near a path: the evidence that a test fixture
directory keeps its files' bytes on purpose (most of them end without a newline), so a missing
final newline there follows the project's practice; and that a file already kept what a rule
finds (trailing whitespace nothing trims), so the project lives with it. Read from the
parent's tree, bounded, and only when a finding asks.

Secrets are never judged this way: a file or directory that held a secret before is no reason
to let a new one through (rules/secrets.py says what a secret finding does take into account).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable

import pygit2

from landwatch.review.blobs import blob_data
from landwatch.review.change import Change
from landwatch.review.findings import LEARNED, Basis, Finding, Severity
from landwatch.review.globs import TEST_PATHS, matches_any
from landwatch.review.rules.base import Practice, Rule, RuleSet

# How much of the parent tree one question may read.
MAX_NEIGHBOURS = 40
# How many directories, from a fixture's own upwards, are asked whether they keep their bytes.
FIXTURE_LEVELS = 3
MAX_BLOB_BYTES = 256 * 1024
# How many of the author's own unpushed commits are stepped over to find the project's practice.
MAX_OWN_UNPUSHED = 100


def unprecedented(
    findings: list[Finding],
    change: Change,
    rules: RuleSet,
    notes: list[str],
    *,
    insisted: Callable[[Finding], bool] = lambda _finding: False,
) -> list[Finding]:
    """The findings as the project's practice before the change leaves them, as each rule's
    `practice` says: missing final newlines in test fixture directories whose files end so are
    dropped, what the file already held is told at info; each counted in a
    note. What the project `insisted` on (its .editorconfig or its pre-commit hooks ask for it)
    no practice quiets."""
    by_id = {rule.id: rule for rule in rules.rules if rule.practice is not None}
    if not any(f.path and f.rule in by_id for f in findings):
        return findings
    precedent = Precedent(change.repo, practice_tree(change))
    kept, endings, lowered = [], 0, Counter[str]()
    for finding in findings:
        path, rule = finding.path, by_id.get(finding.rule)
        if not path or rule is None or insisted(finding):
            kept.append(finding)
        elif rule.practice is Practice.FIXTURE_BYTES and precedent.keeps_bytes(path):
            endings += 1
        elif rule.practice is Practice.KEPT_BEFORE and (source := precedent.kept(rule, path)):
            if finding.severity > Severity.INFO:
                finding.severity = Severity.INFO
                finding.basis = Basis(LEARNED, source)
                lowered[rule.id] += 1
            kept.append(finding)
        else:
            kept.append(finding)
    if endings:
        notes.append(
            f"{endings} missing final newline(s) not reported: test fixtures whose files end "
            "that way"
        )
    for rule_id, count in sorted(lowered.items()):
        notes.append(
            f"{count} {rule_id} finding(s) told at info: their files held the same before, and "
            "nothing the project declared removes it"
        )
    return kept


def practice_tree(change: Change) -> pygit2.Tree | None:
    """The tree whose contents are the project's practice for `change`: the tree before it, but
    not what the author's own commits since the remote last saw the branch made of it. A repeat
    offence is no practice: the first of two unpushed commits does not make the second's trailing
    whitespace "kept before". With no remote-tracking branch at all, the history is the project's.
    """
    before = change.tree_before
    if change.base is not None or not change.commit.parents:
        return before
    repo, author = change.repo, change.commit.author.email
    parent = change.commit.parents[0]
    unpushed = unpushed_commits(repo, parent.id, most=4 * MAX_OWN_UNPUSHED)
    if unpushed is None:
        return before
    commit = parent
    for _ in range(MAX_OWN_UNPUSHED):
        if commit.id not in unpushed or commit.author.email != author:
            return commit.tree
        if not commit.parents:
            return None  # a root of the author's own: nothing before it
        commit = commit.parents[0]
    return before


def unpushed_commits(
    repo: pygit2.Repository, start: pygit2.Oid, *, most: int
) -> set[pygit2.Oid] | None:
    """The commits from `start` back that no remote-tracking branch holds, the author's own not
    pushed yet (one walk hiding every remote tip, at most `most`); None when there is no remote."""
    tips = [
        ref.target
        for ref in repo.references.objects
        if ref.name.startswith("refs/remotes/") and isinstance(ref.target, pygit2.Oid)
    ]
    if not tips:
        return None
    walker = repo.walk(start, pygit2.enums.SortMode.TOPOLOGICAL)
    for tip in tips:
        try:
            walker.hide(tip)
        except (pygit2.GitError, ValueError, KeyError):
            continue  # a remote-tracking ref that is no commit says nothing
    found: set[pygit2.Oid] = set()
    for commit in walker:
        found.add(commit.id)
        if len(found) >= most:
            break
    return found


class Precedent:
    """Questions about the tree before a change, each answered once per path or directory."""

    def __init__(self, repo: pygit2.Repository, before: pygit2.Tree | None) -> None:
        self.repo = repo
        self.before = before
        self._endings: dict[str, bool | None] = {}
        self._kept: dict[tuple[str, str], str | None] = {}

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

    def _neighbours(self, directory: str) -> list[str]:
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
        (fixtures compared byte for byte): most of its text files, at least two, did before. A
        directory of too few to tell (a new one, `test/fixtures/blog/`) is judged by the
        nearest directory above it, up to FIXTURE_LEVELS, that is a test path and holds enough."""
        if not matches_any(path, TEST_PATHS):
            return False
        directory = posixpath.dirname(path)
        for _ in range(FIXTURE_LEVELS):
            said = self._directory_keeps_bytes(directory, path)
            if said is not None:
                return said
            directory = posixpath.dirname(directory)
            if not directory or not matches_any(
                f"{directory}/{posixpath.basename(path)}", TEST_PATHS
            ):
                return False
        return False

    def _directory_keeps_bytes(self, directory: str, path: str) -> bool | None:
        """Whether most of `directory`'s text files, at least two, end without a newline; None
        where it holds fewer than two besides `path`."""
        if directory not in self._endings:
            texts = [
                data
                for other in self._neighbours(directory)
                if other != path and (data := self._blob(other))
            ]
            bare = sum(1 for data in texts if not data.endswith(b"\n"))
            self._endings[directory] = (
                None if len(texts) < 2 else bare >= 2 and bare * 2 >= len(texts)
            )
        return self._endings[directory]

    def kept(self, rule: Rule, path: str) -> str | None:
        """Where the tree before the change shows the project keeping what `rule` finds at
        `path`: the file itself held it (its neighbours are no evidence: a series of commits
        each adding some to one more file would make the third one's quiet); None where not."""
        if (rule.id, path) not in self._kept:
            # Once per file, not per finding: a file of many findings is read and scanned once.
            held = self._blob(path)
            self._kept[rule.id, path] = (
                f"{path} had {rule.name.replace('-', ' ')} before"
                if held is not None and rule.held_in(path, held)
                else None
            )
        return self._kept[rule.id, path]
