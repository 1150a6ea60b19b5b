"""The diffs a landed change is read from: two trees' (renames found, taken in the deepest
directory they differ in).

Apart from review.change, which reads a change's files and lines through these.
"""

from __future__ import annotations

import pygit2
from pygit2.enums import DiffFind, DiffOption


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
