"""Where a project's pre-commit (or prek) configuration scopes the checks landwatch's rules also
make: a file the project's `trailing-whitespace` hook excludes, or its top-level `exclude`
leaves out, is one the project accepts as it is, and the rule standing for that hook is off
there. Read from the landed tree's `.pre-commit-config.yaml`; nothing in it is run.

pre-commit's `files` and `exclude` are Python regular expressions searched in the path; they
run here with RE2 (linear in the path), a verbose one (`(?x)`) as Python reads it, and one RE2
cannot run is a note: where that hook runs is not known, so it neither declares nor turns off.
Its `types`, `types_or` and `exclude_types` are matched against the file's tags as
pre-commit's own library, identify, gives them from the name and the mode (a name it does not
know as binary is text).
Secret rules are not scoped this way: only what a project declared to its secret scanners
leaves a secret out.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, NamedTuple

import pygit2

from landwatch.review.change import Change
from landwatch.review.documents import load_yaml
from landwatch.review.findings import Finding
from landwatch.review.globs import matches_any
from landwatch.review.project_hooks.sources import PRE_COMMIT_CONFIGS
from landwatch.review.regexes import RegexError, SafePattern, compile_safe, unverbose
from landwatch.review.rules.base import RuleSet

_MOST_BYTES = 1 << 20
# A hook's argument that sets what landwatch's rule standing for it checks, and the hook's own
# default: pre-commit-hooks' check-added-large-files `--maxkb=2048` is large-file's `max_kb` (an
# audit: the hook's presence was told as the declared standard, at landwatch's own 500 KB).
_ARGUMENTS = {"check-added-large-files": ("--maxkb", "max_kb", 500)}
_MOST_KB = 10**9  # past this, no file is large: a limit of "never"


class _Scope(NamedTuple):
    """Where one hook runs: the files it takes and the files it leaves, by path and by tag."""

    files: SafePattern | None
    exclude: SafePattern | None
    types: frozenset[str] = frozenset()
    types_or: frozenset[str] = frozenset()
    exclude_types: frozenset[str] = frozenset()
    # A pattern RE2 cannot read (a look-ahead): where it runs is not known, so it declares
    # nothing and turns nothing off (an audit: read as everywhere, a file it excludes was told
    # as the project's own standard).
    unknown: bool = False

    def covers(self, path: str, tags: frozenset[str]) -> bool:
        if self.files is not None and not self.files.search(path):
            return False
        if self.exclude is not None and self.exclude.search(path):
            return False
        if not self.types <= tags or (self.types_or and not self.types_or & tags):
            return False
        return not self.exclude_types & tags


def _tags(value: object) -> frozenset[str]:
    """A hook's list of identify tags, as written in the configuration."""
    if not isinstance(value, list):
        return frozenset()
    return frozenset(tag for tag in value if isinstance(tag, str))


