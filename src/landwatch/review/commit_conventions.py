"""What a project declared about its commit messages, to the commit linters it runs: the longest
subject commitlint or gitlint allows, and whether they require Conventional Commits (and of which
types), read statically from the landed tree. It outranks what
landwatch learned from the history; landwatch's own committed configuration outranks both.

A JavaScript configuration is never run (a repository's code runs only with the user's trust):
its `header-max-length` is read only where it is written as a literal, and a shared
configuration it extends only by its well-known name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import Change
from landwatch.review.documents import load_yaml

# commitlint's files, in the order it looks for them (its docs: configuration).
_COMMITLINT_DATA = (
    ".commitlintrc",
    ".commitlintrc.json",
    ".commitlintrc.yaml",
    ".commitlintrc.yml",
)
_COMMITLINT_CODE = (
    *(f"commitlint.config.{ext}" for ext in ("js", "cjs", "mjs", "ts", "cts", "mts")),
    *(f".commitlintrc.{ext}" for ext in ("js", "cjs", "mjs", "ts", "cts", "mts")),
)
# The shared configurations whose header limit is known: @commitlint/config-conventional's 100.
_SHARED_LIMITS = {"@commitlint/config-conventional": 100, "conventional": 100}
# A rule's level as commitlint's documentation writes it: a number, or in TypeScript its enum
# (`RuleConfigSeverity.Error`: an audit, where only numbers were read).
_LEVEL = r"([012]|RuleConfigSeverity\.(?:Disabled|Warning|Error))"
_OFF = ("0", "RuleConfigSeverity.Disabled")
_LITERAL_LIMIT = lazy_compile(
    r"""['"]?header-max-length['"]?\s*:\s*\[\s*"""
    + _LEVEL
    + r"""\s*,\s*['"](always|never)['"]\s*,\s*(\d{1,4})\s*\]"""
)
_MOST_BYTES = 1 << 20  # a configuration file larger than this is not read


@dataclass(frozen=True)
class Declared:
    """A standard the project declared: its value (a subject limit, or True for a convention it
    requires; None: the project turned the check off), the file that says so, and what else
    it sets of the rule (the types Conventional Commits allow)."""

    value: int | bool | None
    source: str
    options: Mapping[str, Any] = field(default_factory=dict)


# The standards (by review.standards' names) a commit linter's configuration can declare.
SUBJECT_LIMIT = "subject_limit"
CONVENTIONAL = "writes_conventional_commits"
# commitlint's type-enum, written as a literal in a configuration that is code.
_LITERAL_TYPES = lazy_compile(
    r"""['"]?type-enum['"]?\s*:\s*\[\s*"""
    + _LEVEL
    + r"""\s*,\s*['"]always['"]\s*,\s*\[([^\]]{0,2000})\]"""
)
_QUOTED = lazy_compile(r"""['"]([A-Za-z][A-Za-z0-9-]{0,40})['"]""")
_GITLINT_CONVENTIONAL = "contrib-title-conventional-commits"


def declared_standards(change: Change) -> dict[str, Declared]:
    """The standards (by review.standards' names) the project's commit linters declare:
    commitlint's configuration if it has one, else gitlint's."""
    declared = _commitlint(change)
    return declared if declared is not None else _gitlint(change)


def _read(change: Change, path: str) -> str | None:
    data = change.file_at(path)
    if data is None or len(data) > _MOST_BYTES:
        return None
    return data.decode("utf-8", "replace")


def _commitlint(change: Change) -> dict[str, Declared] | None:
    """What commitlint's configuration declares; None where the project has none."""
    for path in _COMMITLINT_DATA:
        text = _read(change, path)
        if text is not None:
            return _from_settings(_parsed(text), path)
    package = _read(change, "package.json")
    if package is not None:
        settings = _parsed(package)
        if isinstance(settings, dict) and isinstance(settings.get("commitlint"), dict):
            return _from_settings(settings["commitlint"], "package.json")
    for path in _COMMITLINT_CODE:
        text = _read(change, path)
        if text is not None:
            return _from_code(text, path)
    return None


