"""What any match of the maintained rule set must hold, derived from the rules' own patterns when
they are compiled, so a text holding none of it is known to hold no finding without loading them.

Each rule gives the literals one of which every match holds (case folded, as a rule may ignore
case); a rule whose literals are short (`.`, `SK`) also gives a run of characters every match
holds (32 hex digits). A rule whose pattern cannot be read here gives nothing, and then every
text is scanned. The rules also scan what base64 decodes to: any run of base64 long enough to
encode the shortest match is scanned too.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]
from typing import Any

from landwatch.lazy_re import lazy_compile

# Literals shorter than this (`.`, `SK`) are in most lines: the rule's run decides with them.
STRONG = 3
# A run shorter than this is in most lines too: a rule with neither leaves every text scanned.
SHORTEST_RUN = 12
# Sets of exact strings are multiplied out (`(?:AKIA|ASIA)` then `[AB]`) up to this many.
_MOST_EXACT = 64
# Flags Python's parser takes only at a pattern's start; case is folded anyway, and the others
# change no literal.
_INLINE_FLAGS = lazy_compile(r"\(\?[imsuU]+\)")
# POSIX classes inside a class (Rust's `[[:alnum:]]`), as Python spells them.
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "lower": "a-z",
    "upper": "A-Z",
    "word": r"\w",
    "space": r"\s",
}
# The categories a class may hold, in ASCII (what Unicode adds is past ASCII, in every run).
_CATEGORIES = {
    sre.CATEGORY_DIGIT: set(range(48, 58)),
    sre.CATEGORY_WORD: {ord(c) for c in "0123456789_" + "abcdefghijklmnopqrstuvwxyz"},
    sre.CATEGORY_SPACE: {ord(c) for c in " \t\n\r\f\v"},
}
_POSIX_CLASS = lazy_compile(r"\[:(\w+):\]")
# What base64 (standard and URL-safe) is written in: kingfisher decodes such runs and scans them.
_BASE64 = b"A-Za-z0-9+/=_-"


class Unreadable(ValueError):
    """A pattern Python's parser cannot read as Rust reads it."""


Exact = set[str] | None  # every string a part matches (case folded), when few
Required = frozenset[str] | None  # one of these is in every match, when known


def _python(pattern: str) -> str:
    """The pattern in Python's syntax where the two differ; Unreadable where unsure."""
    if re.search(r"(?<!^)\(\?[a-zA-Z]*x", pattern):
        raise Unreadable("verbose mode past the start")

    def posix(match: re.Match[str]) -> str:
        if match.group(1) not in _POSIX:
            raise Unreadable(f"the POSIX class {match.group(1)}")
        return _POSIX[match.group(1)]

    return _POSIX_CLASS.sub(posix, _INLINE_FLAGS.sub("", pattern)).replace(r"\z", r"\Z")


def parse(pattern: str) -> Any:
    """The parsed pattern (Python's parse tree), case ignored; Unreadable when it cannot be
    read, or could be read otherwise (a nested class Python would read as two)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "Possible nested set": Rust's [[a-z][0-9]]
            return parser.parse(_python(pattern), re.IGNORECASE)
    except (re.error, FutureWarning, RecursionError, OverflowError) as error:
        raise Unreadable(str(error)) from None


def _sequence(items: Iterable[tuple[Any, Any]]) -> tuple[Exact, Required]:
    """What a sequence matches exactly, and the literals the best of its parts require."""
    whole: Exact = {""}
    current: set[str] = {""}
    candidates: list[set[str] | frozenset[str]] = []
    for op, argument in items:
        exact, required = _node(op, argument)
        if whole is not None:
            fits = exact is not None and len(whole) * len(exact) <= _MOST_EXACT
            whole = {a + b for a in whole for b in exact} if fits and exact is not None else None
        if exact is not None and len(current) * len(exact) <= _MOST_EXACT:
            current = {a + b for a in current for b in exact}
            continue
        candidates.append(current)
        if required is not None:
            candidates.append(required)
        current = set(exact) if exact is not None else {""}
    candidates.append(current)
    usable = [frozenset(c) for c in candidates if c and "" not in c]
    return whole, max(usable, key=lambda c: min(map(len, c)), default=None)


def _node(op: Any, argument: Any) -> tuple[Exact, Required]:
    """What one node of the tree matches exactly, and the literals every match of it holds."""
    if op is sre.LITERAL:
        return {chr(argument).casefold()}, None
    if op is sre.SUBPATTERN:
        return _sequence(argument[-1])
    if op is sre.ATOMIC_GROUP:
        return _sequence(argument)
    if op is sre.BRANCH:
        return _branch(argument[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        least, most, item = argument
        exact, required = _sequence(item)
        if least == 0:
            if most == 0:
                return {""}, None
            return ({"", *exact} if exact is not None and most == 1 else None), None
        if least == most == 1:
            return exact, required
        return None, required if required is not None else _nonempty(exact)
    if op is sre.IN:
        members = _members(argument)
        few = members is not None and len(members) <= 4 and not _categorized(argument)
        return ({chr(c).casefold() for c in members} if few and members else None), None
    if op is sre.AT:
        return {""}, None
    return None, None  # any character, a category, a lookaround: nothing known


def _branch(alternatives: list[Any]) -> tuple[Exact, Required]:
    """An alternation: exact when each alternative is; required when each requires."""
    exacts, requireds = [], []
    for alternative in alternatives:
        exact, required = _sequence(alternative)
        exacts.append(exact)
        requireds.append(required if required is not None else _nonempty(exact))
    known = [e for e in exacts if e is not None]
    whole: Exact = None
    if len(known) == len(exacts) and sum(map(len, known)) <= _MOST_EXACT:
        whole = set().union(*known)
    sure = [r for r in requireds if r is not None]
    return whole, frozenset().union(*sure) if len(sure) == len(requireds) else None


def _categorized(items: list[tuple[Any, Any]]) -> bool:
    """Whether a class holds a category (`\\d`), which Rust reads as Unicode's."""
    return any(op is sre.CATEGORY for op, _ in items)


