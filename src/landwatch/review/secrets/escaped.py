"""Tokens written percent-escaped in a URL or a setting (`%3D` for `=`, `%2B` for `+`, `%2F` for
`/`), read unescaped, as gitleaks' decoder reads them (detect/codec/percent.go, MIT).

Only these three are unescaped: they are the characters base64 adds to a token's run, and the
ones a URL must escape. A token counts only where an escape is inside its run: one that stands
whole beside an escaped separator (`secret%3D…`) is what the other detectors read already.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.provider_rules import (
    by_line,
    described,
    provider_spans,
    provider_tokens,
    text_spans,
)
from landwatch.review.secrets.scanning import lines_with, masked, placeholder_token
from landwatch.review.secrets.token_formats import tokens

if TYPE_CHECKING:
    from landwatch.review.diffs import Line

_ESCAPE = lazy_compile(r"%(?:3[dD]|2[bBfF])")
_UNESCAPED = {"3d": "=", "2b": "+", "2f": "/"}
NEEDLES = (b"%3", b"%2")
_TAKEN = b"\x01"


def _plain(escape: re.Match[str]) -> str:
    """The character one escape stands for."""
    return _UNESCAPED[escape[0][1:].lower()]


def unescaped_value(value: str) -> str:
    """`value` with its escapes of `=`, `+` and `/` unescaped."""
    if "%" not in value:
        return value
    return _ESCAPE.sub(_plain, value)


def unescaped(text: str) -> tuple[str, list[int]] | None:
    """The line with its escapes unescaped, and where each of its characters (and its end) was
    in `text`; None when it holds none."""
    if "%" not in text:
        return None
    parts: list[str] = []
    places: list[int] = []
    at = 0
    for escape in _ESCAPE.finditer(text):
        parts.append(text[at : escape.start()])
        places.extend(range(at, escape.start()))
        parts.append(_plain(escape))
        places.append(escape.start())
        at = escape.end()
    if not at:
        return None
    parts.append(text[at:])
    places.extend(range(at, len(text) + 1))
    return "".join(parts), places


def _inside(places: list[int], start: int, end: int) -> bool:
    """Whether an escape was unescaped inside [start, end) of the unescaped line."""
    return places[end] - places[start] > end - start


def escaped_tokens(
    lines: Sequence[Line], found: dict[int, list[tuple[str, int, int]]]
) -> tuple[dict[int, list[tuple[str, int, int]]], set[tuple[int, int]]]:
    """(label, start, end) in the line as written of each token found once `lines` are unescaped
    (landwatch's formats and the rule set's), by line index, none overlapping what `found` holds;
    and the (line, start) of those the rule set finds only likely."""
    escaped = []
    for index in sorted(lines_with(lines, NEEDLES)):
        read = unescaped(lines[index].text)
        if read is not None:
            escaped.append((index, *read))
    if not escaped:
        return {}, set()
    raws = [text.encode("utf-8", "surrogatepass") for _, text, _ in escaped]
    provided = by_line(provider_tokens(raws))
    more: dict[int, list[tuple[str, int, int]]] = {}
    likely: set[tuple[int, int]] = set()
    for at, (index, text, places) in enumerate(escaped):
        on_line = provided.get(at, [])
        theirs = zip(on_line, text_spans(raws[at], on_line), strict=True)
        # Each character of the line as written that a token found already holds, so that a
        # token is checked against them in its own length, not against every one of them.
        taken = bytearray(len(lines[index].text) + 1)
        for _, start, end in found.get(index, []):
            taken[start:end] = _TAKEN * (end - start)
        for label, start, end, sure in [
            *((label, start, end, True) for label, start, end in tokens(text)),
            *((described(token), start, end, token.confident) for token, (start, end) in theirs),
        ]:
            value = text[start:end]
            if not _inside(places, start, end) or placeholder_token(value) or masked(text, end):
                continue
            written_start, written_end = places[start], places[end]
            if taken.find(_TAKEN, written_start, written_end) >= 0:
                continue
            taken[written_start:written_end] = _TAKEN * (written_end - written_start)
            more.setdefault(index, []).append((label, written_start, written_end))
            if not sure:
                likely.add((index, written_start))
    return more, likely


def escaped_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) in `text` of every token found once it is unescaped with an escape inside
    its run (landwatch's formats and the rule set's), for redacting."""
    read = unescaped(text)
    if read is None:
        return []
    plain, places = read
    found = [(start, end) for _, start, end in tokens(plain)]
    found.extend(provider_spans(plain))
    return [(places[start], places[end]) for start, end in found if _inside(places, start, end)]
