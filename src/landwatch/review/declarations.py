"""What a project already declared to its secret scanners, read from the landed commit's tree
(never the working tree), or the tree the review takes its rules from (`RulesAt`): gitleaks'
`.gitleaks.toml` and `.gitleaksignore` (review.gitleaks), detect-secrets' `.secrets.baseline`,
and landwatch's own `[secrets]` allow-list. Each says, of a secret finding, whether it lets it
through; review.suppressions asks and counts.

Read only when a secret finding asks, or when the change touches one of the files (so that a
broken one is told when it lands); a file that cannot be read is one note, never a crash. The
patterns in them are a repository's: review.regexes bounds what they may cost.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pygit2

from landwatch.review import gitleaks
from landwatch.review.change import Change
from landwatch.review.config import ReviewConfig
from landwatch.review.globs import matches_any
from landwatch.review.regexes import MOST_PATTERNS, RegexError, SafePattern, compile_safe
from landwatch.review.rules.base import RuleSet

BASELINE = ".secrets.baseline"
FILES = (gitleaks.CONFIG, gitleaks.IGNORE, BASELINE)
MAX_BYTES = 4 * 1024 * 1024  # of one declaration file
MAX_COMMITS = 1000  # of a landed range, for the fingerprints and allowlists that name commits

# What the notes say of each: "3 secret findings left out " + one of these.
INLINE = "as a `gitleaks:allow` or `pragma: allowlist secret` marker asks"
IGNORED = "as .gitleaksignore lists {them} (by path and line)"
ALLOWLISTED = "as .gitleaks.toml's allowlists ask"
DEFAULT = "as gitleaks' default allowlist asks (.gitleaks.toml extends it: useDefault)"
HASHED = "as .secrets.baseline lists {them}"
EXCLUDED = "as .secrets.baseline's exclude patterns ask"
_OWN = "as the [secrets] allow-list of {source} asks"
# detect-secrets' filters of files, lines and secrets by regexes, and the baseline's keys for
# them before 1.0 (`exclude`).
_FILTERS = "detect_secrets.filters.regex.should_exclude_"
_OLD_EXCLUDE = {"files": "file", "lines": "line"}


class Spot(NamedTuple):
    """A secret finding as the declarations see it."""

    rule: str
    message: str
    path: str
    line: int | None
    text: str | None  # the line
    value: str | None  # the secret, where the finding knows its place on the line


@dataclass
class Baseline:
    """detect-secrets' baseline: the secrets it knows, by file and SHA-1, each true when an
    audit said it is a real secret; and the patterns of what it never scans."""

    hashes: dict[str, dict[str, bool]] = field(default_factory=dict)
    exclude: dict[str, list[SafePattern]] = field(default_factory=dict)  # file, line, secret

    def lists(self, spot: Spot) -> bool:
        if spot.value is None:
            return False
        import hashlib  # 3 ms, only where a digest is made

        digest = hashlib.sha1(spot.value.encode("utf-8"), usedforsecurity=False).hexdigest()
        known = self.hashes.get(spot.path, {})
        return digest in known and not known[digest]  # a real one, as audited, stays reported

    def excludes(self, spot: Spot) -> bool:
        for kind, target in (("file", spot.path), ("line", spot.text), ("secret", spot.value)):
            if target is not None and any(p.search(target) for p in self.exclude.get(kind, ())):
                return True
        return False


class Declarations:
    """The declarations of one landed change, read once, when first asked."""

    def __init__(
        self, change: Change, config: ReviewConfig, rules: RuleSet, tree: pygit2.Tree | None
    ) -> None:
        self._change = change
        self._tree = tree  # where they are read: the landed commit's, or the rules' (None: none)
        self._config = config
        self._rules = rules
        self._loaded = False
        self.problems: list[str] = []  # one note for each file that could not be used
        self._commits: frozenset[str] = frozenset()
        self._own_values: list[SafePattern] = []
        self._ignored: frozenset[tuple[str | None, str, int]] = frozenset()
        self._gitleaks: gitleaks.Config | None = None
        self._baseline: Baseline | None = None

    def touched(self) -> bool:
        """Whether the change lands (or deletes) one of the declaration files."""
        return any(file.path in FILES for file in self._change.files)

    def dropping(self, spot: Spot) -> str | None:
        """The declaration that lets `spot` through (its words for the notes), or None."""
        self.load()
        config = self._config
        if matches_any(spot.path, config.secrets_allow_paths) or (
            spot.value is not None and any(p.search(spot.value) for p in self._own_values)
        ):
            return _OWN.format(source=config.source)
        if (None, spot.path, spot.line) in self._ignored or any(
            (commit, spot.path, spot.line) in self._ignored for commit in self._commits
        ):
            return IGNORED
        found = self._gitleaks
        if found is not None:
            for allowlist in found.allowlists:
                if allowlist.applies_to(spot.rule, spot.message) and self._allows(allowlist, spot):
                    return ALLOWLISTED
            if found.default is not None and self._allows(found.default, spot):
                return DEFAULT
        if self._baseline is not None:
            if self._baseline.lists(spot):
                return HASHED
            if self._baseline.excludes(spot):
                return EXCLUDED
        return None

    def _allows(self, allowlist: gitleaks.Allowlist, spot: Spot) -> bool:
        return allowlist.allows(spot.path, spot.value, spot.text, self._commits)

    def load(self) -> None:
        """Read every declaration of the tree (once)."""
        if self._loaded:
            return
        self._loaded = True
        # What landwatch's own configuration allows was checked as it was read (review.config).
        for pattern in self._config.secrets_allow:
            with contextlib.suppress(RegexError):
                self._own_values.append(compile_safe(pattern))
        if (data := self._read(gitleaks.IGNORE)) is not None:
            self._ignored, bad = gitleaks.read_ignore(data)
            if bad:
                self.problems.append(
                    f"{gitleaks.IGNORE}: {bad} line(s) are no fingerprint "
                    "(COMMIT:PATH:RULE:LINE or PATH:RULE:LINE): not honoured"
                )
        if (data := self._read(gitleaks.CONFIG)) is not None:
            rules_of = gitleaks.rules_of(self._rules.rules)
            self._gitleaks = gitleaks.read_config(data, self._read, rules_of)
            self.problems += self._gitleaks.problems
            if self._gitleaks.unmapped:
                self.problems.append(
                    f"{gitleaks.CONFIG}: the allowlists of gitleaks rules landwatch has no "
                    f"rule for are not honoured: {', '.join(sorted(self._gitleaks.unmapped))}"
                )
        if (data := self._read(BASELINE)) is not None:
            self._baseline = read_baseline(data, self.problems)
        self._commits = _commits(self._change)

    def _read(self, path: str) -> bytes | None:
        return read_file(self._change.repo, self._tree, path, self.problems)


def read_file(
    repo: pygit2.Repository, tree: pygit2.Tree | None, path: str, problems: list[str]
) -> bytes | None:
    """A declaration file of `tree`; None (and a note in `problems` when it is too large)
    otherwise."""
    if tree is None:
        return None
    try:
        entry = tree[path]
    except KeyError:
        return None
    if entry.type_str != "blob" or entry.filemode == pygit2.enums.FileMode.LINK:
        return None  # a directory, a submodule, or a link whose target is no declaration
    if repo.odb.read_header(entry.id)[1] > MAX_BYTES:
        problems.append(f"{path} is larger than {MAX_BYTES >> 20} MB: not read")
        return None
    blob = repo[entry.id]
    return blob.data if isinstance(blob, pygit2.Blob) else None


def read_baseline(data: bytes, problems: list[str]) -> Baseline | None:
    """`.secrets.baseline` as detect-secrets reads it (every version since 0.12); None, and a
    note in `problems`, when it cannot be read at all."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        problems.append(f"{BASELINE} is not valid JSON ({error}): none of it is honoured")
        return None
    if not isinstance(document, dict):
        problems.append(f"{BASELINE} is no JSON object: none of it is honoured")
        return None
    baseline = Baseline()
    results = document.get("results")
    for filename, entries in results.items() if isinstance(results, dict) else ():
        for entry in entries if isinstance(entries, list) else ():
            digest = entry.get("hashed_secret") if isinstance(entry, dict) else None
            if isinstance(digest, str):
                known = baseline.hashes.setdefault(str(filename).replace("\\", "/"), {})
                real = entry.get("is_secret") is True
                known[digest.lower()] = known.get(digest.lower(), False) or real
    exclusions = list(itertools.islice(_exclusions(document), MOST_PATTERNS + 1))
    if len(exclusions) > MOST_PATTERNS:
        # Each is a search of every secret finding: past the bound, none (more told, not less).
        problems.append(
            f"{BASELINE}: past {MOST_PATTERNS:,} exclude patterns: none of them honoured"
        )
        exclusions = []
    for kind, pattern in exclusions:
        try:
            baseline.exclude.setdefault(kind, []).append(compile_safe(pattern))
        except RegexError as error:
            problems.append(f"{BASELINE}: exclude {kind}s {error}: not honoured")
    return baseline


