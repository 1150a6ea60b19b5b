"""The rules a landwatch.* setting's text is read by (layout.settings names each setting's): the
value landwatch uses, and the one line saying why where the text cannot be used, its text escaped.
githooks/hook.sh follows the same rules for what it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from landwatch.lazy_re import lazy_compile
from landwatch.text import safe

T = TypeVar("T")


class Parsed(NamedTuple, Generic[T]):
    """A setting's value as landwatch uses it, and the one line saying why its text could not be
    used (None when it could): the hooks say it once per change of the configuration."""

    value: T
    problem: str | None = None


# (the setting's name, its raw text, its default's text): what landwatch makes of the text.
Rule = Callable[[str, str, str], Parsed[T]]


def problem(name: str, text: str, why: str) -> str:
    """The one line of a setting's text landwatch cannot use: the text escaped (text.safe), as
    a copied repository's config may hold a terminal's escapes, whoever prints the line."""
    return f"git config {name} = '{safe(text)}' is {why}"


_SECONDS = lazy_compile(r"0|[1-9][0-9]{0,8}")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")  # git reads an empty value as false


def seconds(least: int = 0) -> Rule[int]:
    """Whole seconds, at least `least`: 1 to 9 decimal digits (as µs they fit the hook's
    arithmetic) and no leading zero (which the shell's arithmetic reads as octal)."""

    def rule(name: str, text: str, default: str) -> Parsed[int]:
        if _SECONDS.fullmatch(text) is None:
            return Parsed(
                int(default),
                problem(
                    name,
                    text,
                    "not a whole number of seconds (1 to 9 digits, no leading zero); "
                    f"landwatch uses {default}",
                ),
            )
        if int(text) < least:
            return Parsed(
                least,
                problem(name, text, f"less than {least} seconds; landwatch uses {least}"),
            )
        return Parsed(int(text))

    return rule


def boolean(otherwise: str) -> Rule[bool]:
    """A boolean as git spells one, in any case (true, yes, on, 1; false, no, off, 0, empty);
    anything else is the default, and `otherwise` says what landwatch then does."""

    def rule(name: str, text: str, default: str) -> Parsed[bool]:
        word = text.lower() if text.isascii() else text
        if word in _TRUE or word in _FALSE:
            return Parsed(word in _TRUE)
        return Parsed(default in _TRUE, problem(name, text, f"not true or false; {otherwise}"))

    return rule


def word(words: tuple[str, ...], otherwise: str) -> Rule[str]:
    """One of `words` in any case, given in lower case; empty is the default, and anything else
    is too, `otherwise` saying what landwatch then does."""

    def rule(name: str, text: str, default: str) -> Parsed[str]:
        word = text.lower() if text.isascii() else text
        if word in words or not text:
            return Parsed(word or default)
        listed = f"{', '.join(words[:-1])} or {words[-1]}"
        return Parsed(default, problem(name, text, f"not {listed}; {otherwise}"))

    return rule


_NICENESS = lazy_compile(r"[0-9]|1[0-9]")


def niceness(name: str, text: str, default: str) -> Parsed[int]:
    """A niceness a process may lower itself to: 0 to 19, as `nice` counts."""
    if _NICENESS.fullmatch(text) is None:
        return Parsed(
            int(default),
            problem(name, text, f"not a whole number from 0 to 19; landwatch uses {default}"),
        )
    return Parsed(int(text))


def any_text(name: str, text: str, default: str) -> Parsed[str | None]:
    """The text as it is; empty is none."""
    return Parsed(text or None)


# What no ref's name holds, as git's check-ref-format (no option) says: a control character,
# a space, ~^:?*[\, `..`, `@{`, an empty component, one starting with `.` or ending `.lock`;
# nor does a name start with `/`, or end with `/` or `.`.
_NOT_IN_A_REF = lazy_compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|^\.|\.lock(/|$)|^/|[/.]$")


def is_ref_name(name: str) -> bool:
    """Whether git takes `name` for a ref's name (refs/remotes/origin/main, not a URL's
    refs/remotes/https://h/x/main), as `git check-ref-format` does: no process asked."""
    return name != "@" and "/" in name and _NOT_IN_A_REF.search(name) is None


def remote_name(name: str, text: str, default: str) -> Parsed[str | None]:
    """A remote's name, as `landwatch share` sets it; empty is none, and so is what git takes
    for no remote's name (a URL, a path): its fetch brings the team's reviews, into a tracking
    ref named after it."""
    if not text or is_ref_name(f"refs/remotes/{text}/test"):  # git's valid_remote_name
        return Parsed(text or None)
    # Here alone: a URL's password is not shown (the redaction reads no rule set for it).
    from landwatch.review.secrets.redaction import redact_words

    why = "no remote's name (a URL or a path is none: landwatch share REMOTE names a remote)"
    return Parsed(None, problem(name, redact_words(text), f"{why}; landwatch shares nothing"))


def globs(name: str, text: str, default: str) -> Parsed[tuple[str, ...]]:
    """Globs split at white space, every value's."""
    return Parsed(tuple(text.split()))
