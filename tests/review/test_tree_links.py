"""Where a path of a committed tree leads (review.tree_links), held against what the system
opens in a checkout of that tree."""

from __future__ import annotations

import os

from landwatch.review.change import open_repository, resolve
from landwatch.review.tree_links import followed
from support.repos import Repo

# Links of one tree: a linked directory, one whose `..` is where it leads, one out of it by an
# absolute path and one by `..`, two in a circle, one to a file that is not there.
LINKS = {
    "bin": "tools",
    "a": "b/c",
    "usr": "/usr",
    "up": "../..",
    "loop": "loop2",
    "loop2": "loop",
    "gone": "tools/missing.sh",
    "b/c/deep": "../../tools/check.sh",
}
PATHS = [
    "tools/check.sh",
    "bin/check.sh",
    "a/../x.txt",
    "a/deep",
    "bin",
    "usr/bin/id",
    "up/etc/passwd",
    "loop",
    "gone",
    "tools/check.sh/more",
    "nowhere/x",
]


def test_a_path_is_followed_as_the_system_opens_it_in_a_checkout(repo: Repo) -> None:
    # What a hook executes is what the system opens: links followed at any part of the path,
    # `..` taken where the walk really is. The worktree, checked out by git, says what that is.
    repo.stage({"tools/check.sh": "exit 0\n", "b/x.txt": "x\n", "b/c/keep": "\n"})
    repo.link(LINKS)
    repo.land("links", {}, hooks=False)
    git = open_repository(repo.git_dir)
    tree = resolve(git, "HEAD").tree
    root = os.path.realpath(repo.path)
    for path in PATHS:
        led = followed(tree, path)
        real = os.path.realpath(repo.path / path)
        if not real.startswith(root + os.sep) and path != "loop":
            assert led.path is None, path  # outside the tree: what is there is not its
            continue
        assert led.is_file() == os.path.isfile(repo.path / path), path
        if led.is_file() or os.path.isdir(repo.path / path):
            assert led.path == os.path.relpath(real, root), path
    assert followed(tree, "bin/check.sh").links == ("bin",)
    assert followed(tree, "a/deep").links == ("a", "b/c/deep")
    assert followed(tree, "loop").mode is None  # links in a circle lead nowhere
