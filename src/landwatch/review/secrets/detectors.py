"""Every detector at once: whether a line may hold a secret at all (their anchors, in a few
substring tests before any pattern runs), and where on a line any detector finds one.
"""

from __future__ import annotations

import functools
from collections import OrderedDict

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.assignments import SECRET_NAME_NEEDLES, value_spans
from landwatch.review.secrets.credentials import CREDENTIAL_NEEDLES, credentials
from landwatch.review.secrets.escaped import escaped_spans
from landwatch.review.secrets.named_formats import shaped_spans
from landwatch.review.secrets.names import name_kind
from landwatch.review.secrets.private_keys import KEY_NEEDLES, key_spans
from landwatch.review.secrets.provider_rules import loaded as rule_set_loaded
from landwatch.review.secrets.provider_rules import provider_spans
from landwatch.review.secrets.scanning import PLACEHOLDER, ascii_lower
from landwatch.review.secrets.token_formats import (
    TOKEN_NEEDLES,
    TOKEN_NEEDLES_FOLDED,
    prefixed_tokens,
    tokens,
    unanchored_tokens,
)
from landwatch.review.secrets.values import secret_value
from landwatch.review.secrets.wrapped import wrapped_keys, wrapped_tokens

# What every credential of the maintained rule set holds: a run of token characters. Most lines
# redacted (every snippet, message and note of a review) hold none, and skip its scan.
_TOKEN_SHAPED = lazy_compile(r"[A-Za-z0-9_+/=.-]{16}")
# The anchors of every detector as text: a line holding none of them holds no secret we find.
_EXACT_TEXT_NEEDLES = tuple(needle.decode() for needle in (*TOKEN_NEEDLES, *KEY_NEEDLES))
_PROSE_OR_ESCAPED = lazy_compile(r"[\s\\]")
_CREDENTIAL_TEXT_NEEDLES = tuple(needle.decode() for needle in CREDENTIAL_NEEDLES)
_FOLDED_TEXT_NEEDLES = tuple(
    needle.decode() for needle in (*TOKEN_NEEDLES_FOLDED, *SECRET_NAME_NEEDLES)
)


def may_hold_secret(text: str) -> bool:
    """False when no detector could find anything on `text`: most lines, decided in a few
    substring tests before any pattern runs."""
    if any(needle in text for needle in _EXACT_TEXT_NEEDLES):
        return True
    lowered = ascii_lower(text)
    return any(needle in lowered for needle in _FOLDED_TEXT_NEEDLES)


def _hidden_whatever_its_entropy(value: str) -> bool:
    """Whether a literal given to a secret-like name is hidden from a snippet: any of eight
    characters or more but prose, a template or an escaped block (a key in a JSON string, which
    the key's own redaction shows the shape of)."""
    return len(value) >= 8 and not _PROSE_OR_ESCAPED.search(value) and not PLACEHOLDER.search(value)


def _hidden(name: str, value: str, *, in_code: bool) -> bool:
    """Whether a value given to a secret-like name is hidden: a literal of eight characters or
    more (_hidden_whatever_its_entropy), and whatever the generic-secret rule could tell (a bare
    token in code, a short password), at the least entropy any configuration may ask of it."""
    if not in_code and _hidden_whatever_its_entropy(value):
        return True
    kind = name_kind(name)
    return kind is not None and secret_value(value, kind, min_entropy=0.0, in_code=in_code)


# A finding's line is redacted for its snippet, its message and its fingerprint, and a line
# with several secrets once per finding and per rule: the last lines seen are remembered, short
# ones for as long as the process lives (so the memory stays small whatever a line's length),
# the last few long ones until forget() (a review's end), at most _MOST_LONG_CHARS of them
# (each search of a minified line's megabyte takes a second).
_LINES_REMEMBERED = 256
_LONGEST_REMEMBERED = 2000
_LONG_LINES_REMEMBERED = 4
_MOST_LONG_CHARS = 8 << 20
_long_lines: OrderedDict[str, tuple[tuple[int, int], ...]] = OrderedDict()


def spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of every secret any detector finds on a line: known tokens (landwatch's
    formats and the maintained rule set's, percent-escaped too), key bodies, passwords, and any
    literal given to a secret-like name whatever its entropy (for redacting, where too much
    hidden is harmless)."""
    if len(text) <= _LONGEST_REMEMBERED:
        return _remembered_spans(text)
    found = _long_lines.get(text)
    if found is not None:
        _long_lines.move_to_end(text)
        return found
    found = _long_lines[text] = detected_spans(text)
    while len(_long_lines) > _LONG_LINES_REMEMBERED or (
        sum(map(len, _long_lines)) > _MOST_LONG_CHARS
    ):
        _long_lines.popitem(last=False)
    return found


def forget() -> None:
    """Let the long lines remembered go: a resident process keeps none between reviews."""
    _long_lines.clear()


def detected_spans(text: str, *, rule_set: bool = True) -> tuple[tuple[int, int], ...]:
    """spans(), found afresh; without the maintained rule set's unless `rule_set`."""
    found: list[tuple[int, int]] = []
    lowered = ascii_lower(text)
    if any(needle in lowered for needle in _CREDENTIAL_TEXT_NEEDLES):
        found.extend((start, end) for _, start, end in credentials(text))
    if may_hold_secret(text):
        found.extend((start, end) for _, start, end in tokens(text))
        found.extend(key_spans(text))
        found.extend(
            (start, end)
            for name, start, end, in_code in value_spans(text, literal_file=False)
            if _hidden(name, text[start:end], in_code=in_code)
        )
    if _TOKEN_SHAPED.search(text):
        if rule_set:
            found.extend(provider_spans(text))
        found.extend((start, end) for _, start, end in prefixed_tokens(text))
        found.extend((start, end) for _, start, end in unanchored_tokens(text))
        found.extend(wrapped_keys(text))
        found.extend(wrapped_tokens(text))
        found.extend(shaped_spans(text))  # Mailgun's and Dropbox's, named or not
        found.extend(escaped_spans(text))
    return tuple(dict.fromkeys(found))


def spans_at_hand(text: str) -> tuple[tuple[int, int], ...]:
    """spans() of a line a resident process writes (its log), nothing remembered: the maintained
    rule set's only where this process loaded it already, never loaded for such a line."""
    return detected_spans(text, rule_set=rule_set_loaded())


_remembered_spans = functools.lru_cache(maxsize=_LINES_REMEMBERED)(detected_spans)
