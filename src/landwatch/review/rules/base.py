"""What a rule is: an id, a name, a scope, a default severity, typed options and its docs.

A rule checks one scope (added lines of a file, a whole new file, the tree, the change, the
message) and yields findings; third-party rules subclass these and register through the
`landwatch.rules` entry point group.
"""

from __future__ import annotations

import enum
import fnmatch
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # only annotations: reading a report must not import pygit2
    from landwatch.review.change import Change, FileChange, Line, Message


class Severity(enum.IntEnum):
    OFF = 0
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, value: str) -> Severity:
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"not a severity: {value!r} (off, info, warning, error)") from None


class Scope(enum.Enum):
    LINES = "added lines"
    FILE = "whole new file"
    TREE = "tree, paths and modes"
    CHANGE = "the change as a whole"
    MESSAGE = "the commit message"


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    description: str

    def coerce(self, value: Any) -> Any:
        """The value as the default's type; ValueError naming what was expected."""
        expected = type(self.default)
        if expected is bool or isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
        elif expected is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif expected is float:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        elif expected is str:
            if isinstance(value, str):
                return value
        elif expected in (list, tuple) and (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return tuple(value)
        raise ValueError(f"expects {_type_name(self.default)}, not {value!r}")


def _type_name(default: Any) -> str:
    return {
        bool: "true or false",
        int: "an integer",
        float: "a number",
        str: "a string",
        tuple: "a list of strings",
        list: "a list of strings",
    }[type(default)]


@dataclass
class Finding:
    rule: str  # id
    name: str
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    end_line: int | None = None
    snippet: str | None = None  # the offending line (secrets redacted)
    fingerprint: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.name.lower(),
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "snippet": self.snippet,
            "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            data["rule"],
            data["name"],
            Severity[data["severity"].upper()],
            data["message"],
            data.get("path"),
            data.get("line"),
            data.get("end_line"),
            data.get("snippet"),
            data.get("fingerprint", ""),
        )


def fingerprint(rule: str, path: str | None, content: bytes | str, occurrence: int = 0) -> str:
    """Identity of a finding that survives line moves: rule, path, the line's normalised text."""
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    normal = " ".join(text.split())
    digest = hashlib.sha256(f"{rule}\0{path or ''}\0{normal}\0{occurrence}".encode())
    return digest.hexdigest()[:20]


class Rule:
    """Base of every rule. Subclasses set the class attributes and implement one check."""

    id: ClassVar[str]
    name: ClassVar[str]
    scope: ClassVar[Scope]
    severity: ClassVar[Severity]
    options: ClassVar[tuple[Option, ...]] = ()
    # Globs of paths this rule looks at (None: every path not excluded).
    applies_to: ClassVar[tuple[str, ...] | None] = None
    # Secret rules honour `gitleaks:allow` and `pragma: allowlist secret` on the line too.
    secret: ClassVar[bool] = False
    # A short example of what the rule reports, for docs/rules.md.
    example: ClassVar[str] = ""

    def __init__(self, severity: Severity | None = None, **options: Any) -> None:
        self.active_severity = self.severity if severity is None else severity
        known = {option.name: option for option in self.options}
        self.settings: dict[str, Any] = {option.name: option.default for option in self.options}
        for key, value in options.items():
            if key not in known:
                raise ValueError(
                    f"{self.id} has no option {key!r}"
                    + (f" (options: {', '.join(known)})" if known else "")
                )
            self.settings[key] = known[key].coerce(value)

    def option(self, name: str) -> Any:
        return self.settings[name]

    def wants(self, path: str) -> bool:
        return self.applies_to is None or matches_any(path, self.applies_to)

    def finding(
        self,
        message: str,
        *,
        path: str | None = None,
        line: Line | None = None,
        number: int | None = None,
        content: bytes | str = b"",
        occurrence: int = 0,
        snippet: str | None = None,
        end_line: int | None = None,
    ) -> Finding:
        raw = content or (line.raw if line is not None else b"")
        shown = snippet if snippet is not None else (line.text if line is not None else None)
        return Finding(
            self.id,
            self.name,
            self.active_severity,
            message,
            path,
            line.number if line is not None else number,
            end_line,
            shown,
            fingerprint(self.id, path, raw or message, occurrence),
        )

    @classmethod
    def doc(cls) -> str:
        return (cls.__doc__ or "").strip()


class LineRule(Rule):
    scope = Scope.LINES

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterable[Finding]:
        raise NotImplementedError


class FileRule(Rule):
    scope = Scope.FILE

    def check_file(self, file: FileChange, content: bytes) -> Iterable[Finding]:
        raise NotImplementedError


class TreeRule(Rule):
    scope = Scope.TREE

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterable[Finding]:
        raise NotImplementedError


class ChangeRule(Rule):
    scope = Scope.CHANGE

    def check_change(self, change: Change) -> Iterable[Finding]:
        raise NotImplementedError


class MessageRule(Rule):
    scope = Scope.MESSAGE

    def check_message(self, message: Message) -> Iterable[Finding]:
        raise NotImplementedError


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """Path globs: `*.min.js` matches a file name at any depth; `vendor/**` everything under a
    directory of that name at any depth; a pattern with an inner `/` is anchored at the root."""
    parts = path.split("/")
    for pattern in patterns:
        if pattern.endswith("/**"):
            directory = pattern[:-3].strip("/")
            if "/" in directory:
                if fnmatch.fnmatchcase(path, directory + "/*"):
                    return True
            elif any(fnmatch.fnmatchcase(part, directory) for part in parts[:-1]):
                return True
        elif "/" in pattern.strip("/"):
            if fnmatch.fnmatchcase(path, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(parts[-1], pattern):
            return True
    return False


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)

    def of(self, kind: type[Rule]) -> list[Any]:
        return [
            rule
            for rule in self.rules
            if isinstance(rule, kind) and rule.active_severity > Severity.OFF
        ]
