"""What a manifest asks for and what its lockfile holds, for the rule keeping lockfiles in step
(manifest-lockfile): `manifests` reads the dependency names with the version each asks (where it
is one the lockfile must satisfy), `lockfiles` the versions locked, and `versions` tells whether
a locked version satisfies what is asked.

Readers return None when they cannot read a file: the rule then says nothing (a syntax error
is another rule's). Versions are checked for npm and Cargo ranges and Go's exact ones; other
ecosystems are checked by name only. Here: the names both sides speak.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Wanted = dict[str, str | None]  # dependency name -> version range to satisfy (None: any)
Locked = dict[str, set[str]]  # dependency name -> versions the lockfile holds


def entries(data: dict[str, Any], sections: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    """(name, value) from each of `sections` of `data` that is a table; any other is skipped."""
    for section in sections:
        table = data.get(section)
        if isinstance(table, dict):
            yield from table.items()


def python_name(name: str) -> str:
    """PEP 503's normal form: `Flask_SQLAlchemy` and `flask-sqlalchemy` are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()
