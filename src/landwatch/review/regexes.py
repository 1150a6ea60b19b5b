"""A repository's own regular expressions (a secret scanner's allowlists, landwatch's allow-list):
read as Python's from the RE2 syntax gitleaks writes them in, refused where they could backtrack
badly, and run only on targets short enough for their cost to stay bounded.

RE2 never backtracks; Python's `re` does, so a pattern that gitleaks runs in linear time could
take exponential time here. Three things bound it:

- a repeat inside a repeat (`(a+)+`), an alternation under a repeat whose branches may start
  alike (`(a|ab)*`), a back-reference or a look-around is refused (RE2 has none of the last two:
  gitleaks refuses them too); let be are an optional part (`(/.*)?`: no loop), a possessive
  repeat (`\\w++`: never given back), and one repeat in a loop whose passes each start with a
  character it cannot take (`(\\.\\d+)+`: where a pass ends, the next must start);
- what is left backtracks at worst polynomially: for each place a match may start (one, for a
  pattern anchored with `^`), each way the pattern's long repeats can share the target out, one
  pass over it. A repeat followed by a
  character it cannot take (`[a-z]+-`), or by the end, ends in one place only (no target holds
  a line break, so the end is one place): it adds no way. Each pattern runs only on targets
  short enough for that to stay under MAX_STEPS: unanchored, 4,096 characters where every
  repeat ends in one place, 256 where one can end anywhere, 64 for two, and a third is
  refused; anchored, one more. A longer
  target is not matched, so the finding it could have let through is kept;
- a pattern is compiled once; an error or a warning from Python is a `RegexError` naming it.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from re import _compiler, _parser  # type: ignore[attr-defined]  # typeshed: sre_compile/_parse
from typing import Any

MAX_PATTERN = 4096  # characters of one pattern
MAX_TARGET = 4096  # characters of a target, for a pattern that cannot backtrack much
MAX_STEPS = 256**3  # what a pattern may cost on its longest target (0.1 s of re at worst)
MIN_TARGET = 64  # a pattern that cannot be given targets this long is refused
SMALL_RANGE = 64  # a bounded repeat of at most this many choices costs as many, not a degree

_VARIABLE = ("MAX_REPEAT", "MIN_REPEAT")
_STARTS = ("AT_BEGINNING", "AT_BEGINNING_STRING")  # `^`, `\A`
_NESTING = (*_VARIABLE, "POSSESSIVE_REPEAT", "SUBPATTERN", "ATOMIC_GROUP")  # hold a pattern
_REFUSED = {
    "GROUPREF": "a back-reference",
    "GROUPREF_EXISTS": "a back-reference",
    "ASSERT": "a look-around",
    "ASSERT_NOT": "a look-around",
}  # RE2 has none of them: gitleaks refuses them too
_SCOPED_FOLD = re.compile(r"\(\?[a-zA-Z]*i[a-zA-Z]*(?:-[a-zA-Z]*)?:")
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
        """Whether it matches somewhere in `target`; never on a target longer than its bound,
        nor on one of several lines (where `$` could end a repeat in many places)."""
        fits = len(target) <= self.max_target and "\n" not in target
        return fits and _search(self.pattern, target)


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
            parsed = _parser.parse(text)
            shape = _Shape(parsed.state, bool(_SCOPED_FOLD.search(text)))
            degree, weight = shape.cost(parsed)
            # Each start (one, for a pattern anchored at the start), times each way to read
            # the target from there, times the length of a pass.
            first = parsed[0] if len(parsed) else None
            anchored = first is not None and first[0].name == "AT" and first[1].name in _STARTS
            exponent = (not anchored) + degree + shape.scans
    except (re.error, FutureWarning, DeprecationWarning, RecursionError, OverflowError) as error:
        raise RegexError(
            f"{source!r} is not a regular expression landwatch can read ({error})"
        ) from None
    except _Refused as refused:
        raise RegexError(f"{source!r} could take too long to match ({refused})") from None
    target = MAX_TARGET
    while target >= MIN_TARGET and weight * target**exponent > MAX_STEPS:
        target //= 2
    if target < MIN_TARGET:
        raise RegexError(f"{source!r} could take too long to match (too many repeats)")
    return SafePattern(source, pattern, target)


class _Refused(Exception):
    """What in a pattern could backtrack badly."""


class _Shape:
    """The shape of a parsed pattern, as far as backtracking goes. `fold`: a part of it
    ignores case, so a character stands for both of its cases."""

    def __init__(self, state: Any, fold: bool) -> None:
        self.state = state
        self.fold = fold
        self.scans = False  # it has a long repeat: one pass may read the whole target

    def cost(self, items: Any, after: Any = None) -> tuple[int, int]:
        """(degree, weight): how many long repeats that can end in many places follow one
        another, and the product of the choices of the short ones and of alternations;
        _Refused for what cannot be bounded so. `after`: the item that follows `items`."""
        degree, weight = 0, 1
        for at, (op, av) in enumerate(items):
            name = op.name
            following = items[at + 1] if at + 1 < len(items) else after
            if name in _REFUSED:
                raise _Refused(_REFUSED[name])
            if name in (*_VARIABLE, "POSSESSIVE_REPEAT"):
                low, high, body = av
                # An optional part is followed by what follows it; a loop's body, by more.
                inner_degree, inner_weight = self.cost(body, following if high <= 1 else None)
                if name in _VARIABLE and high != low:
                    if high > 1 and not self.delimited(body):  # `?` is there or not: no loop
                        self.check_under_repeat(body)
                    self.scans |= high - low > SMALL_RANGE
                    if self.stops_before(body, following):
                        pass  # it can end in one place only
                    elif high - low > SMALL_RANGE:
                        degree += 1
                    else:
                        weight *= high - low + 1
                elif name in _VARIABLE:  # a fixed count: its body that many times over
                    degree += inner_degree * low
                    weight *= inner_weight**low
                    continue
                degree, weight = degree + inner_degree, weight * inner_weight
            elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
                inner = av[-1] if name == "SUBPATTERN" else av
                inner_degree, inner_weight = self.cost(inner, following)
                degree, weight = degree + inner_degree, weight * inner_weight
            elif name == "BRANCH":
                costs = [self.cost(branch, following) for branch in av[1]]
                degree += max(cost[0] for cost in costs)
                # Branches that start apart: one at most goes on from a place.
                tried = max if self.start_apart(av[1]) else sum
                weight *= tried(cost[1] for cost in costs)
        return degree, weight

    def check_under_repeat(self, items: Any) -> None:
        """What a repeat's body may not hold: a repeat that backtracks, or an alternation whose
        branches do not each start with a character of their own. A possessive repeat (never
        given back) may be there, whatever it holds."""
        for op, av in items:
            name = op.name
            if name in _VARIABLE:
                if av[0] != av[1]:
                    raise _Refused("a repeat inside a repeat")
                self.check_under_repeat(av[2])
            elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
                self.check_under_repeat(av[-1] if name == "SUBPATTERN" else av)
            elif name == "BRANCH":
                if not self.start_apart(av[1]):
                    raise _Refused("an alternation inside a repeat, its branches starting alike")
                for branch in av[1]:
                    self.check_under_repeat(branch)

    def start_apart(self, branches: Any) -> bool:
        """Whether each branch starts with a character of its own."""
        firsts = [branch[0] if len(branch) else None for branch in branches]
        starts = [item[1] for item in firsts if item is not None and item[0].name == "LITERAL"]
        return len(starts) == len(firsts) and len(set(starts)) == len(starts)

    def stops_before(self, body: Any, following: Any) -> bool:
        """Whether a repeat of `body` followed by `following` is followed by the end, or by
        characters it cannot take (`[a-z]+-`): then it can end in one place only."""
        if following is not None and following[0].name == "AT" and following[1].name == "AT_END":
            return True
        chars = self.first_chars(following) if following is not None else None
        return chars is not None and not self.takes(body, chars)

    def first_chars(self, item: Any) -> set[str] | None:
        """The characters that can start what `item` matches, when they are few and known."""
        op, av = item
        name = op.name
        if name == "LITERAL":
            return {chr(av)}
        if name == "IN":
            chars: set[str] = set()
            for kind, value in av:
                if kind.name == "LITERAL":
                    chars.add(chr(value))
                elif kind.name == "RANGE" and value[1] - value[0] < 256:
                    chars |= {chr(code) for code in range(value[0], value[1] + 1)}
                else:
                    return None  # a negated class, or a category: too many to know
            return chars
        if name == "BRANCH":
            found: set[str] = set()
            for branch in av[1]:
                first = self.first_chars(branch[0]) if len(branch) else None
                if first is None:
                    return None
                found |= first
            return found
        if name in (*_VARIABLE, "POSSESSIVE_REPEAT") and av[0] >= 1 and len(av[2]):
            return self.first_chars(av[2][0])
        if name == "SUBPATTERN" and len(av[-1]):
            return self.first_chars(av[-1][0])
        return None

    def delimited(self, body: Any) -> bool:
        """Whether each pass of a loop can be read one way only: its body starts with a
        character and holds one repeat at most, no alternation, and that repeat cannot take the
        character (`(\\.\\d{1,2})+`: where a pass ends, the next one must start)."""
        first = body[0] if len(body) else None
        if first is None or first[0].name != "LITERAL":
            return False
        repeats: list[Any] = []
        stack = [body]
        while stack:
            for op, av in stack.pop():
                name = op.name
                if name == "BRANCH" or (name in _VARIABLE and av[0] == av[1] > 1):
                    return False
                if name in _VARIABLE and av[0] != av[1]:
                    repeats.append(av[2])
                elif name in _NESTING:
                    stack.append(av if name == "ATOMIC_GROUP" else av[-1])
        delimiter = {chr(first[1])}
        return len(repeats) <= 1 and not any(self.takes(r, delimiter) for r in repeats)

    def takes(self, items: Any, chars: set[str]) -> bool:
        """Whether anything `items` match could be one of `chars` (the pattern's own flags
        apply; where a part ignores case, in either case)."""
        if self.fold:
            chars = {case for char in chars for case in (char, char.lower(), char.upper())}
        for op, av in items:
            name = op.name
            if name in ("LITERAL", "NOT_LITERAL", "IN", "ANY"):
                single = _compiler.compile(_parser.SubPattern(self.state, [(op, av)]))
                if any(single.match(char) for char in chars):
                    return True
            elif any(self.takes(inner, chars) for inner in _inner(name, av)):
                return True
        return False


def _inner(name: str, av: Any) -> list[Any]:
    """The patterns an item holds: a group's, a repeat's body, an alternation's branches."""
    if name == "BRANCH":
        return list(av[1])
    if name == "ATOMIC_GROUP":
        return [av]
    return [av[-1]] if name in _NESTING else []


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
