"""A repository's own regular expressions (a secret scanner's allowlists, landwatch's allow-list),
run with RE2 (google-re2), the engine gitleaks' Go patterns are written for: in time linear in
the target whatever the pattern, so a hostile pattern cannot hold a review.

RE2 has no back-reference and no look-around (it could not stay linear with them), so a pattern
using one is refused with a `RegexError` naming it, as gitleaks refuses it; so is one RE2 cannot
read or one too large to compile within RE2's memory bound. detect-secrets' and landwatch's own
patterns are Python's syntax, which RE2 reads the same way for everything else they hold.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

MAX_PATTERN = 4096  # characters of one pattern
# The most patterns read of what one kind of a repository's files declares (its `.gitattributes`
# files, its `.editorconfig` sections, its gitleaks allowlists, its detect-secrets exclusions,
# landwatch's own configuration): each is a search of every changed path or secret, and a
# hostile tree's 8 MB of them took seconds to read and compile for each review; projects' own
# are tens to hundreds.
MOST_PATTERNS = 2_000
# Memory RE2 may give one compiled pattern (its default is 8 MB): enough for any allowlist.
_MAX_MEMORY = 8 << 20


class RegexError(ValueError):
    """A pattern that cannot be used, and why, in a sentence that quotes it."""


class SafePattern(NamedTuple):
    source: str  # as the repository wrote it
    pattern: Any  # RE2's compiled pattern (google-re2 ships no type information)

    def search(self, target: str) -> bool:
        """Whether it matches somewhere in `target`: one pass over it, however long."""
        return _search(self, target)

    def match_in(self, target: str) -> Any:
        """Its first match in `target` (RE2's, with `groupdict()`), or None: one pass."""
        try:
            return self.pattern.search(target)
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8
            return self.pattern.search(target.encode("utf-8", "replace").decode("utf-8"))


@lru_cache(maxsize=4096)
def _search(pattern: SafePattern, target: str) -> bool:
    """Once per pattern and target: findings in one file share its path, a line its text."""
    return pattern.match_in(target) is not None


def _options() -> Any:
    import re2  # 2.4 ms: only a repository's own patterns are RE2's

    options = re2.Options()
    options.log_errors = False  # the error is ours to report, as one note; not RE2's log line
    options.max_mem = _MAX_MEMORY
    return options


def compile_safe(source: str) -> SafePattern:
    """`source` compiled by RE2; RegexError when it is too long, or RE2 cannot read it (a
    back-reference, a look-around, a syntax error)."""
    if len(source) > MAX_PATTERN:
        raise RegexError(f"{source[:40]!r}... is longer than {MAX_PATTERN} characters")
    import re2

    try:
        pattern = re2.compile(source, _options())
    except (re2.error, TypeError, ValueError) as error:
        why = (
            error.args[0].decode("utf-8", "replace")
            if error.args and isinstance(error.args[0], bytes)
            else str(error)
        )
        raise RegexError(
            f"{source!r} is not a regular expression landwatch can read ({why})"
        ) from None
    return SafePattern(source, pattern)


# A pattern's leading inline flags, as Python writes them (`(?x)`, `(?xi)`).
_FLAGS = "aiLmsux"
# What a verbose pattern drops, as re's parser does (sre_parse.WHITESPACE): not every space.
_WHITESPACE = frozenset(" \t\n\r\v\f")
_DIGITS = frozenset("0123456789")


def unverbose(source: str) -> str:
    """A Python pattern with a leading verbose flag (`(?x)`: pre-commit's documentation writes
    a long `exclude` so) as RE2 reads it, which has no such flag: its whitespace and `#`
    comments dropped as Python's re drops them (not escaped, not in a class); else as it is."""
    end = source.find(")")
    flags = source[2:end] if source.startswith("(?") and end > 2 else ""
    if "x" not in flags or any(flag not in _FLAGS for flag in flags):
        return source
    kept = flags.replace("x", "")
    out, at, length = [f"(?{kept})" if kept else ""], end + 1, len(source)
    opened = -1  # where the class read opened (its `[`), else -1
    while at < length:
        char = source[at]
        if char == "\\" and at + 1 < length:
            out.append(source[at : at + 2])
            at += 2
            continue
        if opened >= 0:
            first = opened + (2 if source[opened + 1 : opened + 2] == "^" else 1)
            opened = -1 if char == "]" and at > first else opened  # `[]a]`: a literal first
        elif char == "[":
            opened = at
        elif char in _WHITESPACE:
            at += 1
            continue
        elif char == "{":  # a repetition only as re reads one: `{1, 2}` is a literal there
            end, repeat = _repetition(source, at)
            out.append(repeat)
            at = end
            continue
        elif char == "#":  # to the line's end, read as re reads it: `\\` and the next as one
            at += 1
            while at < length and source[at] != "\n":
                at += 2 if source[at] == "\\" else 1
            at += 1
            continue
        out.append(char)
        at += 1
    return "".join(out)


def _repetition(source: str, at: int) -> tuple[int, str]:
    """Where what the `{` at `at` opens ends, and it in RE2's spelling: a repetition where re
    reads one (`{2}`, `{2,}`, `{,3}` as `{0,3}`), else a literal `{`, re reading on after it."""
    start = at
    end = source.find("}", start)
    low, comma, high = source[start + 1 : end].partition(",") if end > start else ("", "", "")
    if end < 0 or not (low or comma) or not set(low + high) <= _DIGITS:
        return start + 1, "\\{"
    return end + 1, "{" + (low or "0") + comma + high + "}"
