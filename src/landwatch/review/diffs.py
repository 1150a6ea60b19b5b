"""The diffs a landed change is read from: two trees' (renames found, taken in the deepest
directory they differ in), and of a merge, what none of its parents has: its own files and lines
(a conflict's resolution, a file added in the merge itself), as git's combined diff shows them;
and whether a place of a merge is what it brought in (`BroughtIn`: copied secrets, the push gate);
the added lines a patch holds (`Line`, what every line rule reads).

Apart from review.change, which reads a change's files and lines through these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import pygit2
from pygit2.enums import DiffFind, DiffOption

from landwatch.review.binary import SNIFF_BYTES, as_text


@dataclass(frozen=True)
class Line:
    """A line a patch adds, as its bytes and line end (the rules read these)."""

    number: int  # in the new file
    raw: bytes  # without the line end (a CR of CRLF stays)
    end: bytes  # b"\n", b"\r\n" or b"" for a last line without one

    @cached_property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


def added_in(patch: pygit2.Patch) -> tuple[list[Line], bool]:
    """The lines `patch` adds, each without its line end, and whether its new file lacks a
    final newline."""
    lines: list[Line] = []
    lacks_final_newline = False
    for hunk in patch.hunks:
        for diff_line in hunk.lines:
            origin = diff_line.origin
            if origin == "+":
                raw = diff_line.raw_content
                if raw.endswith(b"\r\n"):
                    lines.append(Line(diff_line.new_lineno, raw[:-2], b"\r\n"))
                elif raw.endswith(b"\n"):
                    lines.append(Line(diff_line.new_lineno, raw[:-1], b"\n"))
                else:
                    lines.append(Line(diff_line.new_lineno, raw, b""))
            elif origin in ("<", "="):
                lacks_final_newline = True
    return lines, lacks_final_newline


def tree_diff(old_tree: pygit2.Tree | None, new_tree: pygit2.Tree) -> tuple[pygit2.Diff, str]:
    """The diff of two trees (renames found), and the directory it was taken in (`` or `a/b/`):
    its deltas' paths are relative to that directory.

    libgit2 visits every entry of both trees, unchanged subtrees included (9 ms for 100,000
    files). So the diff is taken in the deepest directory outside which the two trees are the
    same: the same deltas, renames included (nothing moved across its edge, or its outside would
    differ), for what the change costs instead of what the repository weighs.
    """
    flags = DiffOption.INCLUDE_TYPECHANGE | DiffOption.INDENT_HEURISTIC
    prefix = ""
    if old_tree is None:
        diff = new_tree.diff_to_tree(swap=True, flags=flags, context_lines=0)
    else:
        while old_tree.id != new_tree.id:
            old_entries = {str(entry.name): (entry.id, entry.filemode) for entry in old_tree}
            new_entries = {str(entry.name): (entry.id, entry.filemode) for entry in new_tree}
            differing = [
                name
                for name in old_entries.keys() | new_entries.keys()
                if old_entries.get(name) != new_entries.get(name)
            ]
            if len(differing) != 1 or differing[0] not in old_entries.keys() & new_entries.keys():
                break
            old_entry, new_entry = old_tree[differing[0]], new_tree[differing[0]]
            if not isinstance(old_entry, pygit2.Tree) or not isinstance(new_entry, pygit2.Tree):
                break
            old_tree, new_tree = old_entry, new_entry
            prefix += differing[0] + "/"
        diff = old_tree.diff_to_tree(new_tree, flags=flags, context_lines=0)
    diff.find_similar(DiffFind.FIND_RENAMES, rename_threshold=50, rename_limit=1000)
    return diff, prefix


class TextPatch(NamedTuple):
    """The patch of a file's versions read as text, what its new one's text is in, and the
    texts: libgit2's lines point into them, and pygit2 keeps no reference to a buffer diffed, so
    they are held as long as the patch (freed, a line read what was written there since)."""

    patch: pygit2.Patch
    encoding: str
    texts: tuple[bytes, bytes]


def text_patch(old: bytes | None, new: bytes) -> TextPatch | None:
    """The patch of a file's versions `old` (None: none) and `new` read as text (binary.as_text:
    UTF-16 decoded), whatever git's attributes say of them; None where `new` is binary. An `old`
    that is binary is taken for none: every line of `new` is added."""
    text = as_text(new)
    if text is None:
        return None
    before = as_text(old) if old is not None else None
    flags = DiffOption.FORCE_TEXT | DiffOption.INDENT_HEURISTIC
    old_text = before.data if before is not None else b""
    patch = pygit2.Patch.create_from(old_text, text.data, flag=flags, context_lines=0)
    return TextPatch(patch, text.encoding, (old_text, text.data))


def diffed_as_binary(said: str | bool | None, old: bytes | None, new: bytes | None) -> bool:
    """Whether git diffs a file's versions `old` and `new` as binary, by the landed commit's
    `diff` attribute (`said`): unset, binary; set, text; else a NUL early in either (git's test)."""
    if isinstance(said, bool):
        return not said
    return any(data is not None and b"\0" in data[:SNIFF_BYTES] for data in (old, new))


def in_a_parent(others: Sequence[pygit2.Tree], path: str, oid: str | None, mode: int) -> bool:
    """Whether one of `others` (a merge's other parents' trees) holds `path` as the merge does
    (blob `oid` in `mode`; none, where the merge deleted it): the merge brought it in."""
    for tree in others:
        try:
            entry = tree[path]
        except KeyError:
            if oid is None:
                return True
            continue
        if oid is not None and str(entry.id) == oid and entry.filemode == mode:
            return True
    return False


def lines_beyond(
    repo: pygit2.Repository, others: Sequence[pygit2.Tree], path: str, oid: str
) -> set[int] | None:
    """The numbers of the lines of the merge's `path` (blob `oid`) that every one of `others`
    lacks, each diffed as the first parent is (a line one parent has, the merge brought in);
    None where none of them holds the file: every line is beyond them."""
    new = repo[oid]
    beyond: set[int] | None = None
    for tree in others:
        try:
            old = repo[tree[path].id]
            if not isinstance(old, pygit2.Blob) or not isinstance(new, pygit2.Blob):
                continue
            text = text_patch(old.data, new.data)  # as the change's lines were read: decoded
        except (KeyError, ValueError, pygit2.GitError):
            continue  # not there, or not readable (a partial clone): every line is beyond it
        if text is None:
            return set()  # binary: no line of it was read
        added = {
            line.new_lineno
            for hunk in text.patch.hunks
            for line in hunk.lines
            if line.origin == "+"
        }
        beyond = added if beyond is None else beyond & added
    return beyond


class BroughtIn:
    """Whether a place of `merge` (a path, a line of it) is what the merge brought in from its
    other parents, as its own files and lines (in_a_parent, lines_beyond) tell it apart: what a
    review read against the first parent holds beside its own. Each file's lines read once."""

    def __init__(self, repo: pygit2.Repository, merge: pygit2.Commit) -> None:
        self.repo = repo
        self.tree = merge.tree
        self.others = [parent.tree for parent in merge.parents[1:]]
        self._beyond: dict[str, set[int] | None] = {}

    def holds(self, path: str | None, line: int | None) -> bool:
        """Whether `path` (at `line`; None: the file as a whole) came from another parent. A place
        it cannot tell (none, as a message's; not a file of the merge) is the merge's own."""
        if path is None or not self.others:
            return False
        try:
            entry = self.tree[path]
        except KeyError:
            return False
        oid = str(entry.id)
        if in_a_parent(self.others, path, oid, entry.filemode):
            return True
        if line is None:
            return False
        if path not in self._beyond:
            self._beyond[path] = lines_beyond(self.repo, self.others, path, oid)
        beyond = self._beyond[path]
        return beyond is not None and line not in beyond
