"""The entry points installed packages declare in one group (plug-in rules, kinds), looked up
through importlib.metadata only when some package on the import path could declare one.

importlib.metadata costs 15-20 ms to import and scan (it parses every package's metadata); a
review by hand pays that for plug-ins nearly nobody installs. Its own layout is read first:
each directory on the path, each `*.dist-info`/`*.egg-info` there, and that one's
`entry_points.txt`. Where that look cannot be sure (a zip on the path, another finder of
distributions), importlib.metadata is asked as before.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

# Where packages keep their metadata on a path entry, as importlib.metadata's finder reads it.
_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_ENTRY_POINTS = "entry_points.txt"


def entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of `group` that installed packages declare, as importlib.metadata
    finds them; none, without importing it, when no package on the path names the group."""
    if not _could_declare(group, sys.path):
        return []
    import importlib.metadata

    return list(importlib.metadata.entry_points(group=group))


def _could_declare(group: str, path: list[str]) -> bool:
    """Whether a package found on `path` might declare an entry point in `group`: False only
    when every entry is a directory and no metadata in it names the group's section."""
    if any(_other_finder(finder) for finder in sys.meta_path):
        return True
    section = f"[{group}]".encode()
    for entry in path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return True  # a zip of packages: importlib.metadata reads inside it
        except OSError:
            continue  # gone or unreadable: importlib.metadata finds nothing there either
        for name in names:
            if name.endswith(_METADATA_SUFFIXES) and section in _declared(entry, name):
                return True
    return False


def _declared(entry: str, name: str) -> bytes:
    """The bytes of one package's entry_points.txt, or nothing when it has none."""
    try:
        with open(os.path.join(entry or ".", name, _ENTRY_POINTS), "rb") as file:
            return file.read()
    except OSError:
        return b""


def _other_finder(finder: object) -> bool:
    """A finder of distributions other than the standard one, which reads only sys.path."""
    from importlib.machinery import PathFinder

    return finder is not PathFinder and hasattr(finder, "find_distributions")
