"""A hook manager's configuration read without trusting its shape: the mappings of a list, a
string or a list of strings, a scalar as text, each bounded, so that a hostile configuration (a
YAML alias bomb repeats one mapping endlessly) costs a bounded walk.

Past a bound, TooMany: what is left unread may run (a 501st hook, a 65th word of `args:`), so
its configuration runs nothing and says why, rather than run what was never pinned.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAX_HOOKS = 500
MAX_WORDS = 500  # of a list of words (`args:`, `extends:`, `stages:`)


class TooMany(Exception):
    """A configuration holds more of something than is read: str() says what, and how many."""


def at_most(count: int, most: int, what: str) -> None:
    """TooMany when `count` of `what` is past `most`."""
    if count > most:
        raise TooMany(f"more than {most:,} {what}")


def mappings(value: Any) -> Iterator[dict[Any, Any]]:
    if isinstance(value, list):
        at_most(len(value), MAX_HOOKS, "entries in one list")
        for item in value:
            if isinstance(item, dict):
                yield item


def words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        at_most(len(value), MAX_WORDS, "words in one list")
        return [str(item) for item in value if isinstance(item, str | int | float)]
    return []


def text(value: Any) -> str:
    return str(value) if isinstance(value, str | int | float) else ""
