"""What a change does to the rules a review runs by: landwatch's configuration (`.landwatch.toml`
or `[tool.landwatch]`) and what the project declared to its secret scanners (`.gitleaks.toml`
and what it extends, `.gitleaksignore`, `.secrets.baseline`), compared between the tree before
the change and the tree it lands, each difference one line and whether it lets more through.

`landwatch ci` reviews a change by the rules it came to; review-rules-changed (review.rules) tells
each change to them. Nothing here raises on what a repository wrote: a file that cannot be read
counts as declaring nothing, and the configuration the change lands that cannot be used is said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import pygit2

from landwatch.review import gitleaks
from landwatch.review.change import Change
from landwatch.review.config import CONFIG_FILE, PYPROJECT, ConfigError, ReviewConfig, read_config
from landwatch.review.declarations import BASELINE, read_baseline, read_file
from landwatch.review.findings import Severity
from landwatch.review.rules.base import Rule
from landwatch.text import listed

# Of a list or a pattern a repository wrote, what a message shows (each is redacted besides).
_SHOWN, _LONGEST = 3, 60


class Difference(NamedTuple):
    """One change to the rules: the file that says it, what changed in words, and whether it
    lets through what the rules before it reported (an error), or not (a warning)."""

    path: str
    said: str
    relaxes: bool


def differences(
    repo: pygit2.Repository,
    before: pygit2.Tree | None,
    after: pygit2.Tree | None,
    rules: Sequence[type[Rule]],
) -> list[Difference]:
    """Every change from `before` to `after` (None: a tree that declares nothing) to what the
    review and the secret scanners are told, by `rules` (every rule, plug-ins too)."""
    return [
        *_landwatch(repo, before, after, rules),
        *_gitleaks(repo, before, after, rules),
        *_ignored(repo, before, after),
        *_baseline(repo, before, after),
    ]


def brought(change: Change, rules: Sequence[type[Rule]]) -> list[Difference]:
    """What `change` itself does to the rules: its differences from the tree before it; of a
    merge read for its own, only those it shows against every parent (not what one brought)."""
    after = change.commit.tree
    found = differences(change.repo, change.tree_before, after, rules)
    for other in change.other_parents:
        theirs = differences(change.repo, other, after, rules)
        found = [difference for difference in found if difference in theirs]
    return found


def _entry(tree: pygit2.Tree | None, path: str) -> str | None:
    try:
        return str(tree[path].id) if tree is not None else None
    except (KeyError, ValueError):
        return None


def _changed(before: pygit2.Tree | None, after: pygit2.Tree | None, *paths: str) -> bool:
    return any(_entry(before, path) != _entry(after, path) for path in paths)


def _listed(values: Iterable[str]) -> str:
    return listed([f"'{_cut(value)}'" for value in sorted(values)], _SHOWN)


def _cut(value: str) -> str:
    return value if len(value) <= _LONGEST else value[: _LONGEST - 1] + "…"


def _config(repo: pygit2.Repository, tree: pygit2.Tree | None) -> tuple[ReviewConfig, str | None]:
    """The configuration of `tree` (the defaults where there is none), and why it cannot be
    used when it cannot."""
    if tree is None:
        return ReviewConfig(), None
    try:
        return read_config(tree, repo), None
    except ConfigError as error:
        return ReviewConfig(), str(error)


def _file_of(config: ReviewConfig) -> str:
    return PYPROJECT if config.source.startswith(PYPROJECT) else CONFIG_FILE


def _landwatch(
    repo: pygit2.Repository,
    before: pygit2.Tree | None,
    after: pygit2.Tree | None,
    rules: Sequence[type[Rule]],
) -> list[Difference]:
    if not _changed(before, after, CONFIG_FILE, PYPROJECT):
        return []
    old, _ = _config(repo, before)
    new, unusable = _config(repo, after)
    path = _file_of(new if new.source != "defaults" else old)
    if unusable is not None:
        return [Difference(path, f"{unusable}: it cannot be used once it lands", False)]
    said = [*_rule_changes(old, new, rules), *_setting_changes(old, new)]
    where = new.source if new.source != "defaults" else old.source
    if new.problems and new.problems != old.problems:
        first = new.problems[0].removeprefix(f"{where}: ")
        more = f" (and {len(new.problems) - 1} more)" if len(new.problems) > 1 else ""
        said.append((f"holds what cannot be used: {first}{more}", False))
    if not said and _changed(before, after, CONFIG_FILE) and path == CONFIG_FILE:
        said.append(("changes, but no setting of it", False))
    return [Difference(path, f"{where} {words}", relaxes) for words, relaxes in said]


def _settings(config: ReviewConfig, rule: type[Rule]) -> dict[str, Any]:
    """A rule's settings as the engine takes them (by id, else by name), its severity too."""
    settings = dict(config.rules.get(rule.id) or config.rules.get(rule.name) or {})
    settings.setdefault("severity", rule.severity)
    return settings