def _exclusions(document: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(file|line|secret, pattern) of the baseline's exclusions: `filters_used` since 1.0,
    `exclude` (one pattern each of files and lines) before."""
    filters = document.get("filters_used")
    for item in filters if isinstance(filters, list) else ():
        path = item.get("path") if isinstance(item, dict) else None
        if isinstance(path, str) and path.startswith(_FILTERS):
            kind = path.removeprefix(_FILTERS)
            patterns = item.get("pattern")
            for pattern in patterns if isinstance(patterns, list) else ():
                if kind in ("file", "line", "secret") and isinstance(pattern, str):
                    yield kind, pattern
    old = document.get("exclude")
    for key, kind in _OLD_EXCLUDE.items():
        pattern = old.get(key) if isinstance(old, dict) else None
        if isinstance(pattern, str) and pattern:
            yield kind, pattern


def _commits(change: Change) -> frozenset[str]:
    """The commits the change brought: the commit, or those of the range (or of a merge's
    other side), at most MAX_COMMITS of them."""
    commit = change.commit
    hidden = change.base or (commit.parents[0] if commit.parents else None)
    walker = change.repo.walk(commit.id)
    if hidden is not None:
        walker.hide(hidden.id)
    return frozenset(str(found.id) for found in itertools.islice(walker, MAX_COMMITS))
