"""The commands a push gate's refusal prints to take what refused out of the push
(commands.pre_push_fixes): an amend of the commit checked out, a rebase from before the oldest
commit holding it, on the branch pushed; a tag written again or dropped."""

from __future__ import annotations

from landwatch.commands.pre_push_fixes import how_to_drop, how_to_fix, how_to_retag
from support.repos import Repo


def test_the_commit_checked_out_alone_is_amended_else_rebased_from_before_the_oldest(
    repo: Repo,
) -> None:
    base = repo.land("base", {"a.txt": "a\n"}, hooks=False)
    first = repo.land("first", {"b.txt": "b\n"}, hooks=False)
    second = repo.land("second", {"c.txt": "c\n"}, hooks=False)
    pushed = f"refs/heads/main {second} refs/heads/main {'0' * 40}\n"
    [amend] = how_to_fix(repo.git_dir, [second], pushed)
    assert "git commit --amend -a" in amend
    said = how_to_fix(repo.git_dir, [first, second], pushed)
    assert said[0] == "To take it out of every commit that holds it:"
    assert f"git rebase -i {base[:12]}" in said[1]
    assert f"mark `edit` on {first[:10]}, {second[:10]}" in said[1]
    repo.git("switch", "-q", "-c", "elsewhere", base)
    said = how_to_fix(repo.git_dir, [second], pushed)
    assert said[:2] == [
        "To take it out of every commit that holds it, on main:",
        "  git switch main",
    ]


def test_a_tag_is_written_again_or_dropped_and_another_ref_left_out() -> None:
    tag = "1" * 40
    assert how_to_retag(tag, "refs/tags/v1") == (
        "To take it out of tag v1:  git tag -f -a v1 v1^{}  (another message)"
    )
    assert how_to_retag(tag, "refs/heads/x").startswith(f"To take it out of tag {tag[:10]}:")
    assert how_to_drop(tag, "blob", "refs/tags/key") == (
        f"To take it out of tag key:  git tag -d key  (it names blob {tag[:10]})"
    )
    assert how_to_drop(tag, "tree", "refs/heads/x") == (
        f"To take it out: leave refs/heads/x out of the push (tree {tag[:10]} holds it)."
    )