class PreCommitScopes:
    """The scopes the landed tree's pre-commit configuration gives the hooks landwatch's rules
    stand for (each rule names its hooks: its `precommit_hooks` attribute)."""

    def __init__(self, change: Change, rules: RuleSet, own: Mapping[str, Any] = {}) -> None:
        self.problems: list[str] = []
        self.applied: list[str] = []  # what the hooks' arguments set of the rules
        self._arguments: dict[str, list[int]] = {}  # hook id -> each instance's value
        self.source: str | None = None
        self._top: _Scope | None = None
        self._hooks: dict[str, list[_Scope]] = {}  # hook id -> each place it is configured
        self._hooks_of = {
            rule.id: rule.precommit_hooks
            for rule in rules.rules
            if rule.precommit_hooks and not rule.secret
        }
        self._tree = change.commit.tree
        self._tags_of: dict[str, frozenset[str]] = {}
        self._files_of = {rule.id: rule.precommit_files for rule in rules.rules}
        for name in PRE_COMMIT_CONFIGS:
            data = change.file_at(name)
            if data is not None and len(data) <= _MOST_BYTES:
                self.source = name
                self._read(data.decode("utf-8", "replace"))
                break
        self._set(rules, own)

    def _set(self, rules: RuleSet, own: Mapping[str, Any]) -> None:
        """Each rule's option a hook's argument sets, where its instances agree and landwatch's
        own configuration (`own`: its rules' settings) does not set it."""
        for rule in rules.rules:
            for hook in rule.precommit_hooks:
                _, option, default = _ARGUMENTS.get(hook, ("", "", 0))
                given = own.get(rule.id) or own.get(rule.name)
                values = self._arguments.get(hook, [default])
                if all(value == default for value in values):
                    continue  # nothing said but the hook's own default
                if isinstance(given, dict) and option in given:
                    continue  # landwatch's own configuration says
                # Only where its instances agree: one scoped to assets/ may allow more than the
                # rest, or icons/ less, and a limit holds for every file (audits: the largest,
                # then the strictest, held everywhere).
                if len(set(values)) > 1:
                    continue
                rule.settings[option] = values[0]
                self.applied.append(
                    f"declared by the project: {self.source} declares {option} "
                    f"{rule.settings[option]} for {rule.id} ({hook}'s arguments)"
                )

    def _scope(self, entry: dict[Any, Any], where: str) -> _Scope:
        """Where a hook (or the whole configuration) runs, as `entry` writes it."""
        patterns: list[SafePattern | None] = []
        unknown = False
        for key in ("files", "exclude"):
            value = entry.get(key)
            if not isinstance(value, str) or value in ("", "^$"):
                patterns.append(None)
                continue
            try:  # pre-commit's patterns are Python's, a long one often verbose (`(?x)`)
                patterns.append(compile_safe(unverbose(value)))
            except RegexError as error:
                self.problems.append(f"{self.source}: {where}{key}: {error}")
                patterns.append(None)
                unknown = True
        types, types_or, exclude_types = (
            _tags(entry.get(key)) for key in ("types", "types_or", "exclude_types")
        )
        return _Scope(patterns[0], patterns[1], types, types_or, exclude_types, unknown)

    def _read(self, text: str) -> None:
        import yaml  # here, not at the top: most repositories have no .pre-commit-config.yaml

        try:
            # As pre-commit reads it: libyaml takes tabs PyYAML's own loader refuses.
            config = load_yaml(text)
        except (yaml.YAMLError, RecursionError, ValueError) as error:
            self.problems.append(f"{self.source} cannot be read ({type(error).__name__})")
            return
        if not isinstance(config, dict):
            return
        top = {key: config.get(key) for key in ("files", "exclude")}  # no types at the top
        self._top = self._scope(top, "")
        repos = config.get("repos")
        for repo in repos if isinstance(repos, list) else []:
            hooks = repo.get("hooks") if isinstance(repo, dict) else None
            for hook in hooks if isinstance(hooks, list) else []:
                if isinstance(hook, dict) and isinstance(hook.get("id"), str):
                    scope = self._scope(hook, f"hook {hook['id']} ")
                    self._hooks.setdefault(hook["id"], []).append(scope)
                    self._argument(hook)

    def _argument(self, hook: dict[Any, Any]) -> None:
        """The value of the argument _ARGUMENTS names for this hook, `--maxkb=N` or `--maxkb
        N`, as the hook's own argparse reads it (the last given, an integer; none: its
        default); kept only where some instance gives one."""
        name, _, default = _ARGUMENTS.get(hook["id"], ("", "", 0))
        if not name:
            return
        args = hook.get("args")
        words = [str(word) for word in args] if isinstance(args, list) else []
        # argparse takes any unique beginning of an option (`--maxk`, `--max`), as `--maxkb`.
        named = [(at, word.partition("=")) for at, word in enumerate(words)]
        values = [
            value if equals else (words[at + 1] if at + 1 < len(words) else "")
            for at, (option, equals, value) in named
            if len(option) > 2 and name.startswith(option)
        ]
        try:
            value = int(values[-1]) if values and len(values[-1]) <= 64 else default
        except ValueError:
            value = default  # the hook itself would refuse to run: nothing it says
        self._arguments.setdefault(hook["id"], []).append(min(max(value, 0), _MOST_KB))

    def tags(self, path: str) -> frozenset[str]:
        """The file's identify tags as pre-commit would see them in the landed tree: a
        symlink's, or a file's by its name and its executable bit."""
        if path not in self._tags_of:
            try:
                mode = self._tree[path].filemode
            except (KeyError, pygit2.GitError):
                mode = pygit2.enums.FileMode.BLOB
            if mode == pygit2.enums.FileMode.LINK:
                tags = frozenset({"symlink"})
            else:
                # Only once a configuration scopes a finding: most reviews need no tags.
                from identify import identify

                executable = mode == pygit2.enums.FileMode.BLOB_EXECUTABLE
                named = identify.tags_from_filename(posixpath.basename(path))
                kind = "executable" if executable else "non-executable"
                # A name identify knows as binary is; every other file a finding is on is text.
                content = "binary" if "binary" in named else "text"
                tags = frozenset({"file", kind, content, *named})
            self._tags_of[path] = tags
        return self._tags_of[path]

    def _covers(self, scope: _Scope, path: str) -> bool:
        return scope.covers(path, self.tags(path))

    def _hooks_for(self, finding: Finding) -> tuple[str, ...]:
        """The hooks the finding's rule stands for that check such a file: one that never
        checks it (debug-statements on JavaScript) declares nothing of it."""
        hooks = self._hooks_of.get(finding.rule, ())
        files = self._files_of.get(finding.rule, {})
        path = finding.path or ""
        return tuple(hook for hook in hooks if matches_any(path, files.get(hook, ("*",))))

    def runs_on(self, finding: Finding) -> bool:
        """Whether the project runs the rule's hook on the finding's file: a project that
        checks for the problem there is one that does not accept it."""
        path, top = finding.path, self._top
        if path is None or (top is not None and (top.unknown or not self._covers(top, path))):
            return False
        return any(
            not scope.unknown and self._covers(scope, path)
            for hook in self._hooks_for(finding)
            for scope in self._hooks.get(hook, [])
        )

    def turns_off(self, finding: Finding) -> bool:
        """Whether the project runs the rule's hook, and runs it nowhere on the finding's file."""
        path = finding.path
        if path is None:
            return False
        scopes = [scope for hook in self._hooks_for(finding) for scope in self._hooks.get(hook, [])]
        if not scopes or any(scope.unknown for scope in scopes):
            return False  # the project does not run that hook, or not where it is known
        if self._top is not None and not self._top.unknown and not self._covers(self._top, path):
            return True
        return not any(self._covers(scope, path) for scope in scopes)


def scoped_out(findings: list[Finding], scopes: PreCommitScopes, notes: list[str]) -> list[Finding]:
    """The findings the project's pre-commit configuration does not scope out; the others
    counted in a note, with every pattern that could not be used."""
    kept = [finding for finding in findings if not scopes.turns_off(finding)]
    if len(kept) < len(findings):
        notes.append(
            f"{len(findings) - len(kept)} finding(s) not reported: {scopes.source} leaves "
            "those files out of the hook that checks the same"
        )
    notes.extend(dict.fromkeys([*scopes.applied, *scopes.problems]))
    return kept
