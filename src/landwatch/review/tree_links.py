"""Where a path of a committed tree leads as the system opens it in a checkout, every link on
the way followed: what a hook or a linter would really read, found without a checkout."""

from __future__ import annotations

import posixpath
from typing import NamedTuple

import pygit2
from pygit2.enums import FileMode


def link_text(tree: pygit2.Tree, path: str) -> str:
    """What the link at `path` points at, as written."""
    entry = tree[path]
    return entry.data.decode("utf-8", "replace") if isinstance(entry, pygit2.Blob) else ""


# The links followed in one path before it leads nowhere, as Linux gives up (ELOOP).
MAX_LINKS = 40


class Followed(NamedTuple):
    """Where a path of a tree leads as the system opens it in a checkout: every link on the
    way followed (a directory's too), `..` taken where the walk really is."""

    path: str | None  # None: outside the tree (a link to an absolute path, `..` past the root)
    links: tuple[str, ...] = ()  # the links passed through, in order
    mode: int | None = None  # what is there (FileMode); None: nothing, or links in a circle
    oid: str = ""  # its object

    def is_file(self) -> bool:
        return self.mode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)


def followed(tree: pygit2.Tree, path: str) -> Followed:
    """Where `path` (from the root) leads in `tree`, following links at most MAX_LINKS times."""
    pending = path.split("/")
    at: list[str] = []  # the directories walked so far: no link among them
    links: list[str] = []
    mode, oid = int(FileMode.TREE), str(tree.id)
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not at:
                return Followed(None, tuple(links))
            at.pop()
            mode, oid = int(FileMode.TREE), ""
            continue
        here = "/".join([*at, part])
        try:
            entry = tree[here]
        except (KeyError, ValueError):
            return Followed(posixpath.normpath("/".join([here, *pending])), tuple(links))
        if entry.filemode == FileMode.LINK and isinstance(entry, pygit2.Blob):
            links.append(here)
            target = entry.data.decode("utf-8", "replace")
            if target.startswith("/") or len(links) > MAX_LINKS:
                return Followed(None if target.startswith("/") else here, tuple(links))
            pending = target.split("/") + pending
            continue
        if pending and entry.filemode != FileMode.TREE:
            return Followed(here, tuple(links))  # a file, or a submodule, is no directory
        at.append(part)
        mode, oid = int(entry.filemode), str(entry.id)
    return Followed("/".join(at) or ".", tuple(links), mode, oid)
