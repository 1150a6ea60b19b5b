"""A project's past for tests that learn from it: many commits (messages, authors, files) written
by one `git fast-import` process, where a commit each would start a few git processes apiece.

The commits land on a branch of a real repository (support.repos.Repo), on top of what it holds,
and its index and worktree follow, so commits made after them see them as git would.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pygit2
from pygit2.enums import CheckoutStrategy

from support.queue import git_env
from support.repos import Repo

AUTHOR = "T <t@example.com>"


@dataclass(frozen=True)
class Commit:
    """One commit of a history: its message (kept as it is), author and the files it changes
    (a str is written as UTF-8; None deletes a path)."""

    message: str
    files: Mapping[str, str | bytes | None] = field(default_factory=dict)
    author: str = AUTHOR


def write_history(repo: Repo, commits: Sequence[Commit], *, branch: str = "main") -> str:
    """Commit `commits` in order on `branch` of `repo`, after its last commit if it has one, a
    second apart up to now (what is committed next is newer); the branch's new head, checked
    out when it is HEAD's branch."""
    worktree = pygit2.Repository(str(repo.path))
    tip = worktree.references.get(f"refs/heads/{branch}")
    parent = str(tip.target) if tip is not None else None
    marks = repo.path.parent / f".{repo.path.name}-marks"
    started = int(time.time()) - len(commits)
    stream = bytearray()
    for number, commit in enumerate(commits, 1):
        stream += _commit(commit, branch, number, started + number, parent)
    subprocess.run(
        ["git", "fast-import", "--quiet", "--date-format=raw", f"--export-marks={marks}"],
        cwd=repo.path,
        input=bytes(stream),
        env=git_env(),
        check=True,
        capture_output=True,
    )
    head = marks.read_text().split()[-1]  # ":N oid" lines, the last commit's last
    marks.unlink()
    if not worktree.head_is_unborn and worktree.head.shorthand == branch:
        # fast-import moves the branch only: the index and files follow, as after a commit.
        worktree.checkout(f"refs/heads/{branch}", strategy=CheckoutStrategy.FORCE)
    return head


def _commit(commit: Commit, branch: str, mark: int, when: int, parent: str | None) -> bytes:
    """The fast-import commands of one commit, marked `mark`; the first names its parent (none:
    the branch starts with it), the others follow on the branch."""
    message = commit.message.encode()
    lines = [
        f"commit refs/heads/{branch}".encode(),
        f"mark :{mark}".encode(),
        f"author {commit.author} {when} +0000".encode(),
        f"committer {commit.author} {when} +0000".encode(),
        b"data %d" % len(message),
        message,
    ]
    if mark == 1 and parent is not None:
        lines.append(f"from {parent}".encode())
    for path, content in commit.files.items():
        assert "\n" not in path and not path.startswith('"'), f"a path to quote: {path!r}"
        if content is None:
            lines.append(f"D {path}".encode())
            continue
        data = content.encode() if isinstance(content, str) else content
        lines += [f"M 100644 inline {path}".encode(), b"data %d" % len(data), data]
    return b"\n".join(lines) + b"\n\n"


def history(repo: Repo, subjects: list[str]) -> str:
    """A commit per subject on `repo`, each changing one of seven files: one git process."""
    commits = [
        # The message as `git commit` leaves it, its last line ended.
        Commit(f"{subject}\n", {f"f{n % 7}.txt": f"{n}\n"})
        for n, subject in enumerate(subjects)
    ]
    return write_history(repo, commits)
