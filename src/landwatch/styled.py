"""Styled text for a terminal: lines of (text, style) spans, coloured only where the stream is
a terminal that takes colours, wrapped at words to its width, and tables of right-aligned counts.

Without rich: importing it and building its console cost `show` and `status` ~60 ms a run of
the ~16 ms Python takes to start (issue 40). Every text given here is already `text.safe`.
"""

from __future__ import annotations

import os
import sys

from landwatch.text import cells, terminal_width

TYPE_CHECKING = False  # typing is not imported: the prompt pays for every import
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

# A span is (text, style): the style is words of SGR's, "bold red"; "" is plain.
Span = tuple[str, str]
SGR = {
    "bold": "1",
    "dim": "2",
    "italic": "3",
    "underline": "4",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}
GAP = "  "  # between a table's columns


def paint(spans: Sequence[Span], *, color: bool) -> str:
    """The spans as one text; with `color`, each in its style's terminal colours."""
    if not color:
        return "".join(text for text, _ in spans)
    out = []
    for text, style in spans:
        codes = ";".join(SGR[word] for word in style.split() if word in SGR)
        out.append(f"\x1b[{codes}m{text}\x1b[0m" if codes and text else text)
    return "".join(out)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or a fake stream
        return False


class Out:
    """Where styled lines go. On a terminal: lines wrapped at words to its width, coloured
    unless NO_COLOR is set or TERM says it takes none (as rich decides). Into a file or a
    pipe: each line whole, for grep and for a reader that wraps it itself; FORCE_COLOR makes
    any stream a terminal."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        width: int | None = None,
        terminal: bool | None = None,
        color: bool | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stdout
        forced = bool(os.environ.get("FORCE_COLOR"))
        self.terminal = (forced or _is_terminal(self.stream)) if terminal is None else terminal
        plain = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") in ("dumb", "unknown")
        self.color = (self.terminal and not plain) if color is None else color
        self.width = width if width is not None else terminal_width(_fileno(self.stream))

    def print(self, *spans: Span) -> None:
        """One line as given, never wrapped (a line fitted to the width already, a table's)."""
        self.stream.write(paint(spans, color=self.color) + "\n")

    def wrapped(
        self, lead: Sequence[Span], body: Sequence[Span], then: Sequence[Span] | None = None
    ) -> None:
        """`lead` then `body`, on a terminal wrapped at words to the width, every later line
        led by `then` (by default, spaces under the body's start); a newline in `body` starts a
        line of its own."""
        if not self.terminal:
            self.print(*lead, *body)
            return
        later = [(" " * _cells_of(lead), "")] if then is None else list(then)
        room = max(self.width - max(_cells_of(lead), _cells_of(later)), 20)
        for at, line in enumerate(wrap(body, room)):
            self.print(*(lead if at == 0 else later), *line)


def _fileno(stream: TextIO) -> int:
    """The descriptor `stream` writes to; -1, which no terminal is, for a stream without one."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # a StringIO, a closed stream
        return -1


def _cells_of(spans: Sequence[Span]) -> int:
    return sum(cells(text) for text, _ in spans)


def wrap(spans: Sequence[Span], width: int) -> list[list[Span]]:
    """The spans as lines of at most `width` columns, broken at spaces (the space a line is
    broken at dropped), a word longer than a line broken where the line ends; each newline
    starts a line. Linear in the text."""
    lines: list[list[Span]] = [[]]
    used, broken = 0, False  # broken: this line starts where a longer one was broken
    for word, style in _words(spans):
        size = cells(word)
        if word == "\n":
            lines.append([])
            used, broken = 0, False
        elif word.isspace():
            if used + size <= width and not (broken and not used):
                lines[-1].append((word, style))  # an indent the text starts with is kept
                used += size
            elif used:  # the break falls here: the space goes
                lines.append([])
                used, broken = 0, True
        else:
            if used and used + size > width:
                _drop_trailing_space(lines[-1])
                lines.append([])
                used, broken = 0, True
            while size > width - used:  # longer than a whole line: broken where it ends
                head, word = _split_at(word, width - used)
                lines[-1].append((head, style))
                lines.append([])
                used, size, broken = 0, cells(word), True
            if word:
                lines[-1].append((word, style))
                used += size
    return [_merged(line) for line in lines]


def _merged(line: list[Span]) -> list[Span]:
    """`line` with each run of spans of one style joined into one span."""
    merged: list[Span] = []
    start = 0
    for at in range(1, len(line) + 1):
        if at == len(line) or line[at][1] != line[start][1]:
            merged.append(("".join(text for text, _ in line[start:at]), line[start][1]))
            start = at
    return merged


def _words(spans: Sequence[Span]) -> list[Span]:
    """The spans cut into words, runs of spaces and newlines, each keeping its style."""
    words: list[Span] = []
    for text, style in spans:
        start = 0
        for at in range(1, len(text) + 1):
            if at == len(text) or _kind(text[at]) != _kind(text[at - 1]) or text[at] == "\n":
                words.append((text[start:at], style))
                start = at
    return words


def _kind(char: str) -> int:
    return 2 if char == "\n" else 1 if char == " " else 0


def _split_at(word: str, room: int) -> tuple[str, str]:
    """`word` cut after at most `room` columns (at least one character, so a line advances)."""
    used = 0
    for at, char in enumerate(word):
        used += cells(char)
        if used > room:
            return word[: max(at, 1)], word[max(at, 1) :]
    return word, ""


def _drop_trailing_space(line: list[Span]) -> None:
    while line and line[-1][0].isspace():
        line.pop()


def table(
    out: Out,
    headers: Sequence[str],
    rows: Sequence[Sequence[Sequence[Span]]],
    *,
    wrapped: int = 0,
    right: Sequence[int] = (),
    room: int | None = None,
) -> None:
    """A table without borders, columns two spaces apart under bold headers, each as wide as
    its widest cell; the `wrapped` column wrapped at words within `room` columns (by default
    what the others leave of the width), the `right` ones right-aligned."""
    widths = [
        max([cells(header), *(_cells_of(row[column]) for row in rows)])
        for column, header in enumerate(headers)
    ]
    others = sum(widths) - widths[wrapped] + len(GAP) * (len(headers) - 1)
    fitted = room if room is not None else out.width - others
    widths[wrapped] = min(widths[wrapped], max(fitted, cells(headers[wrapped]), 10))
    for row in [[[(header, "bold")] for header in headers], *rows]:
        lines = [
            wrap(cell, widths[wrapped]) if at == wrapped else [list(cell)]
            for at, cell in enumerate(row)
        ]
        for number in range(max(len(cell) for cell in lines)):
            line: list[Span] = []
            for at, cell in enumerate(lines):
                part = cell[number] if number < len(cell) else []
                pad = (" " * (widths[at] - _cells_of(part)), "")
                line += [
                    *([(GAP, "")] if at else []),
                    *((pad, *part) if at in right else (*part, pad)),
                ]
            _drop_trailing_space(line)
            out.print(*line)
