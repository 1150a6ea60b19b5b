"""What a project declared in its `.editorconfig` files, read from the landed commit's tree with
EditorConfig's own library (`editorconfig`): a section that turns trailing-whitespace trimming
or the final newline off turns the matching rule off for its files; one that turns it on makes
the rule's finding certain, whatever the history taught.

A section's glob is translated by the library and run with RE2: a repository's glob matches in
time linear in the path (the library's own matcher backtracks). Each file is read once, its
sections then matched against each path asked about, and no more than MOST_BYTES of them nor
MOST_PATTERNS sections.
"""

from __future__ import annotations

import functools
import io
import posixpath
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from landwatch.review.change import Change
from landwatch.review.findings import Finding
from landwatch.review.regexes import MOST_PATTERNS, RegexError, SafePattern, compile_safe
from landwatch.review.rules.base import RuleSet

FILE_NAME = ".editorconfig"
_MOST_DIRECTORIES = 64


# What is read of a tree's `.editorconfig` files, all together: the largest in the wild are tens
# of kilobytes (a .NET project's analyzer severities); a hostile tree's 7 MB one was read again
# for each file with a finding, 7 s each. A longer line is not read either: the library's own
# search for a value's comment takes time quadratic in the line (75 ms for 4,096 characters).
MOST_BYTES = 256 * 1024
LONGEST_LINE = 4096


@dataclass
class _Read:
    """One `.editorconfig` as read once for every path: its sections in order, each glob placed
    over paths from the root (_section_glob) with the options it sets in order, and whether it
    is the root."""

    sections: list[tuple[str, list[tuple[str, str]]]]
    root: bool


@functools.cache
def _recording_parser() -> Any:
    """EditorConfig's parser, made to read a file once for every path: each section it meets
    kept with its options, to be matched against each path after (by RE2: _matches); made at
    the first `.editorconfig` met, since the library and configparser cost every review 3 ms."""
    from collections import OrderedDict

    from editorconfig.ini import EditorConfigParser

    class SectionOptions(OrderedDict[str, str]):
        """Where the parser sets an option of the section it is in: kept under that section."""

        def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
            super().__init__()
            self.sections = sections

        def __setitem__(self, key: str, value: str) -> None:
            self.sections[-1][1].append((key, value))

    class RecordingParser(EditorConfigParser):
        def __init__(self) -> None:
            super().__init__("")
            self.sections: list[tuple[str, list[tuple[str, str]]]] = []
            self.options = SectionOptions(self.sections)

        def matches_filename(self, config_filename: str, glob: str) -> bool:
            self.sections.append((glob, []))
            return True  # each option is kept under its section (SectionOptions)

    return RecordingParser


def _section_glob(directory: str, glob: str) -> str:
    """A section's glob of the `.editorconfig` in `directory` (`/`, `/a/b`) over paths from the
    root (`/a/b/c.py`), as the library places it."""
    glob = glob.replace("\\#", "#").replace("\\;", ";")
    if "/" in glob:
        return posixpath.join(directory, glob[1:] if glob.startswith("/") else glob)
    return posixpath.join("**/", glob)


def _matches(name: str, glob: str, problems: list[str]) -> bool:
    """Whether `name` matches an EditorConfig glob, numeric ranges (`{1..3}`) included."""
    compiled = _compiled(glob, problems)
    if compiled is None:
        return False
    pattern, ranges = compiled
    match = pattern.pattern.match(name)
    if match is None:
        return False
    for number, (low, high) in zip(match.groups(), ranges, strict=False):
        if number is None or number[0] == "0" or not low <= int(number) <= high:
            return False
    return True


def _compiled(glob: str, problems: list[str]) -> tuple[SafePattern, list[tuple[int, int]]] | None:
    """The glob compiled, or None and a problem saying why (in every review that meets it)."""
    compiled, why = _compile(glob)
    if why is not None:
        problems.append(f"{FILE_NAME}: the section [{glob}] cannot be used ({why})")
    return compiled


@functools.lru_cache(maxsize=MOST_PATTERNS)  # a review's sections, all of them
def _compile(glob: str) -> tuple[tuple[SafePattern, list[tuple[int, int]]] | None, str | None]:
    """Once per glob in a worker's life, however many reviews meet it: the library's
    translation run by RE2, or why it cannot be."""
    from editorconfig.fnmatch import translate

    try:
        regex, ranges = translate(glob)
        if regex.endswith("\\Z") and not regex.endswith("\\\\Z"):
            regex = regex[:-2] + "\\z"  # the end of the text, as RE2 spells it
        return (compile_safe(regex), ranges), None
    except (RegexError, ValueError, IndexError) as error:
        return None, str(error)


