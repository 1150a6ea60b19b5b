"""Debuggers left in code (P007), per language by file name: Python's `breakpoint()` and pdb's
kin, JavaScript's and TypeScript's `debugger;`, Ruby's `binding.pry` and `byebug`, PHP's
`xdebug_break()`.

A line's strings are blanked and its comment cut off before it is searched (one pass, linear in
the line), so a debugger named in a comment or a string is not one left in the code.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import NamedTuple

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import matches_any
from landwatch.review.rules.base import LineRule
from landwatch.review.rules.leftovers import marked


class _Language(NamedTuple):
    """How one language writes a debugger, and what on a line is a string or a comment."""

    globs: tuple[str, ...]
    # Some byte string of every debugger statement: a line without one is not scanned.
    hints: tuple[bytes, ...]
    # What opens a string (a quote) or a comment on the rest of the line.
    opens: LazyPattern[bytes]
    # The debugger, searched in the line with its strings blanked and its comment cut off.
    debugger: LazyPattern[bytes]
    # A print to the console, a debug statement where its line is marked a leftover (P016).
    prints: LazyPattern[bytes]
    # A line of a block comment's middle starts with `*` (JSDoc, PHPDoc).
    star_comments: bool = False


_PYTHON = _Language(
    globs=("*.py", "*.pyi"),
    hints=(b"breakpoint", b"import", b"from", b"db."),
    opens=lazy_compile(rb"[#'\"]"),
    debugger=lazy_compile(
        rb"(?:^|;)\s*(?:breakpoint\(\s*\)"
        rb"|(?:import|from)\s+(?:pdb|ipdb|pudb|pdbpp|q|rdb|wdb|pydevd|pydevd_pycharm|debugpy"
        rb"|celery\.contrib\.rdb)\b"
        rb"|(?:pdb|ipdb|pudb)\.(?:set_trace|post_mortem)\()"
    ),
    prints=lazy_compile(rb"(?<![\w.])(?:print|pprint|pp|ic)\s*\("),
)
_JAVASCRIPT = _Language(
    globs=("*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx", "*.mts", "*.cts"),
    hints=(b"debugger",),
    opens=lazy_compile(rb"//|/\*|['\"`]"),
    # The statement, not a property (`options.debugger`) or a key (`{debugger: true}`).
    debugger=lazy_compile(rb"(?<![\w$.])debugger(?![\w$])\s*(?:;|\}|$)"),
    prints=lazy_compile(rb"(?<![\w$.])console\.(?:log|debug|info|warn|error|dir|trace|table)\s*\("),
    star_comments=True,
)
_RUBY = _Language(
    globs=("*.rb", "*.rake", "*.ru", "Rakefile"),
    hints=(b"binding.", b"byebug", b"debugger"),
    opens=lazy_compile(rb"[#'\"]"),
    # pry, irb and the debug gem's `binding.break`; byebug and `debugger` called, not assigned.
    debugger=lazy_compile(
        rb"(?<![\w.])binding\.(?:pry|remote_pry|pry_remote|irb|break|b)(?![\w?!])"
        rb"|(?<![\w.:@$])(?:byebug|remote_byebug|debugger)(?![\w?!:])(?!\s*=(?![=~>]))"
    ),
    prints=lazy_compile(rb"(?<![\w.:@$])(?:puts|p|pp|print|ap)(?:\s*\(|\s+(?=\S))(?!\s*=)"),
)
_PHP = _Language(
    globs=("*.php", "*.phtml"),
    hints=(b"xdebug_break",),
    opens=lazy_compile(rb"//|/\*|[#'\"]"),
    # Xdebug's function called, not a method of that name or its definition.
    debugger=lazy_compile(rb"(?<![\w$>:])(?<!function )xdebug_break\s*\("),
    prints=lazy_compile(rb"(?<![\w$>:])(?<!function )(?:var_dump|print_r|dump|dd|error_log)\s*\("),
    star_comments=True,
)
LANGUAGES = (_PYTHON, _JAVASCRIPT, _RUBY, _PHP)


def code_of(raw: bytes, opens: LazyPattern[bytes]) -> bytes:
    """The line with each string blanked to its quotes and its comment cut off; a string or a
    block comment still open at the end of the line takes the rest of it."""
    code = bytearray()
    at = 0
    while (found := opens.search(raw, at)) is not None:
        code += raw[at : found.start()]
        token = found.group()
        if token == b"/*":
            end = raw.find(b"*/", found.end())
            if end < 0:
                return bytes(code)
            code += b" "
            at = end + 2
        elif token[:1] in b"'\"`":
            end = _string_end(raw, found.end(), token)
            if end < 0:
                return bytes(code)
            code += token + token
            at = end
        else:  # a comment to the end of the line
            return bytes(code)
    return bytes(code + raw[at:])


def _string_end(raw: bytes, start: int, quote: bytes) -> int:
    """Where the string opened before `start` ends (after its closing quote); -1 if not here.
    Each search starts past the last one, so a string of many escapes costs its length once."""
    close = raw.find(quote, start)
    if close < 0:
        return -1
    escape = raw.find(b"\\", start, close)
    while escape >= 0:
        if escape + 1 == close:  # an escaped quote: the string goes on past it
            close = raw.find(quote, close + 1)
            if close < 0:
                return -1
        escape = raw.find(b"\\", escape + 2, close)
    return close + 1


class DebugStatement(LineRule):
    """A debugger left in the code: Python's `breakpoint()` or pdb, ipdb, pudb and their kin
    imported; `debugger;` in JavaScript or TypeScript; `binding.pry`, `binding.irb`,
    `binding.break`, `byebug` or `debugger` in Ruby; `xdebug_break()` in PHP.

    Each language is known by its files' names (`*.py`, `*.js`, `*.ts`, `*.rb`, `*.php` and
    their kin). A debugger named in a comment or a string is not reported, nor a property or a
    key called `debugger`. A print to the console (`print()`, `console.log()`, `puts`,
    `var_dump()` and their kin) is one where its line is marked not to be committed (a `# DO NOT
    COMMIT` comment, P016): told by both. pre-commit's `debug-statements` hook checks only
    Python: where a project's pre-commit configuration leaves a file out of it, only Python files
    go unchecked.
    """

    id = "P007"
    precommit_hooks = ("debug-statements",)
    precommit_files = MappingProxyType({"debug-statements": _PYTHON.globs})
    name = "debug-statement"
    example = "import pdb; pdb.set_trace()\ndebugger;  (in app.js)\nbinding.pry  (in app.rb)"
    severity = Severity.WARNING
    applies_to = tuple(glob for language in LANGUAGES for glob in language.globs)

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        for line in debugger_lines(file.path, lines):
            yield self.finding("debug statement", path=file.path, line=line)
        for line in marked_prints(file.path, lines):
            yield self.finding("debug print marked not to be committed", path=file.path, line=line)


def language_of(path: str) -> _Language | None:
    """The language of the file at `path`, by its name; None for one P007 does not read."""
    return next((each for each in LANGUAGES if matches_any(path, each.globs)), None)


def debugger_lines(path: str, lines: list[Line]) -> Iterator[Line]:
    """The lines of the file at `path` that leave a debugger in its language's code."""
    language = language_of(path)
    if language is None:
        return
    for line in lines:
        raw = line.raw
        if not any(hint in raw for hint in language.hints):
            continue
        if language.star_comments and raw.lstrip().startswith(b"*"):
            continue
        if language.debugger.search(code_of(raw, language.opens)):
            yield line


def marked_prints(path: str, lines: list[Line]) -> Iterator[Line]:
    """The lines of the file at `path` that print to the console and that their author marked
    not to be committed (a leftover marker opens their comment): a debug print, said so."""
    language = language_of(path)
    if language is None:
        return
    for line in lines:
        if marked(line.raw) and language.prints.search(code_of(line.raw, language.opens)):
            yield line
