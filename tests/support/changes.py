"""Landed changes for rule tests, written with pygit2 straight into one repository (blobs, trees,
commits: no git process) and read back through the real review.change.Change.

One repository serves the whole test session: objects are content-addressed and every commit
names its parents, so the same files make the same objects and no test sees another's work.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from landwatch.review.change import Change, open_repository

AUTHOR = "T <t@example.com>"
# Every commit is made at this time (2023-11-14): the same files and message, the same commit.
WHEN = 1_700_000_000
_PERSON = re.compile(r"^(?P<name>.*?)\s*<(?P<email>[^<>]*)>$")


@dataclass(frozen=True)
class Entry:
    """A tree entry other than a regular file: what it holds (a symlink's target, a submodule's
    commit id) and its mode."""

    content: bytes
    mode: FileMode


def executable(content: str | bytes) -> Entry:
    """A file with the executable bit (mode 100755)."""
    return Entry(_bytes(content), FileMode.BLOB_EXECUTABLE)


def symlink(target: str) -> Entry:
    """A symbolic link to `target` (mode 120000: its blob holds the target path)."""
    return Entry(target.encode(), FileMode.LINK)


def submodule(commit: str) -> Entry:
    """A submodule at `commit` (a gitlink, mode 160000: no blob, the commit id in the tree)."""
    return Entry(commit.encode(), FileMode.COMMIT)


Content = str | bytes | Entry  # a str is written as UTF-8, as Repo.stage writes it
Files = Mapping[str, Content]
Landing = Mapping[str, Content | None]  # what a commit changes: None deletes a path


class Changes:
    """The session's repository of test changes: commits of given files, and their Change."""

    def __init__(self, git_dir: Path) -> None:
        pygit2.init_repository(git_dir, bare=True)
        self.git_dir = git_dir
        self.repo = open_repository(git_dir)  # the object every review of it is given too

    def tree(self, files: Files) -> pygit2.Oid:
        """The tree holding `files` (paths with slashes make the directories between)."""
        root: dict[str, object] = {}
        for path, content in files.items():
            *directories, name = path.split("/")
            node = root
            for directory in directories:
                child = node.setdefault(directory, {})
                assert isinstance(child, dict), f"{path}: a file is in the way"
                node = child
            node[name] = content
        return self._write(root)

    def _write(self, node: dict[str, object]) -> pygit2.Oid:
        builder = self.repo.TreeBuilder()
        for name, value in node.items():
            if isinstance(value, dict):
                builder.insert(name, self._write(value), FileMode.TREE)
            elif isinstance(value, Entry) and value.mode == FileMode.COMMIT:
                builder.insert(name, pygit2.Oid(hex=value.content.decode()), value.mode)
            elif isinstance(value, Entry):
                builder.insert(name, self.repo.create_blob(value.content), value.mode)
            else:
                assert isinstance(value, str | bytes)
                builder.insert(name, self.repo.create_blob(_bytes(value)), FileMode.BLOB)
        return builder.write()

    def commit(
        self,
        files: Files,
        *,
        parents: Sequence[str] = (),
        message: str = "change\n",
        author: str = AUTHOR,
    ) -> str:
        """A commit of exactly `files` on `parents` (none: a root commit; two: a merge); its id.
        The message is kept as it is given, as `git commit --cleanup=verbatim` keeps it."""
        person = _PERSON.match(author)
        assert person is not None, f"not `Name <email>`: {author!r}"
        signature = pygit2.Signature(person["name"], person["email"], WHEN, 0)
        parent_ids = [pygit2.Oid(hex=parent) for parent in parents]
        oid = self.repo.create_commit(
            None, signature, signature, message, self.tree(files), parent_ids
        )
        return str(oid)

    def change(
        self,
        files: Landing,
        *,
        before: Files | None = None,
        message: str = "change\n",
        author: str = AUTHOR,
    ) -> Change:
        """The Change of a commit landing `files` (None deleting one) on a parent holding
        `before` (no files by default): an ordinary commit, compared against its parent."""
        parent = self.commit(before or {})
        after = landed(before or {}, files)
        return self.change_of(self.commit(after, parents=[parent], message=message, author=author))

    def root(self, files: Files, *, message: str = "change\n", author: str = AUTHOR) -> Change:
        """The Change of a root commit of `files`: compared against the empty tree."""
        return self.change_of(self.commit(files, message=message, author=author))

    def change_of(self, oid: str, base: str | None = None) -> Change:
        """The commit `oid` (against `base` for a landed range) read as the reviewer reads it."""
        commit = self.repo[oid]
        assert isinstance(commit, pygit2.Commit)
        base_commit = self.repo[base] if base is not None else None
        assert base_commit is None or isinstance(base_commit, pygit2.Commit)
        return Change(self.repo, commit, base_commit)

    def branch(self, files: Files | None = None) -> Branch:
        """A line of commits starting with one of `files` (none by default)."""
        return Branch(self, files or {})


class Branch:
    """A line of commits, each landing on the last as a repository grows: for tests of a rule
    across changes in a row (a file that grows, a lockfile left behind, a key rotated)."""

    def __init__(self, changes: Changes, files: Files) -> None:
        self.changes = changes
        self.files: dict[str, Content] = dict(files)
        self.head = changes.commit(self.files)

    def land(self, files: Landing, message: str = "change\n", author: str = AUTHOR) -> Change:
        """Commit `files` (None deleting one) on the branch's last commit; its Change."""
        self.files = landed(self.files, files)
        self.head = self.changes.commit(
            self.files, parents=[self.head], message=message, author=author
        )
        return self.changes.change_of(self.head)


def landed(before: Files, files: Landing) -> dict[str, Content]:
    """The files after a commit changed `files` of `before` (None deleting one)."""
    after = dict(before)
    for path, content in files.items():
        if content is None:
            del after[path]
        else:
            after[path] = content
    return after


def _bytes(content: str | bytes) -> bytes:
    return content.encode() if isinstance(content, str) else content
