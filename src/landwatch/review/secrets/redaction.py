"""Never repeating a secret: the redaction of one value, and of every secret a detector finds in
a line, the one step every snippet, message, note and fingerprint of a review goes through.

The detectors are imported at the first redaction, not with this module: anything reading a
stored report imports it (findings hash with it) and must not compile the detectors' patterns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

# Past this, a snippet is a window around the first secret: a minified line would bury it.
_SNIPPET_WIDTH = 240
# Each secret's copies are looked for in the whole line, so a line of many secrets would cost
# their number times its length; past this many it is hidden whole, which is never too little.
_MOST_SECRETS_SEARCHED = 16


def redact(secret: str) -> str:
    """At most the first four characters of a secret and an ellipsis; `****` for short ones."""
    if len(secret) <= 8:
        return "****"
    return secret[:4] + "…"


def _secret_spans(
    text: str, secrets: Iterable[tuple[int, int]], load_rules: bool = True
) -> list[list[int]]:
    """Where the secrets of `text` are, merged: the ones given, every copy of each, and every
    one a detector finds (known tokens, key bodies, any literal given to a secret-like name,
    whatever its entropy: over-redacting is harmless)."""
    spans = list(secrets)
    values = {text[start:end] for start, end in spans} - {""}
    if len(values) > _MOST_SECRETS_SEARCHED:
        return [[0, len(text)]]
    for value in values:
        at = text.find(value)
        while at >= 0:
            spans.append((at, at + len(value)))
            at = text.find(value, at + len(value))
    spans.extend(_detected(load_rules)(text))
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


@functools.cache
def _detected(load_rules: bool = True) -> Callable[[str], tuple[tuple[int, int], ...]]:
    """What finds every secret on a line, imported on the first redaction: a report reader that
    never redacts never compiles a detector (and a review pays the import once, not per line)."""
    from landwatch.review.secrets.detectors import spans, spans_at_hand

    return spans if load_rules else spans_at_hand


def forget_lines() -> None:
    """Let go of the long lines the detectors remember for their next redaction: a review's
    last step, so a resident process keeps none of them."""
    if _detected.cache_info().currsize:  # the detectors imported: something was redacted
        from landwatch.review.secrets.detectors import forget

        forget()


def _replaced(text: str, merged: list[list[int]]) -> str:
    parts: list[str] = []
    at = 0
    for start, end in merged:
        parts += [text[at:start], redact(text[start:end])]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def redact_secrets(
    text: str, secrets: Iterable[tuple[int, int]] = (), *, load_rules: bool = True
) -> str:
    """`text` with every secret in it replaced by its redaction: the one step every snippet,
    message and fingerprint of every finding goes through, whichever rule or linter made it."""
    # `load_rules` False, for the lines a resident process writes often (its log, git's words on
    # a remote out of reach): the maintained rule set is used only where this process loaded it
    # already, never loaded for such a line (50 MB resident, a second from its cache).
    merged = _secret_spans(text, secrets, load_rules)
    return _replaced(text, merged) if merged else text


def printable(text: str) -> str:
    """Repository data as a terminal may show it: every secret redacted, every control escaped
    (text.safe). What a person reads of a repository never holds a credential whole."""
    from landwatch.text import safe

    return safe(redact_secrets(text))


def redacted_snippet(text: str, secrets: Iterable[tuple[int, int]]) -> str:
    """The line with every secret on it redacted, a window around the first on a long line.

    Known tokens and other copies of each secret on the line are redacted too, so no finding's
    snippet shows a secret another finding (or another rule) reports.
    """
    merged = _secret_spans(text, secrets)
    return window(_replaced(text, merged), merged[0][0] if merged else 0)


def window(shown: str, at: int = 0) -> str:
    """A line as a snippet shows it: whole when short, else _SNIPPET_WIDTH characters around
    `at`, an ellipsis where it is cut (a minified line would bury what was found); a window
    already, with its two ellipses, is kept as it is."""
    if len(shown) <= _SNIPPET_WIDTH + 2:
        return shown
    left = max(0, at - _SNIPPET_WIDTH // 2)
    right = left + _SNIPPET_WIDTH
    return ("…" if left else "") + shown[left:right] + ("…" if right < len(shown) else "")
