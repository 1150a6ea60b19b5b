"""Reading one landed change through pygit2: a commit against its first parent, a root commit, a
merge, or a landed range `base..oid`, decided from the deltas before any patch is generated.

Patches are made per file, lazily, and line-level work stops at a cap (recorded as truncated).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2
from pygit2.enums import AttrCheck, ObjectType

from landwatch.errors import UserError
from landwatch.review.binary import looks_binary as looks_binary  # importable here, as it was
from landwatch.review.blobs import MISSING_CONTENT, blob_data, blob_size
from landwatch.review.diffs import (
    Line,
    added_in,
    diffed_as_binary,
    in_a_parent,
    lines_beyond,
    text_patch,
    tree_diff,
)
from landwatch.review.message import Message

if TYPE_CHECKING:  # a file too large to hold alone reads it
    from landwatch.review.large_files import Reader

# Files larger than this get no line-level work (tree rules still see their size); the push
# gate's scan reads such a text file a piece at a time (review.large_files).
MAX_LINE_CHECK_BYTES = 8 * 1024 * 1024
TOO_LARGE = f"larger than {MAX_LINE_CHECK_BYTES // (1 << 20)} MB"  # why no line was read
# The largest tree libgit2 keeps parsed (its default is 4 KB, a hundred entries): a path looked up
# in a larger directory parsed it again, so finding each file of a 3,000-file directory took 1.3 s,
# quadratic in its size. The cache's total stays libgit2's (256 MB), dropping what is least used.
LARGEST_TREE_KEPT = 4 << 20
pygit2.settings.cache_object_limit(ObjectType.TREE, LARGEST_TREE_KEPT)
MODE_SYMLINK = 0o120000
MODE_SUBMODULE = 0o160000
MODE_EXECUTABLE = 0o100755


class FileStatus(enum.StrEnum):
    """What the diff did to a file (git's status letters)."""

    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"
    RENAMED = "R"
    COPIED = "C"
    TYPE_CHANGED = "T"


class ChangeShape(enum.StrEnum):
    """What landed: one commit against its parent, a root commit, a merge, or a range."""

    COMMIT = "commit"
    ROOT = "root"
    MERGE = "merge"
    RANGE = "range"


# How a merge is read (`merges`): against its first parent, all it brought in; or, "skip" (what
# it brought in left to the commits that brought it), only what none of its parents has: its
# own lines, a conflict's resolution or anything added in the merge itself (`landwatch ci`'s).
MERGES = FIRST_PARENT, ITS_OWN = ("first-parent", "skip")
ITS_OWN_NOTE = "a merge: only what none of its parents has is reviewed, not what it brought in"


class ChangeError(UserError):
    """The repository or revision cannot be read; one line for a person."""


@dataclass
class FileChange:
    """One file of the change, as its delta says, with its added lines read on demand."""

    status: FileStatus
    path: str
    old_path: str | None
    old_mode: int
    new_mode: int
    old_id: str | None
    new_id: str | None
    old_size: int
    new_size: int
    similarity: int
    _change: Change = field(repr=False)
    _index: int = field(repr=False)
    _lines: list[Line] | None = field(default=None, repr=False)
    # Git would not diff it as text (an attribute, a NUL), or it looks binary: no rule but the
    # secret rules reads its lines, and those only where it is text after all (`encoding`).
    binary: bool = False
    encoding: str | None = "utf-8"  # its text's (UTF-16 is read decoded); None: it holds none
    lacks_final_newline: bool = False
    unchecked_lines: str | None = None  # why no line-level work was done, if it was not

    @property
    def deleted(self) -> bool:
        return self.status is FileStatus.DELETED

    @property
    def change(self) -> Change:
        """The change the file is part of: its tree's attributes and declarations."""
        return self._change

    @property
    def is_symlink(self) -> bool:
        return self.new_mode == MODE_SYMLINK

    @property
    def is_submodule(self) -> bool:
        return self.new_mode == MODE_SUBMODULE

    @property
    def unread_text(self) -> bool:
        """Whether it is text whose lines were not read for its size: its change was not read
        whole, and the push gate's scan reads it (review.large_files)."""
        return self.unchecked_lines == TOO_LARGE and self.encoding is not None

    @property
    def added_lines(self) -> list[Line]:
        """The added lines every rule reads: none of a binary file."""
        lines = self._read_patch()
        return [] if self.binary else lines

    @property
    def secret_lines(self) -> list[Line]:
        """The added lines the secret rules read: a binary file's too where it is text all the
        same (an attribute said not to diff it; UTF-16, decoded)."""
        return self._read_patch()

    @property
    def read_as_text(self) -> bool:
        """Whether the change to the file was read as lines of text: not binary, and not left
        unread (too large, past the line cap). Git keeps a text file's versions as deltas."""
        self._read_patch()  # reading the patch is what tells binary from text
        return not self.binary and self.unchecked_lines is None

    def _read_patch(self) -> list[Line]:
        """The added lines, read from the patch the first time anything asks."""
        if self._lines is None:
            self._lines = self._change._read_lines(self)
        return self._lines

    def new_content(self) -> bytes | None:
        """The committed content of the file (None when deleted, a submodule, too large, or
        not in the repository)."""
        if self.new_id is None or self.is_submodule or self.new_size > MAX_LINE_CHECK_BYTES:
            return None
        data = blob_data(self._change.repo, self.new_id)
        if data is None:
            self.unchecked_lines = MISSING_CONTENT
        return data

    def old_content(self) -> bytes | None:
        if self.old_id is None or self.old_mode == MODE_SUBMODULE:
            return None
        if self.old_size > MAX_LINE_CHECK_BYTES:
            return None
        return blob_data(self._change.repo, self.old_id)


class Change:
    """What landed: the files of the diff and the message of the landed commit."""

    def __init__(
        self,
        repo: pygit2.Repository,
        commit: pygit2.Commit,
        base: pygit2.Commit | None,
        *,
        merges: str = FIRST_PARENT,
        max_added_lines: int = 20_000,
    ) -> None:
        self.repo = repo
        self.commit = commit
        self.base = base
        self.max_added_lines = max_added_lines
        self.lines_read = 0
        self.truncated = False
        self.reader: Reader | None = None  # how git is read for such a file (review.large_files)
        if base is not None:
            self.shape = ChangeShape.RANGE
            old_tree: pygit2.Tree | None = base.tree
        elif not commit.parents:
            self.shape = ChangeShape.ROOT
            old_tree = None
        else:
            self.shape = ChangeShape.MERGE if len(commit.parents) > 1 else ChangeShape.COMMIT
            old_tree = commit.parents[0].tree
        # A merge read for its own: its other parents' trees, which each file and line lacks too.
        # `git merge` lands as a range from ORIG_HEAD: one merge on that base is read the same.
        one_merge = len(commit.parents) > 1 and (base is None or commit.parents[0].id == base.id)
        own = merges == ITS_OWN and one_merge
        self.other_parents = [parent.tree for parent in commit.parents[1:]] if own else []
        self.notes = [ITS_OWN_NOTE] if own else []  # how it was read, for the review's notes
        # The tree the change was made on: the base's, the first parent's, none for a root.
        self.tree_before = old_tree
        self.diff, self._prefix = tree_diff(old_tree, commit.tree)
        files = [self._file(i, d) for i, d in enumerate(self.diff.deltas)]
        self.files = [
            f for f in files if not in_a_parent(self.other_parents, f.path, f.new_id, f.new_mode)
        ]
        self.message = Message(commit.raw_message, commit.author.name, commit.author.email)

    def _file(self, index: int, delta: pygit2.DiffDelta) -> FileChange:
        old, new = delta.old_file, delta.new_file
        status = FileStatus(delta.status_char())
        deleted = status is FileStatus.DELETED
        new_id = None if deleted else str(new.id)
        old_id = None if status is FileStatus.ADDED else str(old.id)
        return FileChange(
            status=status,
            path=self._prefix + (old.path if deleted else new.path),
            old_path=None if status is FileStatus.ADDED else self._prefix + old.path,
            old_mode=old.mode,
            new_mode=0 if deleted else new.mode,
            old_id=old_id,
            new_id=new_id,
            old_size=self._size(old_id, old.mode),
            new_size=self._size(new_id, new.mode),
            similarity=delta.similarity,
            _change=self,
            _index=index,
        )

    def _size(self, oid: str | None, mode: int) -> int:
        if oid is None or mode == MODE_SUBMODULE:
            return 0
        return blob_size(self.repo, oid) or 0

    def _read_lines(self, file: FileChange) -> list[Line]:
        if file.deleted or file.is_submodule:
            return []
        if file.new_size > MAX_LINE_CHECK_BYTES:
            from landwatch.review.large_files import sniffed  # for such a file alone

            file.unchecked_lines = TOO_LARGE
            file.binary, file.encoding = sniffed(file)
            return []
        if self.truncated:
            file.unchecked_lines = "line cap reached"
            return []
        try:
            patch = self.diff[file._index]
        except (KeyError, pygit2.GitError):
            file.unchecked_lines = MISSING_CONTENT
            return []
        if patch is None:
            return []
        lines: list[Line] = []
        # libgit2's diff asks the index's attributes too; the commit's own say what it is.
        said = self.attribute(file.path, "diff")
        contents: tuple[bytes | None, bytes | None] | None = None  # its blobs, read once
        if not patch.delta.is_binary:
            binary = said is False
            lines, file.lacks_final_newline = added_in(patch)
        else:
            contents = old, new = file.old_content(), file.new_content()
            binary = diffed_as_binary(said, old, new)
            text = None if binary or new is None else text_patch(old, new)
            if text is not None:
                lines, file.lacks_final_newline = added_in(text.patch)
        # git calls text what has no NUL early on; compressed data often has none. A magic
        # number counts only as the file's first bytes, not at an added line further down.
        sample = b"\n".join(line.raw for line in lines[:256])
        if binary or (lines and looks_binary(sample, at_start=lines[0].number == 1)):
            # Binary to every rule but the secret rules, which read its text where it is text:
            # git takes an attribute's word (`-diff`, `binary`), and UTF-16's NULs, for binary.
            file.binary, file.lacks_final_newline = True, False
            old, new = contents or (file.old_content(), file.new_content())
            text = None if new is None else text_patch(old, new)
            file.encoding = None if text is None else text.encoding
            lines = [] if text is None else added_in(text.patch)[0]
        if self.other_parents and file.new_id is not None:
            beyond = lines_beyond(self.repo, self.other_parents, file.path, file.new_id)
            lines = lines if beyond is None else [line for line in lines if line.number in beyond]
            file.lacks_final_newline &= any(not line.end for line in lines)
        if self.lines_read + len(lines) > self.max_added_lines:
            lines = lines[: self.max_added_lines - self.lines_read]
            self.truncated = True
        self.lines_read += len(lines)
        return lines

    @property
    def read_whole(self) -> bool:
        """Whether every line the review was to read was read: none past the cap, no text file
        left for its size (a file nobody asked the lines of is not counted)."""
        return not self.truncated and not any(file.unread_text for file in self.files)

    def tree_paths(self) -> Iterator[str]:
        """Every path in the landed tree (for clashes with paths already there)."""
        stack: list[tuple[str, pygit2.Tree]] = [("", self.commit.tree)]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                path = prefix + (entry.name or "")
                yield path
                if entry.type == ObjectType.TREE:
                    sub = self.repo[entry.id]
                    assert isinstance(sub, pygit2.Tree)
                    stack.append((path + "/", sub))

    def attribute(self, path: str, name: str) -> str | bool | None:
        """A gitattribute of `path` as the landed commit says: its value (`filter=lfs`), True
        where it is set (`text`), False where unset (`-text`), None where unspecified."""
        try:
            value = self.repo.get_attr(path, name, flags=_ATTRIBUTES, commit=str(self.commit.id))
        except (pygit2.GitError, ValueError):
            return None
        return value if isinstance(value, str | bool) else None

    def has_file(self, path: str) -> bool:
        """Whether the landed tree holds a file at `path` (nothing read)."""
        try:
            return self.commit.tree[path].type_str == "blob"
        except KeyError:
            return False

    def file_at(self, path: str) -> bytes | None:
        """A file of the landed tree (configuration is read from here, never the worktree); None
        past MAX_LINE_CHECK_BYTES, as for a changed file: a tree's 1 GB lockfile is not read."""
        if not self.has_file(path):
            return None  # absent, a directory or a submodule
        oid = self.commit.tree[path].id
        size = blob_size(self.repo, oid)
        if size is None or size > MAX_LINE_CHECK_BYTES:
            return None
        return blob_data(self.repo, oid)

    @property
    def label(self) -> str:
        return label_of(str(self.commit.id), str(self.base.id) if self.base is not None else None)


def label_of(commit: str, base: str | None = None) -> str:
    """How a report names what it reviewed: the commit, or the landed range `base..commit`."""
    return f"{base[:12]}..{commit[:12]}" if base is not None else commit[:12]


_repositories: dict[str, pygit2.Repository] = {}
# Bare, libgit2 reads nothing of the worktree (a diff asks each file's attributes: a checked-out
# `.gitattributes` link to a FIFO waited for ever); a commit's attributes are its own, both source
# bits set, not the index's either (an audit: one only staged changed a landed commit's review).
_BARE = pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.BARE
_NEITHER = AttrCheck.INDEX_THEN_FILE | AttrCheck.INDEX_ONLY  # both source bits: no file, no index
_ATTRIBUTES = _NEITHER | AttrCheck.INCLUDE_COMMIT | AttrCheck.NO_SYSTEM


def open_repository(git_dir: os.PathLike[str] | str) -> pygit2.Repository:
    """Open (and keep, in a warm worker) the repository of a worktree's git dir.

    libgit2's ownership check stays on: a repository not owned by the user is refused.
    """
    key = os.path.abspath(git_dir)
    if key not in _repositories:
        try:
            _repositories[key] = pygit2.Repository(key, _BARE)
        except pygit2.GitError as error:
            message = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
            if "not owned by current user" in message:
                message = (
                    f"{Path(key)} is not owned by you; landwatch will not read it "
                    "(git refuses it too: see git config safe.directory)"
                )
            raise ChangeError(message) from None
    return _repositories[key]


def resolve(repo: pygit2.Repository, revision: str) -> pygit2.Commit:
    try:
        found = repo.revparse_single(revision)
        commit = found.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        raise ChangeError(f"no commit {revision!r} in this repository") from None
    assert isinstance(commit, pygit2.Commit)
    return commit