def _rule_changes(
    old: ReviewConfig, new: ReviewConfig, rules: Sequence[type[Rule]]
) -> list[tuple[str, bool]]:
    """Each rule turned off, lowered, raised or given other options; lowering a secret rule (or
    one about the rules), or changing what it looks for, lets more through."""
    said = []
    for rule in rules:
        was, now = _settings(old, rule), _settings(new, rule)
        if was == now:
            continue
        guarded = rule.secret or rule.watches_the_rules
        named = f"{rule.id} {rule.name}"
        before, after = Severity(was.pop("severity")), Severity(now.pop("severity"))
        level = after.name.lower()
        if after < before:
            lowered = f"lowers {named} from {before.name.lower()} to {level}"
            said.append((f"turns {named} off" if after is Severity.OFF else lowered, guarded))
        elif after > before:
            raised = f"raises {named} from {before.name.lower()} to {level}"
            turned_on = f"turns {named} on at {level}"
            said.append((turned_on if before is Severity.OFF else raised, False))
        options = sorted(key for key in was.keys() | now.keys() if was.get(key) != now.get(key))
        if options:
            said.append((f"changes what {named} looks for ({', '.join(options)})", guarded))
    return said


# The lists of the configuration: their words when the change adds to them, and whether that
# lets a secret through (a file excluded is a file no rule reads, the secret rules included).
_LISTS = (
    ("exclude", "excludes {} from the review, its secrets too", True),
    ("secrets_allow", "lets through secrets matching {}", True),
    ("secrets_allow_paths", "lets through secrets in {}", True),
    ("skip_authors", "takes {} for bots", False),
)


def _setting_changes(old: ReviewConfig, new: ReviewConfig) -> list[tuple[str, bool]]:
    said = []
    for name, words, relaxes in _LISTS:
        was, now = set(getattr(old, name)), set(getattr(new, name))
        if now - was:
            said.append((words.format(_listed(now - was)), relaxes))
        if was - now:
            said.append((f"no longer {words.format(_listed(was - now))}", False))
    if new.max_added_lines != old.max_added_lines:
        lower = new.max_added_lines < old.max_added_lines
        change = f"max_added_lines from {old.max_added_lines} to {new.max_added_lines}"
        past = " (no line past it is looked at, for secrets either)" if lower else ""
        said.append((f"{'lowers' if lower else 'raises'} {change}{past}", lower))
    if new.merges != old.merges:
        said.append((f"reviews merges as {new.merges!r}, not {old.merges!r}", False))
    if new.linters != old.linters:
        said.append(("changes its [[linters]]", False))
    return said


class _Reader:
    """The declaration files of one tree, read as review.declarations reads them, with every
    path read remembered (what `[extend] path` names too)."""

    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree | None) -> None:
        self.repo, self.tree = repo, tree
        self.paths: list[str] = []
        self.problems: list[str] = []

    def __call__(self, path: str) -> bytes | None:
        self.paths.append(path)
        return read_file(self.repo, self.tree, path, self.problems)


def _gitleaks(
    repo: pygit2.Repository,
    before: pygit2.Tree | None,
    after: pygit2.Tree | None,
    rules: Sequence[type[Rule]],
) -> list[Difference]:
    """What `.gitleaks.toml`'s allowlists (and what it extends) let through, compared."""
    scopes = gitleaks.rules_of(rules)
    old_read, new_read = _Reader(repo, before), _Reader(repo, after)
    old = _allowed(old_read, scopes)
    if not _changed(before, after, *old_read.paths):
        return []  # the same files, read the same way (what they extend is among them)
    new = _allowed(new_read, scopes)
    return _compared(gitleaks.CONFIG, old, new, changed=True)


