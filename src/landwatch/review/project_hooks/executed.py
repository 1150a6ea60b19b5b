"""What a hook's command executes of the landed tree, as far as its words name it: each word that
may be a path, followed as the system opens it (review.tree_links.followed), every link on the way
and the file it leads to; and why one names what no approval can pin.

Nothing here runs anything.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterator

import pygit2

from landwatch.review.project_hooks.values import MAX_WORDS
from landwatch.review.tree_links import followed, link_text


def split(command: str) -> list[str]:
    """A command's words, as a shell splits them (quotes taken away)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def from_root(words: list[str], root: str) -> Iterator[str]:
    """The words of a command that may name a file of the tree, as paths from the tree's root
    (a word from `root`, the directory the command runs in): what it may execute of the
    repository, or hand to an interpreter (`python scripts/check.py`). A word holding braces is
    one too: a template lefthook does not know is run as written (`tools/{x}.sh`)."""
    for word in words[:MAX_WORDS]:
        if word and not word.startswith(("-", "/")):
            yield f"{posixpath.normpath(root or '.')}/{word}"


def executed(tree: pygit2.Tree, paths: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Of the paths a hook may run, as the system opens them: every entry of the tree that
    decides what runs (each link on the way, and the file it leads to), and why one may not
    run: a link leading outside the tree, where what runs is nothing an approval pins."""
    found: set[str] = set()
    outside: dict[str, None] = {}
    for path in paths:
        led = followed(tree, path)
        found.update(led.links)
        if led.is_file() and led.path is not None:
            found.add(led.path)
        if led.path is None and led.links:  # (without a link, `..` names nothing of the tree)
            left = led.links[-1]
            text = link_text(tree, left)
            outside[f"{left} is a link to {text}, outside the tree, where nothing is pinned"] = None
    return tuple(sorted(found)), list(outside)
