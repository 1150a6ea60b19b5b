"""The review's configuration: `.landwatch.toml` or `[tool.landwatch]` in pyproject.toml, read
from the committed tree of the reviewed commit, so reviewing a commit twice gives one result; or,
where the caller says so (`RulesAt`), from another commit's tree: the rules a change came to.

Every unknown key and bad value is an error naming the key; the review then records it as a
finding and goes on with the defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pygit2

from landwatch.errors import UserError
from landwatch.review.blobs import blob_size
from landwatch.review.change import FIRST_PARENT, MERGES, resolve
from landwatch.review.findings import Severity
from landwatch.review.globs import LOCKFILES
from landwatch.review.regexes import MOST_PATTERNS, RegexError, compile_safe

CONFIG_FILE = ".landwatch.toml"
PYPROJECT = "pyproject.toml"
# The largest configuration file read: a pyproject.toml is kilobytes, and tomllib reads about
# 4 MB a second, so a tree's 1 GB one would hold up every repository's reviews for minutes.
# As large as a changed file the review reads (8 MB): one past trust's pin of its content (1 MB,
# pinned by its blob instead) is still read.
MAX_CONFIG_BYTES = 8 << 20

DEFAULT_EXCLUDE = (
    "vendor/**",
    "vendored/**",
    "third_party/**",
    "third-party/**",
    "node_modules/**",
    "*.min.js",
    "*.min.css",
    "*.map",
    *LOCKFILES,
)
DEFAULT_SKIP_AUTHORS = (
    "dependabot[bot]",
    "renovate[bot]",
    "github-actions[bot]",
    "pre-commit-ci[bot]",
)
# No single linter run may hold the review queue longer than this (every other repository's
# reviews wait behind it).
MAX_LINTER_TIMEOUT = 120.0
FORMATS = ("ruff-json", "sarif", "regex")
FILTERS = ("added", "file", "baseline")


class ConfigError(UserError):
    """A configuration that cannot be used; says which file and which key."""


class LinterConfig(NamedTuple):
    name: str
    command: tuple[str, ...]
    format: str
    files: tuple[str, ...] = ("*",)
    pattern: str | None = None
    filter: str = "added"
    severity: Severity = Severity.WARNING
    timeout: float = 30.0
    # Files of the repository it reads besides those review.pinned knows: pinned with it.
    config: tuple[str, ...] = ()


@dataclass
class ReviewConfig:
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    skip_authors: tuple[str, ...] = DEFAULT_SKIP_AUTHORS
    merges: str = FIRST_PARENT
    max_added_lines: int = 20_000
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # id or name -> settings
    linters: list[LinterConfig] = field(default_factory=list)
    # [secrets]: secret findings to let through, by their value (Python regexes, searched in the
    # secret) or their path (globs, as `exclude`). review.declarations applies them.
    secrets_allow: tuple[str, ...] = ()
    secrets_allow_paths: tuple[str, ...] = ()
    source: str = "defaults"
    # What could not be used, every one of them (the rest of the configuration applies).
    problems: list[str] = field(default_factory=list)
    patterns: int = 0  # the globs and regexes of its lists used, at most MOST_PATTERNS


class RulesAt(NamedTuple):
    """Where a review reads the configuration and what the project declared to its secret
    scanners when not from the reviewed commit: `revision`'s tree (`landwatch ci`: the range's
    base, so that a change is reviewed by the rules it came to), or with None no tree at all
    (landwatch's defaults: a root commit came to none)."""

    revision: str | None

    def tree(self, repo: pygit2.Repository) -> pygit2.Tree | None:
        return resolve(repo, self.revision).tree if self.revision is not None else None

    def note(self) -> str:
        """What the report's notes say of it."""
        if self.revision is None:
            return "reviewed by landwatch's defaults, not by the configuration it brings"
        return (
            f"reviewed by the configuration and secret scanners' declarations of "
            f"{self.revision[:12]}, the rules it came to, not by the ones it brings"
        )


def read_config(tree: pygit2.Tree, repo: pygit2.Repository) -> ReviewConfig:
    """The configuration of a landed tree; ConfigError when it is there but wrong."""
    for name, table_path in ((CONFIG_FILE, ()), (PYPROJECT, ("tool", "landwatch"))):
        try:
            entry = tree[name]
        except KeyError:
            continue
        if entry.type_str != "blob":
            continue
        if entry.filemode == pygit2.enums.FileMode.LINK:
            # Its blob is the link's target, never the file's text.
            raise ConfigError(
                f"{name}: a symbolic link, which landwatch does not read (commit the file itself)"
            )
        size = blob_size(repo, entry.id)
        if size is not None and size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{name}: {size:,} bytes, larger than the {MAX_CONFIG_BYTES >> 20} MB landwatch "
                "reads"
            )
        blob = repo[entry.id]
        if not isinstance(blob, pygit2.Blob):
            continue
        import tomllib  # 3 ms: only where a configuration is committed

        try:
            document = tomllib.loads(blob.data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{name}: not valid TOML ({error})") from None
        except RecursionError:
            raise ConfigError(f"{name}: nested too deeply to read") from None
        table: Any = document
        for key in table_path:
            table = table.get(key) if isinstance(table, dict) else None
        if table is None:
            continue  # a pyproject.toml without [tool.landwatch]
        where = name if not table_path else f"{name} [tool.landwatch]"
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: must be a table")
        return parse(table, where)
    return ReviewConfig()


def parse(table: dict[str, Any], where: str) -> ReviewConfig:
    """The configuration of a table: every key that can be used applied, every one that cannot
    named in `problems` (all of them at once, not the first only)."""
    config = ReviewConfig(source=where)
    for key, value in table.items():
        try:
            _apply(config, key, value, where)
        except ConfigError as error:
            config.problems.append(str(error))
    return config


def _apply(config: ReviewConfig, key: str, value: Any, where: str) -> None:
    if key == "exclude":
        config.exclude = DEFAULT_EXCLUDE + _counted(config, _strings(value, where, key), where, key)
    elif key == "skip_authors":
        config.skip_authors = DEFAULT_SKIP_AUTHORS + _strings(value, where, key)
    elif key == "merges":
        config.merges = _choice(value, MERGES, where, key)
    elif key == "max_added_lines":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(
                f"{where}: max_added_lines must be a whole number >= 0, not {value!r}"
            )
        config.max_added_lines = value
    elif key == "rules":
        config.rules = _rules(config, value, where)
    elif key == "linters":
        if not isinstance(value, list):
            raise ConfigError(f"{where}: linters must be an array of tables ([[linters]])")
        for number, entry in enumerate(value, 1):
            try:
                config.linters.append(_linter(entry, where, number))
            except ConfigError as error:
                config.problems.append(str(error))
    elif key == "secrets":
        _secrets(config, value, where)
    else:
        raise ConfigError(
            f"{where}: unknown key {key!r} (known: exclude, skip_authors, "
            "merges, max_added_lines, rules, linters, secrets)"
        )


def _secrets(config: ReviewConfig, value: Any, where: str) -> None:
    """`[secrets]`: `allow`, regexes of secret values, and `allow_paths`, globs; a pattern that
    cannot be used (or could backtrack badly: review.regexes) leaves `allow` unset."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: secrets must be a table ([secrets])")
    for key, item in value.items():
        try:
            if key == "allow":
                config.secrets_allow = _patterns(config, item, where, "secrets.allow")
            elif key == "allow_paths":
                allow_paths = _strings(item, where, "secrets.allow_paths")
                config.secrets_allow_paths = _counted(
                    config, allow_paths, where, "secrets.allow_paths"
                )
            else:
                raise ConfigError(
                    f"{where}: secrets: unknown key {key!r} (known: allow, allow_paths)"
                )
        except ConfigError as error:
            config.problems.append(str(error))


def _patterns(config: ReviewConfig, value: Any, where: str, key: str) -> tuple[str, ...]:
    patterns = _counted(config, _strings(value, where, key), where, key)
    for pattern in patterns:
        try:
            compile_safe(pattern)
        except RegexError as error:
            raise ConfigError(f"{where}: {key}: {error}") from None
    return patterns


def _counted(
    config: ReviewConfig, patterns: tuple[str, ...], where: str, key: str
) -> tuple[str, ...]:
    """`patterns`, counted toward the MOST_PATTERNS of the configuration: each is a search of
    every changed path or secret, and a list that would pass it is not used, as a broken one."""
    if config.patterns + len(patterns) > MOST_PATTERNS:
        raise ConfigError(
            f"{where}: {key}: {len(patterns):,} patterns past the {MOST_PATTERNS:,} globs and "
            "regexes landwatch reads of a configuration; not used"
        )
    config.patterns += len(patterns)
    return patterns


def _strings(value: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _choice(value: Any, choices: tuple[str, ...], where: str, key: str) -> str:
    if value not in choices:
        raise ConfigError(f"{where}: {key} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _rules(config: ReviewConfig, value: Any, where: str) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: rules must be a table")
    problems = config.problems
    rules: dict[str, dict[str, Any]] = {}
    for rule, setting in value.items():
        if isinstance(setting, str):
            setting = {"severity": setting}
        if not isinstance(setting, dict):
            problems.append(f"{where}: rules.{rule} must be a severity or a table")
            continue
        settings = dict(setting)
        for option, given in setting.items():
            # A rule's list options are globs of paths (its lockfiles, its markdown files).
            if isinstance(given, list):
                try:
                    _counted(config, tuple(given), where, f"rules.{rule}.{option}")
                except ConfigError as error:
                    problems.append(str(error))
                    del settings[option]
        if "severity" in settings:
            try:
                settings["severity"] = Severity.parse(str(settings["severity"]))
            except ValueError as error:
                problems.append(f"{where}: rules.{rule}.severity: {error}")
                continue
        rules[rule] = settings
    return rules


def _linter(entry: Any, where: str, number: int) -> LinterConfig:
    label = f"linters[{number}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: {label} must be a table")
    known = {
        *("name", "command", "format", "files", "pattern", "filter", "severity", "timeout"),
        "config",
    }
    for key in entry:
        if key not in known:
            raise ConfigError(f"{where}: {label}: unknown key {key!r}")
    for required in ("name", "command", "format"):
        if required not in entry:
            raise ConfigError(f"{where}: {label}: {required} is required")
    name = entry["name"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ConfigError(f"{where}: {label}.name must be a word (letters, digits, - _ .)")
    command = _strings(entry["command"], where, f"{label}.command")
    if not command:
        raise ConfigError(f"{where}: {label}.command must not be empty")
    form = _choice(entry["format"], FORMATS, where, f"{label}.format")
    pattern = entry.get("pattern")
    if form == "regex":
        if not isinstance(pattern, str):
            raise ConfigError(f'{where}: {label}.pattern is required with format = "regex"')
        try:
            # RE2: the reviewer runs it on every line the linter says, outside the wall.
            compiled = compile_safe(pattern)
        except RegexError as error:
            raise ConfigError(f"{where}: {label}.pattern: {error}") from None
        if not {"line", "message"} <= set(compiled.pattern.groupindex):
            raise ConfigError(
                f"{where}: {label}.pattern needs the groups (?P<line>) and (?P<message>)"
            )
    timeout = entry.get("timeout", 30.0)
    if (
        not isinstance(timeout, int | float)
        or isinstance(timeout, bool)
        or not 0 < timeout <= MAX_LINTER_TIMEOUT
    ):
        raise ConfigError(
            f"{where}: {label}.timeout must be a number of seconds from 0 to "
            f"{MAX_LINTER_TIMEOUT:.0f}, not {timeout!r}"
        )
    try:
        severity = Severity.parse(str(entry.get("severity", "warning")))
    except ValueError as error:
        raise ConfigError(f"{where}: {label}.severity: {error}") from None
    return LinterConfig(
        name=name,
        command=command,
        format=form,
        files=_strings(entry.get("files", ["*"]), where, f"{label}.files"),
        pattern=pattern,
        filter=_choice(entry.get("filter", "added"), FILTERS, where, f"{label}.filter"),
        severity=severity,
        timeout=float(timeout),
        config=_config_paths(entry.get("config", []), where, f"{label}.config"),
    )


def _config_paths(value: Any, where: str, key: str) -> tuple[str, ...]:
    """Paths from the root of the repository, to files: nothing that could leave the tree."""
    paths = _strings(value, where, key)
    for path in paths:
        parts = path.split("/")
        if any(part in ("", ".", "..") or "\0" in part for part in parts):
            raise ConfigError(
                f"{where}: {key}: {path!r} must be a file's path from the root (no leading /, "
                "no . or .. parts)"
            )
    return paths


def parse_linters(document: dict[str, Any], where: str) -> list[LinterConfig]:
    """The person's own linters (their config.toml): `[[linters]]` tables and nothing else."""
    for key in document:
        if key != "linters":
            raise ConfigError(f"{where}: unknown key {key!r} (known: linters)")
    value = document.get("linters", [])
    if not isinstance(value, list):
        raise ConfigError(f"{where}: linters must be an array of tables ([[linters]])")
    linters = [_linter(entry, where, n) for n, entry in enumerate(value, 1)]
    for number, linter in enumerate(linters, 1):
        if linter.config:
            # What a repository gives your linters is what you trusted there, nothing you name.
            raise ConfigError(
                f"{where}: linters[{number}].config: only a repository's own [[linters]] may "
                "name its files; yours get the configuration you trusted there"
            )
    return linters
