"""What a project declared about its commit messages, to the commit linters it runs: the longest
subject commitlint or gitlint allows, read statically from the landed tree. It outranks what
landwatch learned from the history; landwatch's own committed configuration outranks both.

A JavaScript configuration is never run (a repository's code runs only with the user's trust):
its `header-max-length` is read only where it is written as a literal, and a shared
configuration it extends only by its well-known name.
"""

from __future__ import annotations

import configparser
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from landwatch.review.change import Change

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
_LITERAL_LIMIT = re.compile(
    r"""['"]?header-max-length['"]?\s*:\s*\[\s*([012])\s*,\s*['"](always|never)['"]\s*,\s*(\d{1,4})\s*\]"""
)
_MOST_BYTES = 1 << 20  # a configuration file larger than this is not read


@dataclass(frozen=True)
class Declared:
    """A standard the project declared: its value (None: the project turned the check off), and
    the file that says so."""

    value: int | None
    source: str


def declared_standards(change: Change) -> dict[str, Declared]:
    """The standards (by review.standards' names) the project's commit linters declare."""
    declared = _commitlint(change) or _gitlint(change)
    return {"subject_limit": declared} if declared is not None else {}


def _read(change: Change, path: str) -> str | None:
    data = change.file_at(path)
    if data is None or len(data) > _MOST_BYTES:
        return None
    return data.decode("utf-8", "replace")


def _commitlint(change: Change) -> Declared | None:
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
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        pass
    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def _from_settings(settings: Any, source: str) -> Declared | None:
    """The header limit of a commitlint configuration read as data."""
    if not isinstance(settings, dict):
        return None
    rules = settings.get("rules")
    rule = rules.get("header-max-length") if isinstance(rules, dict) else None
    if isinstance(rule, list) and len(rule) == 3 and rule[0] in (0, 1, 2):
        if rule[0] == 0:
            return Declared(None, source)
        if rule[1] == "always" and isinstance(rule[2], int) and not isinstance(rule[2], bool):
            return Declared(rule[2], source)
    extends = settings.get("extends")
    names = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    for name in names:
        if isinstance(name, str) and name in _SHARED_LIMITS:
            return Declared(_SHARED_LIMITS[name], f"{source} (extends {name})")
    return None


def _from_code(text: str, source: str) -> Declared | None:
    """The header limit of a commitlint configuration written as code, where it is a literal."""
    literal = _LITERAL_LIMIT.search(text)
    if literal is not None:
        level, applies, limit = literal.groups()
        if level == "0":
            return Declared(None, source)
        if applies == "always":
            return Declared(int(limit), source)
    for name, limit_of in _SHARED_LIMITS.items():
        if name.startswith("@") and name in text:
            return Declared(limit_of, f"{source} (extends {name})")
    return None


def _gitlint(change: Change) -> Declared | None:
    """gitlint's `[title-max-length] line-length`, or the rule ignored in `[general]`."""
    text = _read(change, ".gitlint")
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    ignored = parser.get("general", "ignore", fallback="")
    if any(part.strip() in ("T1", "title-max-length") for part in ignored.split(",")):
        return Declared(None, ".gitlint")
    length = parser.get("title-max-length", "line-length", fallback="").strip()
    return Declared(int(length), ".gitlint") if length.isdigit() and len(length) <= 4 else None
