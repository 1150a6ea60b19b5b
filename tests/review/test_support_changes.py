"""The change builder the rule tests use (support.changes) writes real git objects: git itself
reads them, and the review's own Change sees each shape, mode and rename as in a clone."""

from __future__ import annotations

import subprocess

from landwatch.review.change import (
    MAX_LINE_CHECK_BYTES,
    MODE_EXECUTABLE,
    MODE_SUBMODULE,
    MODE_SYMLINK,
    ChangeShape,
)
from support.changes import Changes, executable, submodule, symlink
from support.queue import git_env


def test_a_change_of_every_kind_of_entry_as_change_reads_it(changes: Changes) -> None:
    library = changes.commit({"lib.c": "int x;\n"}, message="library\n")
    branch = changes.branch({"old.txt": "the same line\n" * 20, "gone.txt": "bye\n"})
    change = branch.land(
        {
            "old.txt": None,
            "gone.txt": None,
            "new.txt": "the same line\n" * 20,
            "bin/run": executable("#!/bin/sh\n"),
            "link": symlink("new.txt"),
            "lib": submodule(library),
        },
        "every kind\n",
        author="O <o@example.com>",
    )
    assert change.shape is ChangeShape.COMMIT
    assert (change.message.subject, change.message.author_email) == ("every kind", "o@example.com")
    assert sorted((f.status.value, f.path, f.old_path, f.new_mode) for f in change.files) == [
        ("A", "bin/run", None, MODE_EXECUTABLE),
        ("A", "lib", None, MODE_SUBMODULE),
        ("A", "link", None, MODE_SYMLINK),
        ("D", "gone.txt", "gone.txt", 0),
        ("R", "new.txt", "old.txt", 0o100644),
    ]
    assert change.file_at("link") == b"new.txt"


def test_a_file_of_the_tree_past_the_cap_is_not_read(changes: Changes) -> None:
    """A hostile tree's 1 GB `.editorconfig` or lockfile is not read into the reviewer's
    memory: past the cap a changed file's content has, the tree's file is as if unreadable."""
    at_cap = "x" * (MAX_LINE_CHECK_BYTES - 1) + "\n"
    change = changes.root({".editorconfig": at_cap + "y\n", "kept.lock": at_cap})
    assert change.file_at(".editorconfig") is None
    assert change.file_at("kept.lock") == at_cap.encode()


def test_roots_merges_and_ranges(changes: Changes) -> None:
    root = changes.root({"a.txt": "a\n"})
    assert root.shape is ChangeShape.ROOT and [f.path for f in root.files] == ["a.txt"]
    one, other = changes.commit({"a.txt": "1\n"}), changes.commit({"b.txt": "2\n"})
    merge = changes.change_of(
        changes.commit({"a.txt": "1\n", "b.txt": "2\n"}, parents=[one, other])
    )
    assert merge.shape is ChangeShape.MERGE and [f.path for f in merge.files] == ["b.txt"]
    landed = changes.change_of(str(merge.commit.id), base=str(root.commit.id))
    assert landed.shape is ChangeShape.RANGE


def test_git_reads_the_builders_repository(changes: Changes) -> None:
    changes.change({"x.txt": "x\n", "run": executable("x\n"), "l": symlink("x.txt")})
    checked = subprocess.run(
        ["git", "--git-dir", str(changes.git_dir), "fsck", "--strict", "--no-dangling"],
        env=git_env(),
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr
