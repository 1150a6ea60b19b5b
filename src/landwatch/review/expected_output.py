"""Expected output is data: a line inside a string literal that a test compares byte for byte
(a Go raw string in a `_test.go` file, a triple-quoted string a Python test assigns or passes),
in a snapshot file, or in a file `.gitattributes` has git keep byte for byte (`-text`), keeps
its trailing whitespace on purpose; the rules that say so (their `spares_expected_output`
attribute) report nothing there, and a note counts what was spared.

The literals are found by one pass of a tokenizer over the committed file (comments, strings),
linear in its size, and only for files a finding asks about.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.change import Change
from landwatch.review.findings import Finding
from landwatch.review.globs import TEST_PATHS, matches_any
from landwatch.review.rules.base import RuleSet

# Files that are a test's recorded output as a whole: Jest's and Vitest's snapshots, insta's,
# syrupy's amber files, golden files, ApprovalTests' approved files.
SNAPSHOT_PATHS: tuple[str, ...] = (
    "__snapshots__/**",
    "*.snap",
    "*.ambr",
    "*.golden",
    "*.approved.*",
)
# A `snapshots` directory among a test path's (snapbox's `tests/snapshots/`, insta's beside its
# tests): each file in it a recorded output. Outside tests the name says nothing of the kind.
_TEST_SNAPSHOT_DIRECTORY = "snapshots"


def is_snapshot(path: str) -> bool:
    """Whether the file at `path` is a test's recorded output as a whole."""
    if matches_any(path, SNAPSHOT_PATHS):
        return True
    return _TEST_SNAPSHOT_DIRECTORY in path.split("/")[:-1] and matches_any(path, TEST_PATHS)


# Go: comments, interpreted strings and runes (one line each), raw strings (any number of
# lines). Each alternative starts with its own character and runs to its end or the file's, so
# no position is tried twice: the pass is linear.
_GO_TOKENS = lazy_compile(
    rb"//[^\n]*"
    rb"|/\*(?:[^*]|\*(?!/))*(?:\*/|\Z)"
    rb'|"(?:[^"\\\n]|\\.)*"?'
    rb"|'(?:[^'\\\n]|\\.)*'?"
    rb"|(?P<literal>`[^`]*`?)"
)
# Python: comments, then triple-quoted strings before one-line ones (a prefix such as r or b
# may come first; it changes nothing of where a string ends).
_PYTHON_TOKENS = lazy_compile(
    rb"#[^\n]*"
    rb'|(?P<literal>[rRbBuUfF]{0,2}(?:"""(?:[^"\\]|\\(?:.|\Z)|"(?!""))*(?:"""|\Z)'
    rb"|'''(?:[^'\\]|\\(?:.|\Z)|'(?!''))*(?:'''|\Z)))"
    rb'|"(?:[^"\\\n]|\\.)*"?'
    rb"|'(?:[^'\\\n]|\\.)*'?",
    re.DOTALL,
)


def _lines_ending_inside(
    content: bytes, tokens: LazyPattern[bytes], is_data: Callable[[bytes, int], bool]
) -> set[int]:
    """The numbers of the lines whose end lies inside a multi-line literal that `is_data` (given
    the content and where the literal starts) takes for data."""
    inside: set[int] = set()
    line, counted = 1, 0
    for match in tokens.finditer(content):
        start, end = match.span("literal")
        if start < 0 or not is_data(content, start):
            continue
        line += content.count(b"\n", counted, start)
        newlines = content.count(b"\n", start, end)
        inside.update(range(line, line + newlines))
        line, counted = line + newlines, end
    return inside


def _any_literal(_content: bytes, _start: int) -> bool:
    return True


def _not_a_docstring(content: bytes, start: int) -> bool:
    """A string that is an expression's value (after `=`, `(`, `,`, `return`...), not one
    standing alone on its line: a docstring is prose, whose trailing spaces are a slip."""
    line_start = content.rfind(b"\n", 0, start) + 1
    return bool(content[line_start:start].strip())


def expected_output_lines(path: str, content: bytes) -> set[int] | None:
    """The lines of a test file that end inside its expected output; None when the whole file
    is a recorded output (a snapshot); an empty set for any other file."""
    if is_snapshot(path):
        return None
    if path.endswith("_test.go"):
        return _lines_ending_inside(content, _GO_TOKENS, _any_literal)
    if path.endswith(".py") and matches_any(path, TEST_PATHS):
        return _lines_ending_inside(content, _PYTHON_TOKENS, _not_a_docstring)
    return set()


def _expected_output_in(change: Change, path: str) -> set[int] | None:
    """The lines of the landed file at `path` that are expected output, None for all of them:
    a file git keeps byte for byte (`-text`) is one whose exact bytes the project wants, as a
    test input's are (jekyll keeps its test sites so)."""
    if change.attribute(path, "text") is False:
        return None
    content = change.file_at(path)
    return set() if content is None else expected_output_lines(path, content)


def outside_expected_output(
    findings: list[Finding], change: Change, rules: RuleSet, notes: list[str]
) -> list[Finding]:
    """The findings not on a test's expected output, for the rules that spare it; the others
    counted in a note."""
    sparing = {rule.id for rule in rules.rules if rule.spares_expected_output}
    lines_of: dict[str, set[int] | None] = {}
    kept, spared = [], 0
    for finding in findings:
        path = finding.path
        if finding.rule in sparing and path is not None and finding.line is not None:
            if path not in lines_of:
                lines_of[path] = _expected_output_in(change, path)
            lines = lines_of[path]
            if lines is None or finding.line in lines:
                spared += 1
                continue
        kept.append(finding)
    if spared:
        notes.append(
            f"{spared} finding(s) not reported: lines of a test's expected output (a snapshot "
            "file, a multi-line string literal in a test, a file .gitattributes marks -text), "
            "kept byte for byte"
        )
    return kept