def _parsed(text: str) -> Any:
    """JSON, or else YAML (commitlint reads `.commitlintrc` as either); None when neither."""
    import yaml  # here, not at the top: most repositories have no commitlint file

    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        pass
    try:
        return load_yaml(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def _shared(names: list[Any], source: str) -> dict[str, Declared]:
    """What the well-known shared configurations a project extends declare: the conventional
    one, a header limit of 100 and Conventional Commits with its types."""
    for name in names:
        if isinstance(name, str) and name in _SHARED_LIMITS:
            where = f"{source} (extends {name})"
            return {
                SUBJECT_LIMIT: Declared(_SHARED_LIMITS[name], where),
                CONVENTIONAL: Declared(True, where),
            }
    return {}


def _from_settings(settings: Any, source: str) -> dict[str, Declared]:
    """What a commitlint configuration read as data declares: its own rules over what the
    configurations it extends say."""
    if not isinstance(settings, dict):
        return {}
    extends = settings.get("extends")
    names = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    declared = _shared(names, source)
    rules = settings.get("rules")
    rules = rules if isinstance(rules, dict) else {}
    off, limit = _rule(rules, "header-max-length")
    if off:
        declared[SUBJECT_LIMIT] = Declared(None, source)
    elif isinstance(limit, int) and not isinstance(limit, bool):
        declared[SUBJECT_LIMIT] = Declared(limit, source)
    off, types = _rule(rules, "type-enum")
    if off:
        declared.pop(CONVENTIONAL, None)  # the type check off: nothing required of types
    elif isinstance(types, list):
        named = [kind for kind in types if isinstance(kind, str) and kind]
        if named:
            declared[CONVENTIONAL] = Declared(True, source, {"types": named})
    return declared


def _rule(rules: dict[str, Any], name: str) -> tuple[bool, Any]:
    """A commitlint rule, `[level, applicable, value]`: whether it is turned off (level 0;
    `[0]` alone will do), and its value where it applies `always` (else None)."""
    rule = rules.get(name)
    if not isinstance(rule, list) or not rule:
        return False, None
    if rule[0] == 0:
        return True, None
    if len(rule) == 3 and rule[0] in (1, 2) and rule[1] == "always":
        return False, rule[2]
    return False, None


def _from_code(text: str, source: str) -> dict[str, Declared]:
    """What a commitlint configuration written as code declares, where it is a literal."""
    declared = _shared(
        [name for name in _SHARED_LIMITS if name.startswith("@") and name in text], source
    )
    literal = _LITERAL_LIMIT.search(text)
    if literal is not None:
        level, applies, limit = literal.groups()
        if level in _OFF:
            declared[SUBJECT_LIMIT] = Declared(None, source)
        elif applies == "always":
            declared[SUBJECT_LIMIT] = Declared(int(limit), source)
    types = _LITERAL_TYPES.search(text)
    if types is not None:
        if types[1] in _OFF:
            declared.pop(CONVENTIONAL, None)
        elif named := tuple(_QUOTED.findall(types[2])):
            declared[CONVENTIONAL] = Declared(True, source, {"types": list(named)})
    return declared


def _gitlint(change: Change) -> dict[str, Declared]:
    """gitlint's `[title-max-length] line-length`, or that rule ignored in `[general]`; its
    Conventional Commits rule turned on in `[general] contrib`, with its `types`."""
    text = _read(change, ".gitlint")
    if text is None:
        return {}
    import configparser  # only where a .gitlint is

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    declared: dict[str, Declared] = {}
    ignored = {part.strip() for part in parser.get("general", "ignore", fallback="").split(",")}
    length = parser.get("title-max-length", "line-length", fallback="").strip()
    if ignored & {"T1", "title-max-length"}:
        declared[SUBJECT_LIMIT] = Declared(None, ".gitlint")
    elif length.isdigit() and len(length) <= 4:
        declared[SUBJECT_LIMIT] = Declared(int(length), ".gitlint")
    contrib = {part.strip() for part in parser.get("general", "contrib", fallback="").split(",")}
    if contrib & {"CT1", _GITLINT_CONVENTIONAL}:
        types = parser.get(_GITLINT_CONVENTIONAL, "types", fallback="")
        named = tuple(kind.strip() for kind in types.split(",") if kind.strip())
        declared[CONVENTIONAL] = Declared(True, ".gitlint", {"types": list(named)} if named else {})
    return declared
