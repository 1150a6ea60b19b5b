"""Tokens of formats too plain to tell alone, told where their provider is named: Mailgun's
private API keys and Dropbox's long-lived tokens, on a line or in a file that names them.

gitleaks' default configuration (MIT) and the maintained rule set landwatch ships find both only
after the provider's name on the line (`mailgun… = …`, `dropbox… = …`): 32 hex digits and two
groups of 8 are as often some identifier's, and a 64-character run with ten `A`s inside is as
often a line of base64. A file its path names for the provider (`mailgun.env`,
`config/dropbox/token.txt`) names it for every line it holds, the bare key too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.secrets.scanning import ascii_lower, lines_with, masked, placeholder_token

if TYPE_CHECKING:
    from landwatch.review.diffs import Line


class _Named(NamedTuple):
    label: str
    provider: str  # lower case, as a line or a path names it
    # A literal every token holds, where it has one: lines without it are not matched.
    anchor: str
    pattern: LazyPattern[str]  # group 1 is the token


_NAMED = (
    # gitleaks' `mailgun-signing-key` and the rule set's: `<32 hex>-<8 hex>-<8 hex>`, the shape
    # of Mailgun's private API keys since 2019 (its older `key-<32 hex>` the rule set finds).
    _Named(
        "Mailgun private API key",
        "mailgun",
        "-",
        lazy_compile(
            r"(?<![\w-])([0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}|[0-9A-F]{32}-[0-9A-F]{8}-[0-9A-F]{8})"
            r"(?![\w-])"
        ),
    ),
    # gitleaks' `dropbox-long-lived-api-token`: 11 characters, ten `A`s, then 43 more.
    _Named(
        "Dropbox long-lived access token",
        "dropbox",
        "AAAAAAAAAA",
        lazy_compile(r"(?<![\w=-])([A-Za-z0-9]{11}AAAAAAAAAA[\w=-]{43})(?![\w=-])"),
    ),
)
LABELS = tuple(named.label for named in _NAMED)


def _shapes(named: _Named, text: str) -> list[tuple[str, int, int]]:
    """(label, start, end) of each token of `named`'s shape on a line, stand-ins let through."""
    if named.anchor not in text:
        return []
    found = []
    for match in named.pattern.finditer(text):
        value = match[1]
        if not placeholder_token(value) and not masked(text, match.end(1)):
            found.append((named.label, match.start(1), match.end(1)))
    return found


def named_tokens(path: str | None, lines: Sequence[Line]) -> dict[int, list[tuple[str, int, int]]]:
    """(label, start, end) of each token of these formats on `lines` of `path` (None: a commit
    message), by line index: where the line or the path names the provider."""
    lowered_path = ascii_lower(path or "")
    named_file = [named for named in _NAMED if named.provider in lowered_path]
    naming = lines_with(lines, folded=tuple(named.provider.encode() for named in _NAMED))
    candidates = range(len(lines)) if named_file else sorted(naming)
    found: dict[int, list[tuple[str, int, int]]] = {}
    for index in candidates:
        names = naming.get(index, set())
        for named in _NAMED:
            if named in named_file or named.provider.encode() in names:
                found.setdefault(index, []).extend(_shapes(named, lines[index].text))
    return {index: sorted(on, key=lambda span: span[1]) for index, on in found.items() if on}


def shaped_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every token of these formats' shapes on a line, named or not: for
    redacting, where too much hidden is harmless."""
    return [(start, end) for named in _NAMED for _, start, end in _shapes(named, text)]
