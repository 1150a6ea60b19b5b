"""A repository's own regular expressions (a secret scanner's allowlists, landwatch's allow-list):
read as Python's from the RE2 syntax gitleaks writes them in, refused where they could backtrack
badly, and run only on targets short enough for their cost to stay bounded.

RE2 never backtracks; Python's `re` does, so a pattern that gitleaks runs in linear time could
take exponential time here. Three things bound it:

- a repeat inside a repeat (`(a+)+`), an alternation under a repeat whose branches may start
  alike (`(a|ab)*`), a back-reference or a look-around is refused (RE2 has none of the last two:
  gitleaks refuses them too); a possessive repeat (`\\w++`) never backtracks and is let be;
- what is left backtracks at worst polynomially, the target's length to the power of the
  pattern's unbounded repeats plus one, so each pattern gets the longest target that keeps this
  under MAX_STEPS (4,096 characters for a pattern with one unbounded repeat, 256 for two, 64 for
  three; a fourth is refused): a longer target is not matched and the finding is kept;
- a pattern is compiled once; an error or a warning from Python is a `RegexError` naming it.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from re import _parser  # type: ignore[attr-defined]  # typeshed knows it only as sre_parse
from typing import Any

MAX_PATTERN = 4096  # characters of one pattern
MAX_TARGET = 4096  # characters of a target, for a pattern that cannot backtrack much
MAX_STEPS = 256**3  # the cost a pattern may have, as the target's length to its degree
MIN_TARGET = 64  # a pattern that cannot be given targets this long is refused
SMALL_RANGE = 64  # a bounded repeat of at most this many choices costs as many, not a degree

_VARIABLE = ("MAX_REPEAT", "MIN_REPEAT")
_REFUSED = {
    "GROUPREF": "a back-reference",
    "GROUPREF_EXISTS": "a back-reference",
    "ASSERT": "a look-around",
    "ASSERT_NOT": "a look-around",
}  # RE2 has none of them: gitleaks refuses them too
_GO_FLAGS = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?\)")
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}


class RegexError(ValueError):
    """A pattern that cannot be used, and why, in a sentence that quotes it."""


@dataclass(frozen=True)
class SafePattern:
    source: str  # as the repository wrote it
    pattern: re.Pattern[str]
    max_target: int  # the longest target it is run on

    def search(self, target: str) -> bool:
        """Whether it matches somewhere in `target`; never on a target longer than its bound."""
        return len(target) <= self.max_target and _search(self.pattern, target)


@lru_cache(maxsize=4096)
def _search(pattern: re.Pattern[str], target: str) -> bool:
    """Once per pattern and target: findings in one file share its path, a line its text."""
    return pattern.search(target) is not None


def compile_safe(source: str, *, go: bool = True) -> SafePattern:
    """`source` compiled (from RE2's syntax with `go`), with the longest target it may run on;
    RegexError when it cannot be read or could backtrack badly."""
    if len(source) > MAX_PATTERN:
        raise RegexError(f"{source[:40]!r}... is longer than {MAX_PATTERN} characters")
    try:
        text = from_go(source) if go else source
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pattern = re.compile(text)
            degree, weight = _cost(_parser.parse(text))
    except (re.error, FutureWarning, DeprecationWarning, RecursionError, OverflowError) as error:
        raise RegexError(
            f"{source!r} is not a regular expression landwatch can read ({error})"
        ) from None
    except _Refused as refused:
        raise RegexError(f"{source!r} could take too long to match ({refused})") from None
    target = MAX_TARGET
    while target >= MIN_TARGET and weight * target ** (degree + 1) > MAX_STEPS:
        target //= 2
    if target < MIN_TARGET:
        raise RegexError(f"{source!r} could take too long to match (too many repeats)")
    return SafePattern(source, pattern, target)


class _Refused(Exception):
    """What in a pattern could backtrack badly."""


def _cost(items: Any) -> tuple[int, int]:
    """(degree, weight): how many unbounded repeats follow one another, and the product of the
    choices of the small ones and of alternations; _Refused for what cannot be bounded so."""
    degree, weight = 0, 1
    for op, av in items:
        name = op.name
        if name in _REFUSED:
            raise _Refused(_REFUSED[name])
        if name in (*_VARIABLE, "POSSESSIVE_REPEAT"):
            low, high, body = av
            inner_degree, inner_weight = _cost(body)
            if name in _VARIABLE and high != low:
                _check_under_repeat(body)
                if high - low > SMALL_RANGE:
                    degree += 1
                else:
                    weight *= high - low + 1
            elif name in _VARIABLE:  # a fixed count: its body that many times over
                degree += inner_degree * low
                weight *= inner_weight**low
                continue
            degree, weight = degree + inner_degree, weight * inner_weight
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            inner_degree, inner_weight = _cost(av[-1] if name == "SUBPATTERN" else av)
            degree, weight = degree + inner_degree, weight * inner_weight
        elif name == "BRANCH":
            costs = [_cost(branch) for branch in av[1]]
            degree += max(cost[0] for cost in costs)
            weight *= sum(cost[1] for cost in costs)
    return degree, weight


def _check_under_repeat(items: Any) -> None:
    """What a repeat's body may not hold: a repeat that backtracks, or an alternation whose
    branches do not each start with a character of their own. A possessive repeat (never given
    back) may be there, whatever it holds."""
    for op, av in items:
        name = op.name
        if name in _VARIABLE:
            if av[0] != av[1]:
                raise _Refused("a repeat inside a repeat")
            _check_under_repeat(av[2])
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            _check_under_repeat(av[-1] if name == "SUBPATTERN" else av)
        elif name == "BRANCH":
            firsts = [branch[0] if len(branch) else None for branch in av[1]]
            starts = [item[1] for item in firsts if item is not None and item[0].name == "LITERAL"]
            if len(starts) != len(firsts) or len(set(starts)) != len(starts):
                raise _Refused("an alternation inside a repeat whose branches may start alike")
            for branch in av[1]:
                _check_under_repeat(branch)


def from_go(pattern: str) -> str:
    """An RE2 (Go) pattern as Python reads it: inline flags after the start (`^(?i)x`) scoped
    to the rest of their group, POSIX classes (`[[:alnum:]]`) spelt out, `\\z` and `\\Q...\\E`,
    `(?<name>...)`; RegexError for what Python has no way to say (the `U` flag)."""
    out: list[str] = []
    pending = [0]  # per open group: the scoped flag groups to close with it
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            escape = pattern[at : at + 2]
            if escape == "\\Q":
                end = pattern.find("\\E", at + 2)
                end = len(pattern) if end < 0 else end
                out.append(re.escape(pattern[at + 2 : end]))
                at = end + 2
                continue
            out.append("\\Z" if escape == "\\z" else escape)
            at += 2
        elif char == "[":
            end = _class_end(pattern, at)
            out.append(_go_class(pattern[at:end]))
            at = end
        elif flags := _GO_FLAGS.match(pattern, at):
            if "U" in flags[0]:
                raise RegexError(f"{pattern!r} uses Go's U flag (ungreedy), which Python has not")
            if at == 0 and flags[2] is None:
                out.append(flags[0])  # at the very start, Python reads it as Go does
            else:
                out.append(flags[0][:-1] + ":")
                pending[-1] += 1
            at = flags.end()
        elif char == "(":
            named = pattern.startswith("(?<", at) and pattern[at + 3 : at + 4] not in ("=", "!")
            out.append("(?P<" if named else "(")
            pending.append(0)
            at += 3 if named else 1
        elif char == ")" and len(pending) > 1:
            out.append(")" * pending.pop() + ")")
            at += 1
        else:
            out.append(char)
            at += 1
    out.append(")" * pending[0])
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Where the bracketed class starting at `start` ends (after its `]`)."""
    at = start + 1
    if pattern.startswith("^", at):
        at += 1
    if pattern.startswith("]", at):
        at += 1  # a `]` first is a literal one
    while at < len(pattern):
        if pattern[at] == "\\":
            at += 2
        elif pattern.startswith("[:", at) and (close := pattern.find(":]", at + 2)) >= 0:
            at = close + 2
        elif pattern[at] == "]":
            return at + 1
        else:
            at += 1
    return len(pattern)


def _go_class(text: str) -> str:
    """A bracketed class of RE2 as Python's: POSIX names spelt out, and the characters Python
    would read as a nested set or a set operation (`[`, `&&`, `||`, `~~`, `--`) escaped."""

    def posix(match: re.Match[str]) -> str:
        if match[1].startswith("^") or match[1] not in _POSIX:
            raise RegexError(f"{text!r}: landwatch cannot spell the POSIX class {match[0]}")
        return _POSIX[match[1]]

    body = re.sub(r"\[:(\^?\w+):\]", posix, text[1:])
    body = re.sub(r"(?<!\\)([\[&|~])", r"\\\1", body)
    return "[" + body.replace("--", "-\\-")