def _nonempty(exact: Exact) -> Required:
    return frozenset(exact) if exact is not None and "" not in exact else None


def _members(items: list[tuple[Any, Any]]) -> set[int] | None:
    """The ASCII characters a class holds, both cases of each letter (past ASCII, a run's
    class takes every byte); None when it is negated or holds what is not spelled out."""
    found: set[int] = set()
    for op, argument in items:
        if op is sre.LITERAL and argument < 128:
            found.add(argument)
        elif op is sre.RANGE and argument[1] < 128:
            found.update(range(argument[0], argument[1] + 1))
        elif op is sre.CATEGORY and argument in _CATEGORIES:
            found.update(_CATEGORIES[argument])
        else:
            return None
    return found | {ord(chr(c).swapcase()) for c in found}


def _run(items: list[tuple[Any, Any]]) -> tuple[frozenset[int], int] | None:
    """The longest run of one class every match holds (`[0-9a-f]{32}`): its ASCII characters
    (both cases; past ASCII, which Unicode classes may take, every byte is let in) and length."""
    best: tuple[frozenset[int], int] | None = None
    for op, argument in items:
        found: tuple[frozenset[int], int] | None = None
        if op is sre.SUBPATTERN:
            found = _run(argument[-1])
        elif op is sre.BRANCH:
            runs = [_run(alternative) for alternative in argument[1]]
            known = [run for run in runs if run is not None]
            if known and len(known) == len(runs):
                found = frozenset().union(*(c for c, _ in known)), min(n for _, n in known)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            least, _, item = argument
            item = list(item)
            if len(item) == 1 and item[0][0] is sre.IN and least >= 1:
                members = _members(item[0][1])
                found = (frozenset(members), least) if members is not None else None
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    return best


def _spelled(members: frozenset[int]) -> bytes:
    """A run's class as a regex class's bytes, every byte past ASCII in it."""
    return b"".join(re.escape(bytes([c])) for c in sorted(members)) + rb"\x80-\xff"


@dataclass(frozen=True)
class Anchors:
    """What a text must hold for any rule to match it: one of `literals` (case folded); or, for
    each rule of short literals, one of its literals and its run; or a run of base64 at least
    `base64` long."""

    literals: tuple[str, ...]
    guarded: tuple[tuple[tuple[str, ...], bytes, int], ...]
    base64: int

    def may_match(self, data: bytes) -> bool:
        """False when no rule can match `data`: substring tests on it case folded (Unicode's
        folding where it is not ASCII, as Rust's ignoring of case is), and a few searches."""
        folded = data.lower().decode("ascii") if data.isascii() else _folded(data)
        if any(literal in folded for literal in self.literals):
            return True
        base64, runs = self._searches
        if base64.search(data):
            return True
        return any(
            any(literal in folded for literal in literals) and run.search(data)
            for (literals, _, _), run in zip(self.guarded, runs, strict=True)
        )

    @functools.cached_property
    def _searches(self) -> tuple[re.Pattern[bytes], list[re.Pattern[bytes]]]:
        """The base64 run's search, and each guarded rule's run's, compiled once."""
        runs = [re.compile(rb"[%s]{%d}" % (run, n)) for _, run, n in self.guarded]
        return re.compile(rb"[%s]{%d}" % (_BASE64, self.base64)), runs

    def dumps(self) -> bytes:
        guarded = [[list(literals), run.decode("latin-1"), n] for literals, run, n in self.guarded]
        text = {"literals": list(self.literals), "guarded": guarded, "base64": self.base64}
        return json.dumps(text, sort_keys=True).encode()

    @classmethod
    def loads(cls, data: bytes) -> Anchors:
        """What dumps() wrote; ValueError (or KeyError, TypeError) when it is not that."""
        text = json.loads(data)
        guarded = tuple(
            (tuple(map(str, literals)), run.encode("latin-1"), int(n))
            for literals, run, n in text["guarded"]
        )
        base64 = int(text["base64"])
        if base64 < 1 or any(n < 1 for _, _, n in guarded):
            raise ValueError("a run of no length")
        return cls(tuple(map(str, text["literals"])), guarded, base64)


def _folded(data: bytes) -> str:
    return data.decode("utf-8", "replace").casefold()


def derive(patterns: Iterable[str]) -> Anchors | None:
    """The anchors of every pattern (Rust's syntax, kingfisher's detection regexes); None when
    one gives none: then no text can be told apart."""
    literals: set[str] = set()
    guarded: list[tuple[tuple[str, ...], bytes, int]] = []
    shortest = None
    for pattern in patterns:
        try:
            tree = parse(pattern)
        except Unreadable:
            return None
        least = tree.getwidth()[0]
        shortest = least if shortest is None else min(shortest, least)
        _, required = _sequence(list(tree))
        if required is not None and min(map(len, required)) >= STRONG:
            literals.update(required)
            continue
        run = _run(list(tree))
        if required is None or run is None or run[1] < SHORTEST_RUN:
            return None
        guarded.append((tuple(sorted(required)), _spelled(run[0]), run[1]))
    if shortest is None or shortest < 1:
        return None
    # A run encoding `shortest` bytes is at least 4/3 as long: 6 bits a character.
    base64 = -(-4 * shortest // 3)
    return Anchors(tuple(sorted(literals)), tuple(sorted(set(guarded))), base64)
