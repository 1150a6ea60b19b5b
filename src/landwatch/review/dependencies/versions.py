"""Whether a locked version satisfies the range a manifest asks: npm's ranges (`^`, `~`, `x`,
`a - b`, `||`), Cargo's (a bare version is a caret, comparators joined by commas), Go's exact
versions; None when it cannot tell.
"""

from __future__ import annotations

import re

from landwatch.lazy_re import lazy_compile

_VERSION = lazy_compile(
    r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+\S*)?$"
)

Version = tuple[int, int, int]


def _version(text: str) -> tuple[Version, int, str | None] | None:
    """(major, minor, patch), how many parts were given (wildcards end it), prerelease."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    parts = [match[1], match[2], match[3]]
    given = 0
    numbers = []
    for part in parts:
        if part is None or not part.isdigit():
            break
        numbers.append(int(part))
        given += 1
    numbers += [0] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2]), given, match[4]


def _caret(low: Version, given: int) -> tuple[Version, Version]:
    major, minor, patch = low
    if major > 0 or given == 1:
        return low, (major + 1, 0, 0)
    if minor > 0 or given == 2:
        return low, (0, minor + 1, 0)
    return low, (0, 0, patch + 1)


def _tilde(low: Version, given: int) -> tuple[Version, Version]:
    major, minor, _ = low
    return (low, (major + 1, 0, 0)) if given == 1 else (low, (major, minor + 1, 0))


def _comparator(term: str, version: Version, default: str) -> bool | None:
    match = re.match(r"^(\^|~|>=|<=|>|<|=)?\s*(.+)$", term)
    if match is None:
        return None
    operator, rest = match[1] or default, match[2]
    if rest in ("*", "x", "X", "latest"):
        return True
    parsed = _version(rest)
    if parsed is None:
        return None
    low, given, _ = parsed
    if operator == "^":
        lower, upper = _caret(low, given)
        return lower <= version < upper
    if operator == "~":
        lower, upper = _tilde(low, given)
        return lower <= version < upper
    if operator == "=":
        if given == 3:
            return version == low
        lower, upper = _tilde(low, given)  # a partial version is a range: =1.2 is ~1.2, 1.2.x
        return lower <= version < upper
    if operator == ">=":
        return version >= low
    if operator == ">":
        return version > low
    if operator == "<=":
        return version <= low
    return version < low


def satisfies(version: str, spec: str, ecosystem: str) -> bool | None:
    """Whether a locked `version` meets a manifest's `spec` (None: cannot tell)."""
    parsed = _version(version)
    if parsed is None:
        return None
    locked, _, _ = parsed
    if ecosystem == "go":
        return version == spec
    # npm: a bare version is exact, `a || b` alternatives, space-joined comparators, `a - b`;
    # Cargo: a bare version is a caret, comparators joined by commas.
    default = "=" if ecosystem == "npm" else "^"
    alternatives = spec.split("||") if ecosystem == "npm" else [spec]
    verdicts = []
    for alternative in alternatives:
        alternative = alternative.strip()
        if ecosystem == "npm" and " - " in alternative:
            low, _, high = alternative.partition(" - ")
            terms = [f">={low.strip()}", f"<={high.strip()}"]
        elif ecosystem == "cargo":
            terms = [term.strip() for term in alternative.split(",") if term.strip()]
        else:
            terms = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative).split()
        results = [_comparator(term, locked, default) for term in terms or ["*"]]
        if any(result is None for result in results):
            return None
        verdicts.append(all(results))
    return any(verdicts)
