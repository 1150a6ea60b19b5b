"""JSON with comments read as JSON: comments outside strings blanked, and trailing commas where
the file's tool takes them, in one pass that keeps every line where it was.

The pass is a scan of a few states (between values, in a string, in a comment) that jumps from
one byte that matters to the next: linear in the input, no regular expression that backtracks,
so no file, however made, costs more than its length. It reads bytes: every byte it looks for is
ASCII, which UTF-8 never uses inside a longer character.
"""

from __future__ import annotations

from typing import NamedTuple

from landwatch.lazy_re import lazy_compile

# The bytes that matter between values: a string's start, a comment's, a comma, a closing.
_BETWEEN = lazy_compile(rb'["/,\]}]')
# The bytes that matter in a string: its end, an escape, and a line end (JSON strings hold none,
# so a quote left open ends at its line and a comment on the next line is still one).
_IN_STRING = lazy_compile(rb'["\\\n]')
# Everything but a line end, as a space: a blanked comment keeps the lines of the file.
_BLANK = bytes(10 if byte == 10 else 32 for byte in range(256))
_SPACE = b" \t\r\n"


class Stripped(NamedTuple):
    """What one pass over JSON with comments found: the text as JSON (comments, and trailing
    commas when asked, blanked), whether a comment stood outside strings, and the line of a
    `/*` never closed (None when every one is); past that line nothing is blanked."""

    text: bytes
    comments: bool
    unclosed: int | None


def strip(text: bytes, *, trailing_commas: bool) -> Stripped:
    """`text` with its comments outside strings blanked to spaces, line ends kept, and with
    `trailing_commas` each comma followed by nothing but space and comments before a `]`/`}`."""
    out = bytearray(text)
    at, comma, comments = 0, -1, False  # comma: one not yet followed by a value
    while (found := _BETWEEN.search(text, at)) is not None:
        start = found.start()
        if comma >= 0 and text[at:start].strip(_SPACE):
            comma = -1  # a value came after it
        byte = text[start]
        if byte == 0x22:  # "
            at, comma = _string_end(text, start + 1), -1
        elif text.startswith(b"//", start):
            end = text.find(b"\n", start)
            at = len(text) if end < 0 else end
            out[start:at] = text[start:at].translate(_BLANK)
            comments = True
        elif text.startswith(b"/*", start):
            end = text.find(b"*/", start + 2)
            if end < 0:
                return Stripped(bytes(out), True, text.count(b"\n", 0, start) + 1)
            at = end + 2
            out[start:at] = text[start:at].translate(_BLANK)
            comments = True
        elif byte == 0x2C:  # ,
            at, comma = start + 1, start
        elif byte in b"]}":
            if comma >= 0 and trailing_commas:
                out[comma] = 0x20
            at, comma = start + 1, -1
        else:  # a lone slash: no comment, and JSON's own error
            at, comma = start + 1, -1
    return Stripped(bytes(out), comments, None)


def _string_end(text: bytes, at: int) -> int:
    """Where the string whose body starts at `at` ends: past its closing quote, at the end of
    its line when it has none there, or at the end of the text."""
    while (found := _IN_STRING.search(text, at)) is not None:
        if text[found.start()] == 0x5C:  # a backslash: the next byte is escaped
            at = found.start() + 2
            continue
        return found.end() if text[found.start()] == 0x22 else found.start()
    return len(text)


def without_comments(text: bytes) -> bytes:
    """JSON with comments as JSON, for reading what it holds: comments and trailing commas
    blanked, so whatever a tool that takes either reads is read here too."""
    return strip(text, trailing_commas=True).text
