"""Never repeating a secret: the redaction of one value, and of every secret a detector finds in
a line or a secret rule found in what was reviewed (`Found`), the one step every snippet, message,
note and fingerprint of a review goes through.

The detectors are imported at the first redaction, not with this module: anything reading a
stored report imports it (findings hash with it) and must not compile the detectors' patterns.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable

from landwatch.lazy_re import lazy_compile

# Past this, a snippet is a window around the first secret: a minified line would bury it.
_SNIPPET_WIDTH = 240
# Each secret's copies are looked for in the whole line, so a line of many secrets would cost
# their number times its length; past this many it is hidden whole, which is never too little.
# Past this many values a secret rule found (`Found`), they are looked for in one pass instead.
_MOST_SECRETS_SEARCHED = 16
# A URL's user info, matched from its `://` to the `@` before the host: a stop at the first
# character no user info holds, so each `://` costs a look to the next `/` at most.
_USER_INFO = lazy_compile(r"://(?P<info>[^\s/@\"'`<>]++)@")


def redact(secret: str) -> str:
    """At most the first four characters of a secret and an ellipsis; `****` for short ones."""
    if len(secret) <= 8:
        return "****"
    return secret[:4] + "…"


class Found:
    """The values the secret rules found in what a review read, which no detector may know on a
    line alone (a Kubernetes Secret's data, a `value:` under `- name: DB_PASSWORD`, a bare value
    in a settings file): every copy of each in a text, found in one pass over it however many
    there are (Aho-Corasick past _MOST_SECRETS_SEARCHED), each text's remembered."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values = sorted(set(values) - {""})
        self._spans: dict[str, list[tuple[int, int]]] = {}
        # The automaton: each state's moves, where it falls back to, and the longest value
        # ending in it (0: none), built once, only for more values than are searched one by one.
        self._moves: list[dict[str, int]] = [{}]
        self._fallback = [0]
        self._longest = [0]
        if len(self.values) > _MOST_SECRETS_SEARCHED:
            self._build()

    def __bool__(self) -> bool:
        return bool(self.values)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every copy of every value in `text`, overlapping ones covered."""
        if not self.values:
            return []
        found = self._spans.get(text)
        if found is None:
            found = self._spans[text] = self._searched(text)
        return found

    def _searched(self, text: str) -> list[tuple[int, int]]:
        if len(self.values) <= _MOST_SECRETS_SEARCHED:
            return [span for value in self.values for span in _copies(text, value)]
        moves, fallback, longest = self._moves, self._fallback, self._longest
        found, state = [], 0
        for at, char in enumerate(text):
            while state and char not in moves[state]:
                state = fallback[state]
            state = moves[state].get(char, 0)
            if longest[state]:
                found.append((at + 1 - longest[state], at + 1))
        return found

    def _build(self) -> None:
        """The trie of the values, then each state's fallback, breadth first."""
        for value in self.values:
            state = 0
            for char in value:
                if char not in self._moves[state]:
                    self._moves[state][char] = len(self._moves)
                    self._moves.append({})
                    self._fallback.append(0)
                    self._longest.append(0)
                state = self._moves[state][char]
            self._longest[state] = len(value)
        pending = deque(self._moves[0].values())
        while pending:
            state = pending.popleft()
            for char, next_state in self._moves[state].items():
                pending.append(next_state)
                back = self._fallback[state]
                while back and char not in self._moves[back]:
                    back = self._fallback[back]
                self._fallback[next_state] = self._moves[back].get(char, 0)
                inherited = self._longest[self._fallback[next_state]]
                self._longest[next_state] = max(self._longest[next_state], inherited)


NONE_FOUND = Found()


def _copies(text: str, value: str) -> Iterable[tuple[int, int]]:
    """Every copy of `value` in `text`, overlapping ones too: the next can start no sooner than
    its shortest period on (its length, for all but a repetitive value)."""
    period = (value + value).find(value, 1)
    at = text.find(value)
    while at >= 0:
        yield at, at + len(value)
        at = text.find(value, at + period)


def _secret_spans(
    text: str,
    secrets: Iterable[tuple[int, int]],
    found: Found = NONE_FOUND,
    load_rules: bool = True,
) -> list[list[int]]:
    """Where the secrets of `text` are, merged: the ones given, every copy of each, every value
    `found`, and every one a detector finds (known tokens, key bodies, any literal given to a
    secret-like name, whatever its entropy: over-redacting is harmless)."""
    spans = list(secrets)
    values = {text[start:end] for start, end in spans} - {""}
    if len(values) > _MOST_SECRETS_SEARCHED:
        return [[0, len(text)]]
    for value in values:
        spans.extend(_copies(text, value))
    spans.extend(found.spans(text))
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
    text: str,
    secrets: Iterable[tuple[int, int]] = (),
    *,
    found: Found = NONE_FOUND,
    load_rules: bool = True,
) -> str:
    """`text` with every secret in it replaced by its redaction (and every value `found`): the
    one step every snippet, message and fingerprint of every finding goes through, whichever
    rule or linter made it."""
    # `load_rules` False, for the lines a resident process writes often (its log, git's words on
    # a remote out of reach): the maintained rule set is used only where this process loaded it
    # already, never loaded for such a line (50 MB resident, a second from its cache).
    merged = _secret_spans(text, secrets, found, load_rules)
    return _replaced(text, merged) if merged else text


def redact_words(text: str) -> str:
    """Words landwatch keeps or shows that it did not write (git's, a hook's, a tool's, an
    exception's, a setting's) with every secret and every URL's user info in them hidden."""
    # By the detectors at hand: a resident process writes such lines often (its log, its state
    # files), status and the one line read them, and none loads the maintained rule set. The
    # user info whatever it holds: a token given as the user (`https://TOKEN@`, `TOKEN:x-oauth-
    # basic@`), a password a review takes for a stand-in. Redacted once, words stay the same
    # redacted again: a state read and written again says what it said.
    if not text:
        return text
    users: list[list[int]] = []
    at = text.find("://")
    while at >= 0:
        if (match := _USER_INFO.match(text, at)) and not _redacted_already(match["info"]):
            users.append(list(match.span("info")))
        at = text.find("://", at + 3)
    # Hidden where it is alone, not wherever its words recur: `git` of ssh://git@ is in github.
    return redact_secrets(_replaced(text, users) if users else text, load_rules=False)


def _redacted_already(user_info: str) -> bool:
    """Whether a URL's user info holds what redact() shows of a secret (it, or its password)."""
    return "…" in user_info or "****" in user_info


def printable(text: str, found: Found = NONE_FOUND) -> str:
    """Repository data as a terminal may show it: every secret redacted (and every value
    `found`), every control escaped (text.safe). What a person reads of a repository never
    holds a credential whole."""
    from landwatch.text import safe

    return safe(redact_secrets(text, found=found))


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
