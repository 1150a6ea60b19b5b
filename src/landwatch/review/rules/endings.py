"""How a file ends: without a final newline (P002), or with blank lines added after its last
line (P013, what `git diff --check` calls a new blank line at EOF).

Both report only what the change brought: a file that already ended that way before it is no
new problem, whichever of its lines the change touched.
"""

from __future__ import annotations

from collections.abc import Iterator

from landwatch.review.binary import looks_binary
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.rules.base import FileRule, LineRule, Practice


def _trailing_blank_lines(content: bytes) -> int:
    """How many lines at the end of `content` hold nothing but whitespace."""
    lines = content.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline ends the last line; it starts none
    count = 0
    for line in reversed(lines):
        if line.strip():
            break
        count += 1
    return count


class MissingFinalNewline(LineRule):
    """A text file whose last line has no line end (symlinks have none by nature), when the
    change made it so: a file that lacked its final newline before is not reported again when
    its last line changes."""

    id = "P002"
    precommit_hooks = ("end-of-file-fixer",)
    name = "missing-final-newline"
    example = "the last line of config.ini ends without a newline"
    severity = Severity.WARNING
    practice = Practice.FIXTURE_BYTES
    editorconfig = "insert_final_newline"
    spares_expected_output = True  # a snapshot file ends as the output it recorded

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        if not (file.lacks_final_newline and lines and not file.is_symlink):
            return
        if lines[-1].end != b"":
            return
        old = file.old_content()
        if old and not old.endswith(b"\n"):
            return  # it ended so before the change: the change did not cause it
        yield self.finding("no newline at the end of the file", path=file.path, line=lines[-1])


class BlankLinesAtEnd(FileRule):
    """Blank lines the change left after a text file's last line, by adding them or by deleting
    what followed them (`git diff --check`'s "new blank line at EOF"). A file that already ended
    with as many blank lines is not reported, nor a lone last line of spaces without a newline
    (P001 and P002 tell it); binary files and symlinks are not read."""

    id = "P013"
    precommit_hooks = ("end-of-file-fixer",)
    name = "blank-lines-at-end"
    example = "three empty lines added after the last line of setup.py"
    severity = Severity.WARNING
    spares_expected_output = True  # a snapshot file ends as the output it recorded

    def check_file(self, file: FileChange, content: bytes) -> Iterator[Finding]:
        if file.is_symlink or not content.endswith((b"\n", b" ", b"\t")) or looks_binary(content):
            return
        blank = _trailing_blank_lines(content)
        if not blank or (blank == 1 and not content.endswith(b"\n")):
            # A lone last line of spaces with no newline is P001's and P002's to tell: a third
            # finding on the same byte says nothing more.
            return
        old = file.old_content()
        if old is not None and _trailing_blank_lines(old) >= blank:
            return  # as many blank lines ended it before: nothing new
        total = content.count(b"\n") + (not content.endswith(b"\n"))
        first = total - blank + 1
        added = {line.number for line in file.added_lines}
        if old is None and not added.intersection(range(first, total + 1)):
            # Without the file before the change, only blank lines it added are known to be its;
            # with it, fewer blank lines ended it then, so the change did it, even by deleting
            # the lines after a blank one (`git diff --check` says the same).
            return
        count = "a blank line" if blank == 1 else f"{blank} blank lines"
        yield self.finding(
            f"{count} at the end of the file", path=file.path, number=first, content="blank-end"
        )