class EditorConfig:
    """The `.editorconfig` settings of the landed tree, for each path asked about: one per
    change (`of`), shared by the rules that read a key themselves and the engine."""

    _of_change: ClassVar[weakref.WeakKeyDictionary[Change, EditorConfig]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, change: Change) -> None:
        self._change = change
        self._files: dict[str, _Read | None] = {}  # each directory's, read once
        self._bytes = 0  # read of every file together, at most MOST_BYTES
        self._sections = 0  # of every file together, at most MOST_PATTERNS
        self._settings: dict[str, dict[str, str]] = {}  # each path's, read once
        self.problems: list[str] = []

    @classmethod
    def of(cls, change: Change) -> EditorConfig:
        """The change's settings, read once however many rules and steps ask."""
        config = cls._of_change.get(change)
        if config is None:
            config = cls._of_change[change] = cls(change)
        return config

    def _read(self, directory: str) -> _Read | None:
        """The `.editorconfig` of `directory` (`/`, `/a/b`) read once, or None where there is
        none or nothing more may be read (MOST_BYTES, with a problem saying so)."""
        if directory in self._files:
            return self._files[directory]
        self._files[directory] = None
        data = self._change.file_at(posixpath.join(directory.lstrip("/"), FILE_NAME))
        if data is None:
            return None
        path = posixpath.join(directory, FILE_NAME).lstrip("/")
        if self._bytes + len(data) > MOST_BYTES:
            self.problems.append(
                f"{path}: past {MOST_BYTES >> 10} KB of the tree's {FILE_NAME} files: not read"
            )
            return None
        self._bytes += len(data)
        from editorconfig.exceptions import ParsingError

        text = data.decode("utf-8", "replace")
        lines = [line for line in text.splitlines(keepends=True) if len(line) <= LONGEST_LINE]
        parser = _recording_parser()()
        try:
            # The parser reads a stream as it reads its files: the committed text.
            stream: Any = io.StringIO("".join(lines))
            parser._read(stream, posixpath.join(directory, FILE_NAME))
        except ParsingError as error:
            self.problems.append(f"{FILE_NAME}: {str(error).splitlines()[0][:120]}")
        read = parser.sections[: MOST_PATTERNS - self._sections]
        if len(read) < len(parser.sections):
            self.problems.append(
                f"{path}: past {MOST_PATTERNS:,} sections of the tree's {FILE_NAME} files: the "
                "rest not read"
            )
        self._sections += len(read)
        placed = [(_section_glob(directory, glob), pairs) for glob, pairs in read]
        self._files[directory] = _Read(placed, parser.root_file)
        return self._files[directory]

    def settings(self, path: str) -> dict[str, str]:
        """The options every `.editorconfig` from `path`'s directory up to the root (or the
        first `root = true`) gives `path`, a closer file's winning, keys and values lower-case."""
        if path not in self._settings:
            self._settings[path] = self._read_settings(path)
        return self._settings[path]

    def _read_settings(self, path: str) -> dict[str, str]:
        options: dict[str, str] = {}
        name = "/" + path
        directory = posixpath.dirname(name)
        for _ in range(_MOST_DIRECTORIES):
            read = self._read(directory)
            if read is not None:
                given: dict[str, str] = {}
                for glob, pairs in read.sections:
                    if _matches(name, glob, self.problems):
                        given.update(pairs)  # a later section's wins, as in the library
                for key, value in given.items():
                    options.setdefault(key, value.lower())
                if read.root:
                    break
            if directory == "/":
                break
            directory = posixpath.dirname(directory)
        return options


class RuleSwitches:
    """What the `.editorconfig` says of each rule that names a key (its `editorconfig`
    attribute) for a finding's file: `false` turns the rule off, `true` insists on it."""

    def __init__(self, config: EditorConfig, rules: RuleSet) -> None:
        self.config = config
        self._keys = {rule.id: rule.editorconfig for rule in rules.rules if rule.editorconfig}

    def turns_off(self, finding: Finding) -> bool:
        """Whether the project's `.editorconfig` turns the finding's rule off for its file."""
        return self._value(finding) == "false"

    def insists(self, finding: Finding) -> bool:
        """Whether the project's `.editorconfig` asks for what the finding says is missing, so
        that no practice learned from history may quiet it."""
        return self._value(finding) == "true"

    def _value(self, finding: Finding) -> str | None:
        key = self._keys.get(finding.rule)
        if key is None or finding.path is None:
            return None
        return self.config.settings(finding.path).get(key)


def declared_off(
    findings: Iterable[Finding], switches: RuleSwitches, notes: list[str]
) -> list[Finding]:
    """The findings the project's `.editorconfig` does not turn off; the others counted in a
    note, with any section that could not be used."""
    kept, off = [], 0
    for finding in findings:
        if switches.turns_off(finding):
            off += 1
        else:
            kept.append(finding)
    if off:
        notes.append(f"{off} finding(s) not reported: the project's .editorconfig turns them off")
    notes.extend(dict.fromkeys(switches.config.problems))
    return kept
