"""What a rule is: an id, a name, a scope, a default severity, typed options and its docs, and
every fact the engine needs of it (bursts, learned standards, practices) as a class attribute.

A rule checks one scope (added lines of a file, a whole new file, the tree, the change, the
message) and yields findings; third-party rules subclass these and register through the
`landwatch.rules` entry point group, and get the defaults of whatever attribute they leave out.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from landwatch.review.findings import BY_DEFAULT, Basis, Finding, Severity, fingerprint
from landwatch.review.globs import matches_any

if TYPE_CHECKING:  # only annotations: reading a report must not import pygit2
    from landwatch.review.change import Change, FileChange
    from landwatch.review.diffs import Line
    from landwatch.review.message import Message


class Scope(enum.Enum):
    LINES = "added lines"
    FILE = "whole new file"
    TREE = "tree, paths and modes"
    CHANGE = "the change as a whole"
    MESSAGE = "the commit message"


class Practice(enum.Enum):
    """A practice of the project's that the tree before a change can show (review.precedent),
    and which makes a rule's findings follow it. No secret is ever let through this way."""

    # Test directories whose files mostly end without a newline: compared byte for byte. The
    # rule's findings there are not reported.
    FIXTURE_BYTES = "test fixtures kept byte for byte"
    # The file already held what the rule finds, and nothing the project declared removes it:
    # the project lives with it. The findings are told at info, never dropped (`Rule.held_in`
    # says what the rule looks for).
    KEPT_BEFORE = "kept in the file before"


class Learned(NamedTuple):
    """What a project's history teaches a rule (review.standards) where the committed
    configuration says nothing of it: the value of one `Standards` attribute, set as an option
    or turning the rule on."""

    # The attribute of review.standards.Standards read (None or false: nothing learned).
    standard: str
    # The report's note when it applies: {value} is what was learned, {id} the rule's id.
    note: str
    # The option the value sets; None: a true value turns the rule on, at warning.
    option: str | None = None
    # A rule turned on so may also take in more values for one of its list options: the
    # `Standards` attribute holding them and the option they join (the types a project uses).
    widens: tuple[str, str] | None = None


class Option(NamedTuple):
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
            # Every whole-number option is a size or a limit: 0 or less would mean nothing.
            if isinstance(value, int) and not isinstance(value, bool):
                if value < 1:
                    raise ValueError(f"expects a whole number of 1 or more, not {value!r}")
                return value
        elif expected is float:
            if isinstance(value, int | float) and not isinstance(value, bool):
                if not math.isfinite(value) or value < 0:
                    raise ValueError(f"expects a number of 0 or more, not {value!r}")
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


class Rule:
    """Base of every rule. Subclasses set the class attributes and implement one check."""

    id: ClassVar[str]
    name: ClassVar[str]
    scope: ClassVar[Scope]
    severity: ClassVar[Severity]
    options: ClassVar[tuple[Option, ...]] = ()
    # Globs of paths this rule looks at (None: every path not excluded).
    applies_to: ClassVar[tuple[str, ...] | None] = None
    # Secret rules honour what the project declared to its secret scanners too: their markers
    # on the line, and their files (review.declarations).
    secret: ClassVar[bool] = False
    # What `landwatch.push.block = secrets` refuses a push for, at error: what cannot be taken
    # back once on a remote (a secret) or never belongs on one (a conflict marker).
    refuses_push: ClassVar[bool] = False
    # A rule about the rules themselves (what a change does to the configuration and the
    # scanners' declarations) runs only where a review reads them from elsewhere than the commit
    # it reviews (`landwatch ci`: the range's base); as the secret rules, no trailer waives it.
    watches_the_rules: ClassVar[bool] = False
    # A short example of what the rule reports, for docs/rules.md.
    example: ClassVar[str] = ""
    # What the rule tells at each severity, for a rule whose findings are not all told alike
    # (the secret rules: by how sure each is), for docs/rules.md.
    certainty: ClassVar[tuple[tuple[Severity, str], ...]] = ()
    # Message rules are skipped for `fixup!`/`squash!` commits, meant to vanish in a rebase,
    # unless the rule is about them.
    runs_on_fixups: ClassVar[bool] = False
    # Past this many findings in one file, the rule's findings there are one finding listing
    # their lines (an ASCII-art block, a pasted table, a list of example keys); None: never.
    merged_past: ClassVar[int | None] = None
    # What the project's history teaches the rule, unless the configuration sets it.
    learned: ClassVar[Learned | None] = None
    # The project's practice that, where the tree before the change shows it, the rule's
    # findings follow (not reported, or told at info).
    practice: ClassVar[Practice | None] = None
    # Whether lines of a test's expected output (a snapshot file, a multi-line string literal a
    # test compares byte for byte) are spared the rule's findings (review.expected_output).
    spares_expected_output: ClassVar[bool] = False
    # The .editorconfig key that decides the rule for a file (review.editor_config): `false`
    # turns it off there, `true` keeps its findings whatever the history taught.
    editorconfig: ClassVar[str | None] = None
    # The pre-commit hooks that check what this rule checks (review.precommit_scopes): a file
    # the project's configuration keeps out of all of them is one the rule leaves alone.
    precommit_hooks: ClassVar[tuple[str, ...]] = ()
    # The files a hook checks, for a hook that checks fewer than the rule does (pre-commit's
    # `debug-statements` only Python): elsewhere, where the project runs it says nothing.
    precommit_files: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # gitleaks' rules that find what this rule finds, each with the starts of the messages of
    # the findings it stands for (none: all of them): an allowlist a project scoped to one of
    # them in .gitleaks.toml applies to those findings (review.gitleaks).
    gitleaks_rules: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def __init__(self, severity: Severity | None = None, **options: Any) -> None:
        self.active_severity = self.severity if severity is None else severity
        # Whose standard sets the rule's severity and options: the engine says when the
        # project's configuration or declarations, or the history, set them.
        self.basis: Basis = BY_DEFAULT
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

    def held_in(self, path: str, content: bytes) -> bool:
        """Whether `content`, a file at `path` before the change, already held what this rule
        finds: the evidence Practice.KEPT_BEFORE reads. A rule with that practice answers."""
        return False

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
            basis=self.basis,
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
    # Whether the files a project keeps whole as a tool wrote them (generated, vendored, a bot's
    # release outputs: review.generated) are left out of the files the rule is given.
    skips_tool_output: ClassVar[bool] = False

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


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)
    at_push: bool = False  # the push gate's: a text file too large to hold is read in pieces

    def of(self, family: type[Rule]) -> list[Any]:
        return [
            rule
            for rule in self.rules
            if isinstance(rule, family) and rule.active_severity > Severity.OFF
        ]
