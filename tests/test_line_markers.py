"""The one line's markers with real git and the real reviewer: no line tells of a commit an amend
or a rebase replaced (its line is set aside, and the commit that replaced it tells what of it
was not seen, saying what it replaces), and one landing whose project hooks run is one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import layout, line_markers
from landwatch.kinds.project_hooks import hooks_in_worker
from landwatch.kinds.review import review_in_worker
from support.daemon import run_reviewer
from support.project_hooks import (
    TODO_CHECK,
    committed,
    committed_and_trusted,
    drained,
    local_hooks,
    tools,
)
from support.repos import Repo
from support.review import KEY_ID, OTHER_ID

OLD = "3f786850e387550fdab836ed7e6dc881de23001b"
NEW = "9fceb02d0ae598e95dc970b74767f19372d61af8"


def test_a_line_set_aside_is_never_told_and_goes_to_the_commit_that_replaced_it(
    repo: Repo,
) -> None:
    git_dir = repo.git_dir
    assert not line_markers.set_aside(git_dir, OLD, NEW)  # nothing of it waited
    line_markers.mark_unread(git_dir, OLD)
    assert line_markers.set_aside(git_dir, OLD, NEW)
    assert line_markers.unread(git_dir) == [] and line_markers.is_set_aside(git_dir, OLD)
    assert line_markers.set_aside_pairs(git_dir) == [(NEW, OLD)]
    line_markers.forget_set_aside(git_dir, NEW, [OLD])
    assert not line_markers.is_set_aside(git_dir, OLD)
    # Kept after it was replaced (by a commit not known yet): set aside all the same.
    assert line_markers.set_aside(git_dir, OLD, None)
    assert line_markers.set_aside_pairs(git_dir) == [("", OLD)]  # no new one named
    assert line_markers.is_set_aside(git_dir, OLD)


def test_a_held_line_reads_back_and_garbage_is_none(repo: Repo) -> None:
    git_dir = repo.git_dir
    line_markers.hold(git_dir, NEW, ["b" * 16, "a" * 16, "a" * 16], [OLD])
    assert line_markers.held(git_dir, NEW) == ({"a" * 16, "b" * 16}, [OLD])
    assert line_markers.is_held(git_dir, NEW) and line_markers.unread(git_dir) == []
    (layout.HELD.path(git_dir) / OLD).write_bytes(b"\xff not a held line\n")
    assert line_markers.held(git_dir, OLD) is None
    line_markers.forget_held(git_dir, NEW)
    assert line_markers.held(git_dir, NEW) is None


def test_the_amend_itself_tells_nothing_of_the_commit_it_replaced(repo: Repo) -> None:
    first = repo.land("one", {"a.py": "x = 1   \n"})
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [first]
    # The person amends before any other landing told them: post-commit runs before
    # post-rewrite, and its line would have named `first`, which is gone.
    repo.stage({"a.py": "x = 1   \ny = 2\n"})
    amended = repo.run("commit", "-q", "--amend", "--no-edit")
    assert amended.returncode == 0 and amended.stderr == ""
    assert line_markers.unread(repo.git_dir) == []
    assert run_reviewer("--once").returncode == 0
    new = repo.head()
    repo.land("next", {"b.txt": "clean\n"})
    assert repo.said == (
        f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {new[:7]}"
        f" (replaces {first[:7]})\n"
    )
    assert first[:7] not in repo.landwatch("show", "--unread").stdout


def test_an_autosquashed_fixup_is_told_as_the_commit_it_went_into(repo: Repo) -> None:
    base = repo.head()
    target = repo.land("feature", {"a.py": "x = 1   \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("other", {"c.txt": "clean\n"})  # tells `target`: seen
    assert target[:7] in repo.said
    fixup = repo.land("fixup! feature", {"a.py": "x = 1   \ny = 2\t\n"})
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [fixup]
    squashed = repo.run(
        "rebase", "-q", "-i", "--autosquash", base, GIT_SEQUENCE_EDITOR="true", GIT_EDITOR="true"
    )
    assert squashed.returncode == 0, squashed.stderr
    assert squashed.stderr == ""  # no line about the fixup, which no longer exists
    assert line_markers.unread(repo.git_dir) == []
    assert run_reviewer("--once").returncode == 0
    into = repo.git("rev-parse", "HEAD~1")
    repo.land("next", {"d.txt": "clean\n"})
    # What the person saw (x = 1, in `target`) is not said again; the fixup's line is.
    assert repo.said == (
        f"landwatch: P001 trailing whitespace in a.py:2, +1 warning · landwatch show "
        f"{into[:7]}"
        f" (replaces {fixup[:7]})\n"
    )
    repo.land("quiet", {"e.txt": "clean\n"})
    assert repo.said == ""


# A squash of B into A, by `rebase -i` as a person edits its list, or a `commit --fixup` of A
# folded in by --autosquash: post-rewrite gives two old commits for the one new.
FOLDED_IN = {
    "squash": (("B", "b.py"), ("rebase", "-q", "-i", "HEAD~3"), "sed -i -e '2s/^pick/squash/'"),
    "fixup": (("fixup! A", "a.py"), ("rebase", "-q", "-i", "--autosquash", "HEAD~3"), "true"),
}


@pytest.mark.parametrize("how", sorted(FOLDED_IN))
def test_a_squash_tells_nothing_of_what_was_told_of_each_commit_it_folded_in(
    repo: Repo, how: str
) -> None:
    """Told of the second commit and read, its finding is no news for the squash of the two,
    whose record names both (the first alone was named: the finding was told again as new)."""
    (message, path), rebase, editor = FOLDED_IN[how]
    repo.land("A", {"a.py": "a = 1\n"})
    folded = repo.land(message, {path: "a = 1\nb = 2  \n" if path == "a.py" else "b = 2  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("n1", {"n1": "n\n"})
    assert f"landwatch show {folded[:7]}" in repo.said  # its line told (a fixup's names M004)
    assert repo.landwatch("show", folded).returncode == 0  # and the person read it
    squashed = repo.run(*rebase, GIT_SEQUENCE_EDITOR=editor, GIT_EDITOR="true")
    assert squashed.returncode == 0 and squashed.stderr == "", squashed.stderr
    assert repo.git("rev-list", "--count", "HEAD") == "3"  # initial, A with B, n1
    assert run_reviewer("--once").returncode == 0
    assert repo.landwatch("prompt").stdout == ""
    assert repo.landwatch("show", "--unread").stdout == "landwatch: no unread reviews\n"
    repo.land("n2", {"n2": "n\n"})
    assert repo.said == ""


def test_a_squash_tells_what_was_not_seen_of_the_commits_it_folded_in(repo: Repo) -> None:
    """Of two commits squashed into a third, the one told and read is not told again; the one
    still unread is, named as what the squash replaces."""
    repo.land("A", {"a.py": "a = 1\n"})
    told = repo.land("B", {"b.py": "b = 2  \n"})
    assert run_reviewer("--once").returncode == 0
    unread = repo.land("C", {"c.py": "c = 3  \n"})
    assert f"b.py:1 · landwatch show {told[:7]}" in repo.said
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [unread]
    editor = "sed -i -e '2s/^pick/squash/' -e '3s/^pick/squash/'"
    squashed = repo.run(
        "rebase", "-q", "-i", "HEAD~3", GIT_SEQUENCE_EDITOR=editor, GIT_EDITOR="true"
    )
    assert squashed.returncode == 0 and squashed.stderr == "", squashed.stderr
    assert run_reviewer("--once").returncode == 0
    into = repo.head()
    repo.land("next", {"d.txt": "clean\n"})
    assert repo.said == (
        f"landwatch: P001 trailing whitespace in c.py:1, +1 warning · landwatch show {into[:7]}"
        f" (replaces {unread[:7]})\n"
    )
    repo.land("quiet", {"e.txt": "clean\n"})
    assert repo.said == ""


def test_a_landing_whose_project_hooks_run_is_one_line(tmp_path: Path, repo: Repo) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    oid = repo.land("new", {"app.py": "# TODO: new\ny = 2   \n"}, hooks=False)
    # The review is kept, the hooks have not run yet: its line waits for theirs.
    outcome = review_in_worker(str(repo.git_dir), oid, None)
    assert outcome["project_hooks"] and line_markers.is_held(repo.git_dir, oid)
    assert repo.run("commit", "-q", "--allow-empty", "-m", "meanwhile").stderr == ""
    repo.landwatch("enqueue", "--kind", "project_hooks", oid)
    drained(tools(tmp_path, "pre-commit"))
    assert not line_markers.is_held(repo.git_dir, oid)
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == (
        f"landwatch: hook:no-todo # TODO: new in app.py:1, +1 warning · landwatch show {oid[:7]}\n"
    )
    assert repo.run("commit", "-q", "--allow-empty", "-m", "again").stderr == ""


def test_a_held_line_is_told_alone_when_the_hooks_will_not_run(tmp_path: Path, repo: Repo) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    oid = repo.land("new", {"app.py": "x = 1   \n"}, hooks=False)
    review_in_worker(str(repo.git_dir), oid, None)
    assert line_markers.is_held(repo.git_dir, oid)
    repo.git("config", "landwatch.projectHooks", "false")
    repo.landwatch("enqueue", "--kind", "project_hooks", oid)
    drained(tools(tmp_path, "pre-commit"))
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == (f"landwatch: P001 trailing whitespace in app.py:1 · landwatch show {oid[:7]}\n")


# How the amend is made, and what runs first after it: the amend's review (with its own hooks'
# run), or the old commit's project hooks.
AMENDS = [
    ("amended", "the amend's review"),
    # Still on a remote's branch, the old commit is the person's: only the amend's hook knows.
    ("amended after a push", "the old commit's hooks"),
    # post-rewrite not run (moved aside, or pre-commit's legacy hook given no list): the review
    # and the hooks' result find the old commit gone from the branch.
    ("amended, post-rewrite not run", "the amend's review"),
    ("amended, post-rewrite not run", "the old commit's hooks"),
]


@pytest.mark.parametrize(("how", "first"), AMENDS)
def test_an_amend_while_the_line_is_held_for_the_project_hooks_tells_the_new_commit(
    repo: Repo, how: str, first: str
) -> None:
    """An audit: a commit amended while its line was held for its project hooks (a long
    pre-commit run) had its finding counted seen by the amend's review, then told of the commit
    amended away once those hooks ended, and lost at the next landing. It is told as it is
    when nothing is held: of the new commit, saying what it replaces, once."""
    committed(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})  # not trusted
    old = repo.land("ws", {"a.py": "x = 1  \ny = 2\n"}, hooks=False)
    review_in_worker(str(repo.git_dir), old, None)  # its hooks' item not run yet
    assert line_markers.is_held(repo.git_dir, old)
    if how == "amended after a push":
        repo.git("update-ref", "refs/remotes/origin/main", old)
    post_rewrite = repo.git_dir / "hooks" / "post-rewrite"
    if how == "amended, post-rewrite not run":
        post_rewrite.rename(post_rewrite.with_name("post-rewrite.aside"))
    repo.stage({"a.py": "x = 1  \ny = 3\n"})
    amended = repo.run("commit", "-q", "--amend", "--no-edit")
    assert amended.returncode == 0 and amended.stderr == ""
    new = repo.head()
    if first == "the old commit's hooks":
        hooks_in_worker(str(repo.git_dir), old, None)
        assert line_markers.unread(repo.git_dir) == []
    assert run_reviewer("--once").returncode == 0  # the amend's review, then its hooks
    if first == "the amend's review":
        hooks_in_worker(str(repo.git_dir), old, None)
    assert line_markers.unread(repo.git_dir) == [new]  # what `show --unread` shows
    assert not line_markers.is_held(repo.git_dir, old)
    # The amend's line tells it: set aside for that line until it is told (an undone amend
    # brings it back).
    assert line_markers.set_aside_pairs(repo.git_dir) == [(new, old)]
    assert "landwatch trust" in said(repo, "n1")  # the hooks held back for want of trust
    line = (
        f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {new[:7]}"
        f" (replaces {old[:7]})"
    )
    assert repo.landwatch("prompt").stdout == line + "\n"
    assert said(repo, "n2") == line + "\n"
    assert line_markers.set_aside_pairs(repo.git_dir) == []
    assert said(repo, "n3") == ""


def said(repo: Repo, message: str) -> str:
    """What the hooks printed when an empty commit landed."""
    return repo.run("commit", "-q", "--allow-empty", "-m", message).stderr


def test_set_aside_markers_are_pruned_as_done_items_are(repo: Repo) -> None:
    """One whose replacing commit is never reviewed (a fixup folded in before its own review
    was kept) would stay forever: past the keeping of done items it goes, the young stay."""
    git_dir = repo.git_dir
    assert line_markers.set_aside(git_dir, OLD, None) and line_markers.set_aside(git_dir, NEW, None)
    old_marker = layout.REPLACED.path(git_dir) / OLD
    now = old_marker.stat().st_mtime
    os.utime(old_marker, (now - 31 * 86400, now - 31 * 86400))
    pruned = line_markers.prune_set_aside(git_dir, keep_seconds=30 * 86400, now=now)
    assert pruned == 1
    assert not line_markers.is_set_aside(git_dir, OLD) and line_markers.is_set_aside(git_dir, NEW)


def rewrite_of(repo: Repo, how: str) -> str:
    """The person rewrites HEAD (`how`), a commit whose line waits; the commit it is then, and
    the revision that undoes it (what a person types to take the rewrite back)."""
    if how == "rebase":
        branch = repo.git("symbolic-ref", "--short", "HEAD")
        repo.git("checkout", "-q", "-b", "moved", "HEAD~1")
        repo.land("the base moves", {"m.txt": "moved\n"}, hooks=False)
        repo.git("checkout", "-q", branch)
        rebased = repo.run("rebase", "-q", "moved")
        assert rebased.returncode == 0, rebased.stderr
        return "ORIG_HEAD"
    amends = 2 if how == "amended twice" else 1
    for count in range(amends):
        amended = repo.run("commit", "-q", "--amend", "-m", f"one, reworded {count}")
        assert amended.returncode == 0 and amended.stderr == "", amended.stderr
        if count + 1 < amends:
            assert run_reviewer("--once").returncode == 0  # its line waits, set aside in turn
    return f"HEAD@{{{amends}}}"


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("how", ["amend", "amended twice", "rebase"])
def test_a_rewrite_undone_tells_the_finding_of_the_commit_back_on_the_branch(
    repo: Repo, how: str, when: str
) -> None:
    """An audit: a commit's line set aside by an amend or a rebase, the rewrite then undone
    (`git reset --hard HEAD@{1}`, `ORIG_HEAD`): the new commit, gone, was set aside in turn,
    before its review was kept or after, and the old one, back on the branch with its finding,
    was never told. Its line is told again, as it was to be, once."""
    old = repo.land("one", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [old]
    undo = rewrite_of(repo, how)
    if when == "after":
        assert run_reviewer("--once").returncode == 0  # the new commit's line waits
    repo.git("reset", "-q", "--hard", undo)
    assert repo.head() == old
    if when == "before":
        assert run_reviewer("--once").returncode == 0  # kept after its commit was dropped
    line = f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {old[:7]}\n"
    assert said(repo, "n1") == line
    assert said(repo, "n2") == ""
    assert run_reviewer("--once").returncode == 0
    assert said(repo, "n3") == ""


@pytest.mark.parametrize("undo", ["HEAD@{1}", "branch", "HEAD@{1}, the amend shown"])
def test_an_amend_that_fixed_the_finding_undone_tells_the_old_commit_s_finding(
    repo: Repo, undo: str
) -> None:
    """The amend took the finding out, so its review had nothing to tell and left no line to
    find gone; undone (`git reset --hard HEAD@{1}`, or the branch moved back by hand), the old
    commit was back on its branch with a finding never told. The sweep, reading the ref back
    at it, brings its line back; the next landing's line tells it, once. An audit: `landwatch
    show` of the clean amend forgot the line it took over, which the person never saw, and
    nothing was told after the undo."""
    old = repo.land("one", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.stage({"a.py": "x = 1\n"})
    amended = repo.run("commit", "-q", "--amend", "-m", "one, fixed")
    assert amended.returncode == 0 and amended.stderr == "", amended.stderr
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == []  # nothing to tell of the amend
    if undo.endswith("shown"):
        assert "no findings" in repo.landwatch("show", "HEAD").stdout
        undo = "HEAD@{1}"
    if undo == "branch":
        repo.git("checkout", "-q", "--detach")
        repo.git("branch", "-f", "main", old)
        repo.git("checkout", "-q", "main")
    else:
        repo.git("reset", "-q", "--hard", undo)
    assert repo.head() == old
    assert run_reviewer("--once").returncode == 0
    line = f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {old[:7]}\n"
    assert said(repo, "n1") == line
    assert said(repo, "n2") == ""


def test_two_amends_before_the_review_undone_tell_the_finding_back_on_the_branch(
    repo: Repo,
) -> None:
    """An audit: a commit with a finding, its line unread, reworded then fixed by two amends
    before the reviewer ran: the reword's review, kept after it was replaced, set the first
    commit's line aside alone, which nothing brought back when the amends were undone; the
    finding (a key, the audit's other case) was back on the branch and never told."""
    old = repo.land("one", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    for message, content in (("one, reworded", "x = 1  \n"), ("one, fixed", "x = 1\n")):
        repo.stage({"a.py": content})
        amended = repo.run("commit", "-q", "--amend", "-m", message)
        assert amended.returncode == 0 and amended.stderr == "", amended.stderr
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == []  # nothing to tell: the amends fixed it
    repo.git("reset", "-q", "--hard", old)
    assert run_reviewer("--once").returncode == 0
    line = f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {old[:7]}\n"
    assert said(repo, "n1") == line
    assert said(repo, "n2") == ""


def test_an_amend_undone_then_made_again_tells_the_finding_of_the_new_amend(repo: Repo) -> None:
    """The amend undone, then the commit amended again: the old commit, gone again, is not
    told, and the new amend's review tells its finding, which nobody saw, as it replaces it."""
    old = repo.land("one", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    rewrite_of(repo, "amend")
    assert run_reviewer("--once").returncode == 0
    repo.git("reset", "-q", "--hard", "HEAD@{1}")
    again = repo.run("commit", "-q", "--amend", "-m", "one, reworded again")
    assert again.returncode == 0 and again.stderr == ""
    assert run_reviewer("--once").returncode == 0
    new = repo.head()
    assert said(repo, "n1") == (
        f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {new[:7]}"
        f" (replaces {old[:7]})\n"
    )
    assert said(repo, "n2") == ""


def test_an_amend_undone_after_its_line_was_told_tells_nothing_again(repo: Repo) -> None:
    """What the amend's line told of the old commit's finding is seen: the amend undone after
    that, the old commit is not told again."""
    old = repo.land("one", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    rewrite_of(repo, "amend")
    assert run_reviewer("--once").returncode == 0
    assert f"landwatch show {repo.head()[:7]}" in said(repo, "n1")
    assert line_markers.set_aside_pairs(repo.git_dir) == []
    repo.git("reset", "-q", "--hard", old)
    assert said(repo, "n2") == ""


def test_a_commit_split_by_hand_tells_nothing_of_it_again(repo: Repo) -> None:
    """An audit: a commit whose findings were read, split by hand (`git reset HEAD~1`, a commit
    of each part): the first part replaced it, the second was new work, and its line told again
    the finding read. Each part replaces it (rewrite.amended_from); a new finding is told."""
    old = repo.land("both", {"a.txt": "x  \n", "b.txt": "y  \n"})
    assert run_reviewer("--once").returncode == 0
    assert old[:7] in repo.landwatch("show", "--unread").stdout  # read
    repo.git("reset", "-q", "HEAD~1")
    repo.land("part a", {"a.txt": "x  \n"})
    second = repo.land("part b", {"b.txt": "y  \n", "c.txt": "z  \n"})
    assert run_reviewer("--once").returncode == 0
    told = f"P001 trailing whitespace in c.txt:1, +1 warning · landwatch show {second[:7]}"
    assert said(repo, "n1") == f"landwatch: {told}\n"
    assert said(repo, "n2") == ""


def test_a_new_key_after_a_commit_reset_away_is_told(repo: Repo) -> None:
    """An audit: a commit with a key, told and read, reset away (`reset --hard HEAD~1`), then
    new work writing another key on the same line: the new commit counts as a part of the one
    reset away (a split by hand), and the key, whose line redacted reads the same, went untold."""
    repo.land("a key", {"cfg.py": f'KEY = "{KEY_ID}"\n'})
    assert run_reviewer("--once").returncode == 0
    assert "S002" in repo.landwatch("show", "--unread").stdout  # read
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.land("readme", {"README": "docs\n"})
    new = repo.land("another key", {"cfg.py": f'KEY = "{OTHER_ID}"\n'})
    assert run_reviewer("--once").returncode == 0
    assert f"landwatch show {new[:7]}" in said(repo, "n1")
