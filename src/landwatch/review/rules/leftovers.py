"""Lines their author marked to go before the commit (P016): a comment that says `DO NOT
COMMIT`, `NOCOMMIT`, `DO NOT MERGE` or `REMOVE THIS LINE`, in any comment syntax.

A marker counts where it opens a comment on an added line of code or configuration: after the
comment's opener (`#`, `//`, `/*`, `<!--`, `--`, `;`, `%`, `{#`, `(*`, `REM`), perhaps after a
`TODO:` tag. The joined spellings (`nocommit`, `do-not-merge`, `DO_NOT_COMMIT`) and the capitals
are markers in any case, and the capitals also where they end a comment (`# temporary - DO NOT
MERGE`); the
spaced phrase in lower case only as the whole comment (`# do not commit`): "# Do not commit the
transaction here" is a sentence about the code.

Each line is searched once for a marker, then the few bytes before it (linear in the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import matches_any
from landwatch.review.rules.base import LineRule, Option, Practice

# A marker in any of its spellings; the spaced ones are qualified below.
_MARKER = lazy_compile(
    rb"(?<![\w-])(?:no[_-]?commit|do[\s_-]*not[\s_-]*(?:commit|merge)|remove[\s_-]*this[\s_-]*line)"
    rb"(?![\w-])",
    re.IGNORECASE,
)
# Spellings that are markers whatever follows them: joined, or in capitals.
_EMPHATIC = lazy_compile(
    rb"[\w-]*[_-][\w-]*|[A-Z\s_-]+|(?i:nocommit|donot(?:commit|merge)|removethisline)"
)
# A marker in capitals ends a comment as it opens one; "# fail on nocommit" names it.
_CAPITALS = lazy_compile(rb"[A-Z\s_-]+")
# A spaced phrase in lower case is a marker when nothing but punctuation follows it.
_ALONE = lazy_compile(rb"[\s.!:;,*/#}>)-]*")
# What follows a marker that a comment is about, not marked with: a linter's configuration.
_ABOUT = lazy_compile(
    rb"\s*(?:markers?|tags?|checks?|hooks?|rules?|comments?|keywords?|words?|strings?|lint)\b",
    re.IGNORECASE,
)
# The end of what stands before a marker that opens a comment: an opener, then perhaps a tag.
_OPENED = lazy_compile(
    rb"(?:#+|//+|/\*+|<!--|--(?=\s)|;+|%+|\{#|\{\{!-*|\(\*|(?<![\w])REM|^\s*\*+)"
    rb"\s*(?:[-:!>]+\s*)?"
    rb"(?:(?:TODO|FIXME|XXX|HACK|NOTE)(?:\([^)\n]{0,40}\))?\s*[-:!]*\s*)?\Z",
    re.IGNORECASE,
)
# How far back from a marker its comment's opener and tag are looked for.
_REACH = 64
PROSE = (
    "*.md",
    "*.markdown",
    "*.mdx",
    "*.rst",
    "*.txt",
    "*.adoc",
    "*.asciidoc",
    "*.org",
    "*.rdoc",
    "*.textile",
    "CHANGELOG*",
    "CHANGES*",
    "HISTORY*",
    "NEWS*",
)


# Where a comment opens, for `scan`: an opener outside a string.
_OPENERS = (b"#", b"//", b"/*", b"<!--", b"-- ", b"{#")
IN_CODE, IN_STRING = -1, -2


def scan(raw: bytes) -> int:
    """Where the end of `raw`, the start of a line, stands: in a comment (where it opens), in a
    string a quote opened (IN_STRING) or in code (IN_CODE). One pass, backslash escapes
    honoured: an apostrophe in a comment opens nothing."""
    quote = 0
    escaped = False
    for at, byte in enumerate(raw):
        if escaped:
            escaped = False
        elif byte == 0x5C:  # a backslash
            escaped = quote != 0
        elif quote:
            quote = 0 if byte == quote else quote
        elif byte in b"\"'`":
            quote = byte
        elif byte in b"#/<-{" and raw.startswith(_OPENERS, at):
            return at
    return IN_STRING if quote else IN_CODE


def marked(raw: bytes) -> bool:
    """Whether the line is marked to go before the commit: a marker opens a comment on it, or
    one in capitals ends it (`# temporary, DO NOT MERGE`)."""
    found = _MARKER.search(raw)
    if found is None:
        return False
    before, after = raw[: found.start()], raw[found.end() :]
    emphatic = _EMPHATIC.fullmatch(found.group()) is not None
    near = before[-_REACH:]
    opener = _OPENED.search(near)
    if opener is not None and scan(before[: len(before) - len(near) + opener.start()]) != IN_STRING:
        return not _ABOUT.match(after) and (emphatic or _ALONE.fullmatch(after) is not None)
    capitals = _CAPITALS.fullmatch(found.group()) is not None
    return capitals and _ALONE.fullmatch(after) is not None and scan(before) >= 0


def names_a_marker(raw: bytes) -> bool:
    """Whether the line holds a marker outside any comment, in a string or as a value: code or
    configuration about the markers (a linter's list of them, a test of this rule)."""
    found = _MARKER.search(raw)
    return found is not None and scan(raw[: found.start()]) < 0


class LeftoverMarker(LineRule):
    """An added line its author marked to go before the commit: a comment that opens with `DO
    NOT COMMIT`, `NOCOMMIT`, `DO NOT MERGE` or `REMOVE THIS LINE` (any comment syntax, any
    case; spaces, `_` or `-` between the words), or that ends with one in capitals (`#
    temporary - DO NOT MERGE`). A print so marked is a debug statement too.

    Lets through: prose files (Markdown, reStructuredText, text, changelogs: a workflow that
    documents the markers), a comment about the markers (`# nocommit markers fail the hook`), a
    lower-case sentence that starts with the words (`# Do not commit the transaction here`), and
    a file whose added lines name a marker inside a string (a linter's list of markers, a test of
    this rule) or as a value (`entry: NOCOMMIT`). Where the file held a marked line before, the
    project keeps it: told at info.
    """

    id = "P016"
    name = "leftover-marker"
    example = "print(payload)  # DO NOT COMMIT\n// nocommit: local endpoint"
    severity = Severity.WARNING
    practice = Practice.KEPT_BEFORE
    spares_expected_output = True
    options = (Option("prose", PROSE, "files whose text is prose, where the words are no marker"),)

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        if matches_any(file.path, self.option("prose")):
            return
        flagged: list[Line] = []
        for line in lines:
            if marked(line.raw):
                flagged.append(line)
            elif names_a_marker(line.raw):
                return  # the file is about the markers
        for line in flagged:
            yield self.finding("marked not to be committed", path=file.path, line=line)

    def held_in(self, path: str, content: bytes) -> bool:
        return any(marked(raw) for raw in content.splitlines())
