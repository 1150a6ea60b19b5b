"""What a hook's command executes of the landed tree, as its words name it
(review.project_hooks.executed); the tree read through pygit2, as the pinning reads it."""

from __future__ import annotations

from landwatch.review.change import open_repository, resolve
from landwatch.review.project_hooks.executed import beyond, executed, from_root, split
from support.repos import Repo


def test_a_command_is_split_as_a_shell_splits_it_or_by_spaces() -> None:
    assert split("sh 'tools/my check.sh' --fix") == ["sh", "tools/my check.sh", "--fix"]
    assert split("sh 'unclosed") == ["sh", "'unclosed"]


def test_the_words_that_may_name_a_file_are_taken_from_the_root() -> None:
    words = split("sh check.sh --fix /usr/bin/env ~/x > /proc/$PPID/fd/1 2>> log.txt")
    assert list(from_root(words, "web")) == [
        "web/sh",
        "web/check.sh",
        "/usr/bin/env",
        "~/x",
        "web/>",
        "web/2>>",
    ]  # what a redirection writes to runs nothing
    assert list(from_root(["tools/{x}.sh"], "")) == ["tools/{x}.sh"]


def test_what_a_path_executes_is_followed_and_one_beyond_the_tree_is_said(repo: Repo) -> None:
    repo.stage({"tools/check.sh": "exit 0\n"})
    repo.link({"bin": "tools"})
    repo.land("tools", {}, hooks=False)
    tree = resolve(open_repository(repo.git_dir), "HEAD").tree
    files, _ = executed(tree, ["bin/check.sh", "nowhere.sh"])
    assert "tools/check.sh" in files and "bin" in files
    assert beyond(tree, "tools/check.sh") is None
    for path in ("/proc/self/cwd/tools/check.sh", "/dev/fd/3", "../work/tools/check.sh"):
        assert beyond(tree, path) is not None, path
    assert beyond(tree, "..") is None  # a directory above, and nothing in it
