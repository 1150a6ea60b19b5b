"""A hook manager's configuration read without trusting its shape: the mappings of a list, a
string or a list of strings, a scalar as text, each bounded, so that a hostile configuration (a
YAML alias bomb repeats one mapping endlessly) costs a bounded walk.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAX_HOOKS = 500
MAX_WORDS = 64  # of a list of words (`args:`, `extends:`, `stages:`)


def mappings(value: Any) -> Iterator[dict[Any, Any]]:
    if isinstance(value, list):
        for item in value[:MAX_HOOKS]:
            if isinstance(item, dict):
                yield item


def words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value[:MAX_WORDS] if isinstance(item, str | int | float)]
    return []


def text(value: Any) -> str:
    return str(value) if isinstance(value, str | int | float) else ""
