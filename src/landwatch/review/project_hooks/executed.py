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

from landwatch.lazy_re import lazy_compile
from landwatch.review.tree_links import followed, link_text


def split(command: str) -> list[str]:
    """A command's words, as a shell splits them (quotes taken away)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def from_root(words: list[str], root: str) -> Iterator[str]:
    """The words of a command that may name a file, as paths from the tree's root (a word from
    `root`, the directory the command runs in): what it may execute of the repository, or hand
    to an interpreter (`python scripts/check.py`); an absolute word, or one from the home, as
    written. A word holding braces is one too: a template lefthook does not know is run as
    written (`tools/{x}.sh`). What a redirection writes to (`> /proc/$PPID/fd/1`) runs nothing."""
    written = False
    for word in words:
        if written or not word or word.startswith("-"):
            written = False
            continue
        written = _WRITES.fullmatch(word) is not None
        if word.startswith(("/", "~")) or not root:
            yield word
        else:
            yield f"{posixpath.normpath(root)}/{word}"


def executed(tree: pygit2.Tree, paths: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Of the paths a hook may run, as the system opens them: every entry of the tree that
    decides what runs (each link on the way, and the file it leads to), and why one may not
    run: it leads where what runs is nothing an approval pins (`beyond`), or it is a link
    leading outside the tree."""
    found: set[str] = set()
    outside: dict[str, None] = {}
    for path in paths:
        why = beyond(tree, path)
        if why is not None:
            outside[why] = None
        if path.startswith(("/", "~")):
            continue  # the system's, or the home's: nothing of the tree
        led = followed(tree, path)
        found.update(led.links)
        if led.is_file() and led.path is not None:
            found.add(led.path)
        if led.path is None and led.links:
            left = led.links[-1]
            text = link_text(tree, left)
            outside[f"{left} is a link to {text}, outside the tree, where nothing is pinned"] = None
    return tuple(sorted(found)), list(outside)


def beyond(tree: pygit2.Tree, path: str) -> str | None:
    """Why a path a configuration names (from the tree's root, absolute, or from the home)
    leads where no approval pins what is there, though it may be the checkout the hooks run in:
    through /proc (/proc/self/cwd is the checkout), out of the tree by `..` (beside it is the
    checkout itself), out of the home (behind the wall, beside the checkout), or by a wildcard
    among an absolute path's directories (the checkout's place has a random name); a line
    saying so, or None: a path of the tree, or of the system."""
    if path.startswith("/"):
        absolute = posixpath.normpath(path)
        if through_proc(absolute):
            return (
                f"{path} leads through /proc back into the checkout the hooks run in, where "
                "nothing is pinned"
            )
        if any(char in posixpath.dirname(absolute) for char in "*?["):
            return (
                f"{path} has a wildcard among its directories, which may match the checkout "
                "the hooks run in (its place has a random name), where nothing is pinned"
            )
        return None
    if _only_up(path):
        return None  # a directory above, which names no file
    if path.startswith("~"):
        if posixpath.normpath(path.partition("/")[2] or ".").split("/")[0] == "..":
            return (
                f"{path} leads out of the home, which behind the wall is beside the checkout "
                "the hooks run in, where nothing is pinned"
            )
        return None
    led = followed(tree, path)
    if led.path is None and not led.links:
        return (
            f"{path} leads out of the tree, where nothing is pinned and the checkout the hooks "
            "run in is reached again"
        )
    return None


# A shell's redirection of output (`>`, `2>>`, `&>`, `>|`): the word after it is written to.
_WRITES = lazy_compile(r"(?:\d*|&)>[>|]?")
# Absolute paths that lead back into the checkout the hooks run in, whatever the wall shows:
# /proc (each process's cwd, root and open files), and the links bubblewrap's /dev holds into it
# (/dev/fd, /dev/stdin). /dev/stdout and /dev/stderr lead to the tool's pipes, which hold
# nothing of the tree: `echo x > /dev/stderr` names no file.
_INTO_PROC = ("/proc", "/dev/fd", "/dev/stdin")


def through_proc(path: str) -> bool:
    """Whether an absolute path leads through /proc (or /dev/fd, /dev/stdin) back into the
    checkout the hooks run in."""
    absolute = posixpath.normpath(path)
    return any(absolute == into or absolute.startswith(f"{into}/") for into in _INTO_PROC)


def _only_up(path: str) -> bool:
    """Whether `path` (a `~` word's from its home) names a directory above and nothing in it
    (`..`, `web/../..`): a command may go there, and runs nothing of it by that word."""
    rest = path.partition("/")[2] if path.startswith("~") else path
    return set(posixpath.normpath(rest or ".").split("/")) <= {".", ".."}
