"""What a project declared of how its files are stored: their line ends (P014), from the landed
tree's `.gitattributes` (`eol`, `text`: git keeps such files with LF) or else its
`.editorconfig` (`end_of_line`), and their character set (P015, `.editorconfig`'s `charset`).

Both speak only where the project declared something, and report only what the change brought:
added lines, and a file that was not already so before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.documents import read_text
from landwatch.review.editor_config import FILE_NAME as EDITORCONFIG
from landwatch.review.editor_config import EditorConfig
from landwatch.review.findings import DECLARED, Basis, Finding, Severity
from landwatch.review.globs import TEST_PATHS, matches_any
from landwatch.review.rules.base import LineRule

ATTRIBUTES = ".gitattributes"
_ENDS = {"lf": b"\n", "crlf": b"\r\n"}
_NAMES = {b"\n": "LF", b"\r\n": "CRLF"}
UTF8_BOM = b"\xef\xbb\xbf"


class DeclaredEnd(NamedTuple):
    """The line end a file's committed content should have, and who said so."""

    end: bytes  # b"\n" or b"\r\n"
    source: str  # .gitattributes or .editorconfig
    why: str  # what was declared, for the message


def declared_line_end(file: FileChange) -> DeclaredEnd | None:
    """The line end the project declared for `file` as git stores it, or None. A file git
    treats as text (`text`, `text=auto`, `eol=...`) is stored with LF whatever its checkout
    has; one it stores as it is (`-text`, or no attribute) has the `.editorconfig`'s."""
    text, eol = file.change.attribute(file.path, "text"), file.change.attribute(file.path, "eol")
    if text is False:
        pass  # stored byte for byte: the checkout's line ends are the repository's
    elif text is True or text == "auto" or eol in _ENDS:
        said = f"eol={eol}" if isinstance(eol, str) else ("text" if text is True else "text=auto")
        return DeclaredEnd(b"\n", ATTRIBUTES, f"{said} (git stores LF)")
    declared = EditorConfig.of(file.change).settings(file.path).get("end_of_line")
    if declared in _ENDS:
        return DeclaredEnd(_ENDS[declared], EDITORCONFIG, f"end_of_line = {declared}")
    return None


class DeclaredLineEnding(LineRule):
    """Added lines whose line end is not the one the project declared for the file: LF where
    its `.gitattributes` has git normalise it (`text`, `text=auto`, `eol`), else the
    `.editorconfig`'s `end_of_line` (`lf` or `crlf`; `crlf` only of a file stored with CRLF
    before, since core.autocrlf stores LF for a CRLF checkout). A file whose old content already
    had such line ends is not reported again, nor a new test input written with the other line
    end throughout (a multipart body); a file declaring nothing is left to P003."""

    id = "P014"
    name = "declared-line-ending"
    example = "CRLF line ends added to a file whose .editorconfig says end_of_line = lf"
    severity = Severity.WARNING

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        ended = [line for line in lines if line.end]
        if not ended:
            return
        if all(line.end == b"\n" for line in ended) and (
            EditorConfig.of(file.change).settings(file.path).get("end_of_line") != "crlf"
        ):
            return  # LF only, and CRLF declared nowhere: the attributes need not be asked
        declared = declared_line_end(file)
        if declared is None:
            return
        other = b"\r\n" if declared.end == b"\n" else b"\n"
        wrong = [line for line in ended if line.end == other]
        if not wrong:
            return
        old = file.old_content()
        if old is not None and _NAMES[other] in line_ends(old):
            return  # the file had such line ends before: not this change's doing
        if old is None and len(wrong) == len(ended) and matches_any(file.path, TEST_PATHS):
            # A new test input written with those line ends throughout (a multipart body, an
            # HTTP message, a Windows file a parser must read) has them on purpose.
            return
        if declared.end == b"\r\n" and old is None:
            # With core.autocrlf, git stores LF whatever the checkout has: a new file's LF
            # lines tell nothing; LF brought into a file stored with CRLF does.
            return
        count = "an added line ends" if len(wrong) == 1 else f"{len(wrong)} added lines end"
        finding = self.finding(
            f"{count} with {_NAMES[other]} where {declared.source} declares {declared.why}",
            path=file.path,
            line=wrong[0],
            content=f"{_NAMES[other]}:{declared.source}",
        )
        finding.basis = Basis(DECLARED, declared.source)
        yield finding


def line_ends(data: bytes) -> set[str]:
    """The kinds of line end `data` holds, read from its raw bytes: LF, CRLF, CR."""
    crlf = data.count(b"\r\n")
    found = set()
    if crlf:
        found.add("CRLF")
    if data.count(b"\n") > crlf:
        found.add("LF")
    if data.count(b"\r") > crlf:
        found.add("CR")
    return found


class DeclaredCharset(LineRule):
    """Added lines that break the `.editorconfig`'s `charset` for the file: bytes that are not
    UTF-8 where it says `utf-8` or `utf-8-bom`, a byte order mark put at the start where it
    says `utf-8`, or taken away where it says `utf-8-bom`. Other charsets (`latin1`, UTF-16)
    are not checked; a file that broke it before the change is not reported again."""

    id = "P015"
    name = "declared-charset"
    example = "Latin-1 bytes added to a file whose .editorconfig says charset = utf-8"
    severity = Severity.WARNING

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        if not lines:
            return
        charset = EditorConfig.of(file.change).settings(file.path).get("charset")
        if charset not in ("utf-8", "utf-8-bom"):
            return
        problem = _charset_broken(charset, lines, file.old_content())
        if problem is None:
            return
        line, what = problem
        finding = self.finding(
            f"{what} where {EDITORCONFIG} declares charset = {charset}",
            path=file.path,
            line=line,
            content=f"{what}:{charset}",
        )
        finding.basis = Basis(DECLARED, EDITORCONFIG)
        yield finding


def _charset_broken(charset: str, lines: list[Line], old: bytes | None) -> tuple[Line, str] | None:
    """The first added line that breaks a UTF-8 `charset` the file did not break before, and
    how: its byte order mark put there or taken away, or bytes that are not UTF-8."""
    if lines[0].number == 1:
        first, had_bom = lines[0], old is not None and old.startswith(UTF8_BOM)
        has_bom = first.raw.startswith(UTF8_BOM)
        if charset == "utf-8" and has_bom and not had_bom:
            return first, "a byte order mark at the start"
        if charset == "utf-8-bom" and not has_bom and (old is None or had_bom):
            return first, "no byte order mark at the start"
    broken = next((line for line in lines if read_text(line.raw) is None), None)
    if broken is not None and (old is None or read_text(old) is not None):
        return broken, "bytes that are not UTF-8"
    return None


RULES = [DeclaredLineEnding, DeclaredCharset]
