"""The diffs a change is read from (review.diffs): two trees' diff, taken deep down; a merge's
own files and lines, which none of its parents has, and what it brought in, place by place."""

from __future__ import annotations

import pytest

from landwatch.review import engine
from landwatch.review.change import open_repository, resolve
from landwatch.review.diffs import BroughtIn
from support.repos import Repo
from support.review import found, review


@pytest.mark.parametrize(
    "changes",
    [
        {"deep/er/one.py": "x = 2\n"},  # one directory deep down: diffed there
        {"deep/er/one.py": "x = 2\n", "deep/er/new/two.py": "y = 1\n"},
        {"deep/er/one.py": "x = 2\n", "top.txt": "changed\n"},  # two places: at the root
        {"deep/er": None, "deep/er.txt": "now a file\n"},  # a directory gone beside a file
        {"deep/er/moved.py": "z = 1\n" * 20, "deep/er/gone.py": None},  # a rename inside
        {"deep/er/gone.py": None, "elsewhere/moved.py": "z = 1\n" * 20},  # a rename across
    ],
)
def test_the_diff_taken_deep_down_is_the_whole_diff(
    repo: Repo, changes: dict[str, str | None]
) -> None:
    """The diff is taken in the deepest directory outside which nothing changed (libgit2 visits
    every entry of both trees): the same files, paths and renames as the diff of the roots."""
    import pygit2
    from pygit2.enums import DiffFind

    from landwatch.review.change import Change

    repo.land(
        "before",
        {
            "top.txt": "top\n",
            "deep/er/one.py": "x = 1\n",
            "deep/er/gone.py": "z = 1\n" * 20,
            "deep/other.py": "o = 1\n",
        },
        hooks=False,
    )
    for path, content in changes.items():
        if content is None:
            repo.git("rm", "-rq", path)
        else:
            (repo.path / path).parent.mkdir(parents=True, exist_ok=True)
            (repo.path / path).write_text(content)
            repo.git("add", path)
    repo.git("commit", "-q", "-m", "after", LANDWATCH="0")
    git = pygit2.Repository(str(repo.git_dir))
    commit = git.revparse_single("HEAD")
    assert isinstance(commit, pygit2.Commit)
    whole = commit.parents[0].tree.diff_to_tree(commit.tree)
    whole.find_similar(DiffFind.FIND_RENAMES, rename_threshold=50, rename_limit=1000)
    expected = sorted(
        (d.status_char(), d.old_file.path, d.new_file.path, d.similarity) for d in whole.deltas
    )
    change = Change(git, commit, None)
    got = sorted((f.status.value, f.old_path or f.path, f.path, f.similarity) for f in change.files)
    assert got == expected


def test_a_merge_read_for_its_own_has_the_lines_none_of_its_parents_has(repo: Repo) -> None:
    """merges = "skip", as `landwatch ci` reads every merge: what a merge brought in is its
    commits' to answer for; what it adds itself (a file in neither parent, a conflict's
    resolution: an evil merge) is reviewed, on the lines none of its parents has."""
    shared = {"shared.txt": "one\ntwo\nthree\n", "gone.txt": "x\n", "moved.txt": "m  \n" * 9}
    repo.land("start", {".landwatch.toml": 'merges = "skip"\n', **shared}, hooks=False)
    repo.git("switch", "-q", "-c", "topic")
    repo.git("mv", "moved.txt", "renamed.txt")
    topic = {"shared.txt": "one\ntopic  \nthree\n", "topic.txt": "from topic  \n"}
    repo.land("topic", {**topic, "gone.txt": None}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("main", {"shared.txt": "one\nmain  \nthree\n", "main.txt": "main  \n"}, hooks=False)
    assert repo.run("merge", "-q", "topic", LANDWATCH="0").returncode == 1  # shared.txt
    resolved = "one\nmain  \ntopic  \nboth  \nthree\n"
    repo.stage({"shared.txt": resolved, "evil.txt": "added in the merge  \n"})
    repo.git("commit", "-q", "--no-edit", LANDWATCH="0")
    merged = review(repo)
    assert merged.shape == "merge"
    assert sorted(found(merged)) == [("P001", "evil.txt", 1), ("P001", "shared.txt", 4)]
    # Read against its first parent, it has everything topic brought in.
    whole = engine.review(repo.git_dir, "HEAD", merges="first-parent")
    assert ("P001", "topic.txt", 1) in found(whole) and ("P001", "shared.txt", 3) in found(whole)
    # Asked place by place, as the push gate asks of a review that read it so: what topic holds
    # (a file as it is, a line) came from it; what neither has, or no place names, is the merge's.
    git = open_repository(repo.git_dir)
    brought = BroughtIn(git, resolve(git, "HEAD"))
    assert brought.holds("topic.txt", 1) and brought.holds("topic.txt", None)
    assert brought.holds("shared.txt", 3) and not brought.holds("shared.txt", 4)
    assert not brought.holds("evil.txt", 1) and not brought.holds("evil.txt", None)
    assert not brought.holds(None, None) and not brought.holds("no/such/file", 1)
    # A commit of one parent brought nothing in.
    assert not BroughtIn(git, resolve(git, "HEAD^2")).holds("topic.txt", 1)
