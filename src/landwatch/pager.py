"""The person's pager, chosen as git chooses it: $GIT_PAGER, then core.pager of their own git
configuration, then $PAGER, then git's own default; `less` as `less -FRX` (LESS=FRX unless they
set LESS), so a text that fits the screen is printed and not paged.

A repository's configuration is never asked: `git var GIT_PAGER` runs in an empty directory of
its own, outside every repository, since a `.git/config` that came with a copied repository could
name any program as its pager. Nothing is paged where stdout is no terminal, or the pager is
`cat` or empty (as git does).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from typing import TextIO

# The pager when git cannot say (not installed, or it failed).
DEFAULT = "less"
# What git puts in the environment of its pager, unless the person set them.
PAGER_ENV = {"LESS": "FRX", "LV": "-c"}
# Variables that point git at a repository: the pager is asked outside every one.
_REPOSITORY_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_PREFIX")
# What sh answers when it cannot find the command it was given.
_NOT_FOUND = 127


def command() -> str | None:
    """The pager's command (a line for `sh -c`, as git runs it); None when nothing pages."""
    chosen = os.environ.get("GIT_PAGER")
    if chosen is None:
        chosen = _asked_git()
    if chosen is None:
        chosen = os.environ.get("PAGER", DEFAULT)
    chosen = chosen.strip()
    return None if chosen in ("", "cat") else chosen


def _asked_git() -> str | None:
    """`git var GIT_PAGER` outside every repository: the person's core.pager, $PAGER, git's
    default; None when git cannot answer."""
    env = {key: value for key, value in os.environ.items() if key not in _REPOSITORY_ENV}
    with tempfile.TemporaryDirectory(prefix="landwatch-pager-") as empty:
        env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(empty)
        try:
            found = subprocess.run(
                ["git", "var", "GIT_PAGER"],
                cwd=empty,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=10,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    return found.stdout.strip() if found.returncode == 0 else None


def pages(out: TextIO) -> bool:
    """Whether what is written to `out` would go through a pager: a terminal, and a pager."""
    return _is_terminal(out) and command() is not None


def page(text: str, out: TextIO) -> None:
    """`text` shown through the pager where `out` is a terminal and there is one, else written
    to `out`; written to `out` too when the pager could not be started."""
    pager = command() if _is_terminal(out) else None
    if pager is None or not _paged(pager, text, out):
        out.write(text)
        out.flush()


def _paged(pager: str, text: str, out: TextIO) -> bool:
    """`text` through `pager` (its output on `out`'s terminal); False when it could not start."""
    env = {**PAGER_ENV, **os.environ}
    out.flush()
    try:
        # Started away from the repository: nothing of it is in the pager's reach (a `less`
        # reading a key file of the directory it runs in, a pager given relative paths).
        process = subprocess.Popen(
            ["/bin/sh", "-c", pager], stdin=subprocess.PIPE, stdout=out, env=env, cwd="/"
        )
    except OSError:
        return False
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError):  # the person quit before the end
        process.stdin.write(text.encode("utf-8", "surrogateescape"))
    with contextlib.suppress(BrokenPipeError):
        process.stdin.close()
    return process.wait() != _NOT_FOUND


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except ValueError:  # closed
        return False