def _compared(
    path: str, old: dict[Any, str], new: dict[Any, str], changed: bool
) -> list[Difference]:
    """What a declaration lets through before and after (each thing keyed, in words): what it
    adds, an error; what it takes away, a warning; a change of neither, a warning too."""
    found = []
    if added := [words for key, words in new.items() if key not in old]:
        found.append(Difference(path, f"{path} lets more through: {_joined(added)}", True))
    if removed := [words for key, words in old.items() if key not in new]:
        found.append(Difference(path, f"{path} lets less through: {_joined(removed)}", False))
    if changed and not found:
        found.append(Difference(path, f"{path} changes, not what it lets through", False))
    return found


def _joined(words: list[str]) -> str:
    return listed(sorted(words), _SHOWN)


def _allowed(read: _Reader, scopes: dict[str, gitleaks.Scope]) -> dict[Any, str]:
    """Each thing `.gitleaks.toml` lets through, keyed: a path, regex, stopword or commit of a
    list any of whose checks lets a secret through; a list of all-of checks, whole."""
    data = read(gitleaks.CONFIG)
    if data is None:
        return {}
    config = gitleaks.read_config(data, read, scopes)
    found: dict[Any, str] = {}
    if config.default is not None:
        found["default"] = "gitleaks' default allowlist (useDefault)"
    for allowlist in config.allowlists:
        of = _scope(allowlist.scope)
        if allowlist.all_of:
            key = allowlist._replace(paths=(), regexes=())
            key_of = (key, *_sources(allowlist))
            found[key_of] = f"a list of checks all of which must hold{of}"
            continue
        regex = "a line regex" if allowlist.on_line else "a regex"
        for kind, values in (
            ("a path", [p.source for p in allowlist.paths]),
            (regex, [r.source for r in allowlist.regexes]),
            ("a stopword", allowlist.stopwords),
            ("a commit", sorted(allowlist.commits)),
        ):
            for value in values:
                found[(kind, value, allowlist.scope)] = f"{kind} '{_cut(value)}'{of}"
    return found


def _sources(allowlist: gitleaks.Allowlist) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(p.source for p in allowlist.paths), tuple(r.source for r in allowlist.regexes)


def _scope(scope: gitleaks.Scope | None) -> str:
    return f" (for {', '.join(sorted({rule for rule, _ in scope}))})" if scope else ""


def _ignored(
    repo: pygit2.Repository, before: pygit2.Tree | None, after: pygit2.Tree | None
) -> list[Difference]:
    """The findings `.gitleaksignore` lists, compared."""

    def listed(tree: pygit2.Tree | None) -> dict[Any, str]:
        data = read_file(repo, tree, gitleaks.IGNORE, [])
        found = gitleaks.read_ignore(data)[0] if data is not None else frozenset()
        return {key: ":".join(str(part) for part in key if part is not None) for key in found}

    changed = _changed(before, after, gitleaks.IGNORE)
    return _compared(gitleaks.IGNORE, listed(before), listed(after), changed) if changed else []


def _baseline(
    repo: pygit2.Repository, before: pygit2.Tree | None, after: pygit2.Tree | None
) -> list[Difference]:
    """The secrets `.secrets.baseline` knows as no secret, and what it never scans, compared."""
    if not _changed(before, after, BASELINE):
        return []
    return _compared(BASELINE, _known(repo, before), _known(repo, after), changed=True)


def _known(repo: pygit2.Repository, tree: pygit2.Tree | None) -> dict[Any, str]:
    data = read_file(repo, tree, BASELINE, [])
    baseline = read_baseline(data, []) if data is not None else None
    if baseline is None:
        return {}
    found: dict[Any, str] = {}
    for path, hashes in baseline.hashes.items():
        for digest, real in hashes.items():
            if not real:  # one audited as real is reported whatever the baseline says
                found[("hash", path, digest)] = f"a secret in '{_cut(path)}' ({digest[:8]})"
    for kind, patterns in baseline.exclude.items():
        for pattern in patterns:
            found[("exclude", kind, pattern.source)] = f"{kind}s matching '{_cut(pattern.source)}'"
    return found
