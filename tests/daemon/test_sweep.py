"""The reflog sweep with real git: landings the hooks never saw are reviewed once, each as the
hooks would have recorded it; what the hooks recorded, what was reviewed, and what was made with
the kill switch are never reviewed again."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from landwatch import layout, line_markers, report_store
from landwatch.daemon import landings, sweep
from landwatch.daemon.settings import SWEEP_GRACE
from landwatch.kinds import FLOOD
from landwatch.review import whose
from support.daemon import (
    RECORDING,
    reviewed,
    reviewer_env,
    run_reviewer,
)
from support.history import Commit, write_history
from support.queue import git
from support.repos import Repo, bare_worktree, installed


def an_hour_ago() -> dict[str, str]:
    """Reflog entries made an hour ago: past the grace the sweep leaves a hook (and before it a
    reflog's entries are taken in order: every entry of a test is made so)."""
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) - 3600} +0000"}


def years_ahead() -> dict[str, str]:
    """Reflog entries stamped five years ahead: a GIT_COMMITTER_DATE a tool set, or a clock that
    was wrong when git wrote them."""
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) + 5 * 365 * 86400} +0000"}


def commit_without_hooks(worktree: Path, message: str) -> str:
    """A commit in `worktree` that runs no hook (hooks another tool displaced), an hour ago."""
    in_worktree = Repo.existing(worktree)
    hooks_off = ("-c", "core.hooksPath=/nonexistent")
    in_worktree.git(*hooks_off, "commit", "-q", "--allow-empty", "-m", message, **an_hour_ago())
    return in_worktree.head()


def drain(journal: Path) -> list[tuple[str, str | None]]:
    result = run_reviewer("--once", *RECORDING, journal=journal)
    assert result.returncode == 0, result.stderr
    done = reviewed(journal)
    assert all(count == 1 for count in Counter(done).values()), done  # nothing twice
    return done


def scripted_commit(repo: Repo, message: str, parent: str = "HEAD", **env: str) -> str:
    """A commit as a script (or a libgit2 client) makes one: no hook runs."""
    (repo.path / "file").write_text(message + "\n")
    repo.git("add", "file")
    tree = repo.git("write-tree")
    return repo.git("commit-tree", tree, "-p", parent, "-m", message, **(env or an_hour_ago()))


def just_after_the_install() -> dict[str, str]:
    """Reflog entries stamped two seconds on: past the second the install was in (a sweep sees
    them past the grace with its clock moved on)."""
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) + 2} +0000"}


def installed_after(repo: Repo, landings: int) -> None:
    """landwatch installed in `repo` after `landings` commits, which it never reviews."""
    for n in range(landings):
        repo.land(f"before the install {n}", env=an_hour_ago())
    repo.install()


def test_a_commit_written_without_hooks_is_reviewed_once(repo: Repo, journal: Path) -> None:
    recorded = repo.land("through the hooks", env=an_hour_ago())
    scripted = scripted_commit(repo, "behind the hooks' back")
    repo.git("update-ref", "refs/heads/main", scripted, **an_hour_ago())
    assert drain(journal) == [(recorded, None), (scripted, None)]
    assert drain(journal) == [(recorded, None), (scripted, None)]  # a second pass adds nothing


def test_nothing_before_the_install_is_swept(tmp_path: Path, journal: Path) -> None:
    installed_after(Repo(tmp_path / "repo"), 3)
    assert drain(journal) == []


def test_the_kill_switch_is_honoured_by_the_sweep_too(repo: Repo, journal: Path) -> None:
    skipped = repo.land("not this one", env={"LANDWATCH": "0", **an_hour_ago()})
    assert (layout.SKIPPED.path(repo.git_dir) / skipped).is_file()
    assert repo.pending() == []
    kept = repo.land("this one", env=an_hour_ago())
    assert drain(journal) == [(kept, None)]


def test_a_young_entry_waits_for_its_hook(repo: Repo, journal: Path) -> None:
    scripted = scripted_commit(repo, "just now")
    repo.git("update-ref", "refs/heads/main", scripted)  # timestamped now
    assert drain(journal) == []
    swept = sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{scripted}"]


def test_a_flood_is_one_range(repo: Repo, journal: Path) -> None:
    base = repo.head()
    repo.git("branch", "rewritten", base)
    rewritten = [Commit(f"rewritten {n}", {"file": f"{n}\n"}) for n in range(FLOOD + 5)]
    tip = write_history(repo, rewritten, branch="rewritten")
    repo.git("branch", "-D", "rewritten")  # its reflog with it: only main's move is a landing
    repo.git("update-ref", "-m", "filter-branch: rewrite", "refs/heads/main", tip, **an_hour_ago())
    assert drain(journal) == [(tip, base)]


def test_pull_rebase_reviews_upstream_once_as_a_range(tmp_path: Path, journal: Path) -> None:
    upstream = Repo(tmp_path / "upstream")
    clone = Repo(tmp_path / "clone", clone_of=upstream.path)
    clone.install()
    fork_point = clone.head()
    incoming = [upstream.land(f"upstream {n}", f"u{n}", hooks=False) for n in range(5)]
    mine = clone.land("mine", "mine.txt", env=an_hour_ago())
    pulled = clone.run("pull", "-q", "--rebase", **an_hour_ago())
    assert pulled.returncode == 0, pulled.stderr
    rebased = clone.head()
    done = drain(journal)
    assert fork_point not in {base for _, base in done}
    assert (incoming[-1], mine) in done  # the five upstream commits, once, as a range from mine
    assert (rebased, None) in done  # the rewritten local commit, once
    assert len(done) == 3  # and the local commit as first landed


def test_a_pull_rebase_that_fast_forwards_is_reviewed_as_a_pull_is(
    tmp_path: Path, journal: Path
) -> None:
    """`git pull --rebase` with nothing of the branch's own to replay fast-forwards, and its
    entry (`pull --rebase: Fast-forward`) has no `(finish)`: with the hooks displaced (another
    manager's), what it brought was never reviewed. Now one range, as a pull's."""
    upstream = Repo(tmp_path / "upstream")
    clone = Repo(tmp_path / "clone", clone_of=upstream.path)
    clone.install()
    before = clone.head()
    upstream.land("theirs", "theirs.txt", hooks=False)
    theirs = upstream.head()
    pulled = clone.run(
        "-c", "core.hooksPath=/nonexistent", "pull", "-q", "--rebase", **an_hour_ago()
    )
    assert pulled.returncode == 0, pulled.stderr
    assert clone.head() == theirs
    assert drain(journal) == [(theirs, before)]


TEAMMATE = {"GIT_AUTHOR_EMAIL": "mate@example.com", "GIT_COMMITTER_EMAIL": "mate@example.com"}


def shared_upstream(tmp_path: Path, *names: str) -> tuple[Repo, Path, list[Repo]]:
    """A teammate's repository, the bare upstream it pushed main to, and clones of that named
    `names`, landwatch installed in each, whose user.email is not the teammate's."""
    upstream = tmp_path / "upstream.git"
    git("init", "-q", "--bare", "-b", "main", str(upstream), cwd=tmp_path)
    mate = Repo(tmp_path / "mate")
    mate.git("push", "-q", str(upstream), "main")
    clones = [Repo(tmp_path / name, clone_of=upstream) for name in names]
    for clone in clones:
        clone.install()
        clone.git("config", "user.email", "me@example.com")
    return mate, upstream, clones


def teammate_lands(mate: Repo, upstream: Path, branch: str = "main") -> str:
    """Two commits of the teammate's on `branch`, pushed: trailing whitespace (a warning), then
    a clean one; the tip."""
    mate.land("Their whitespace", {"a.txt": "trailing  \n"}, hooks=False, env=TEAMMATE)
    tip = mate.land("Their next", {"b.txt": "clean\n"}, hooks=False, env=TEAMMATE)
    mate.git("push", "-q", str(upstream), branch)
    return tip


# A branch moved by hand (`git reset`, `git branch -f`, `git checkout -B`): forward or sideways, it
# lands what it brings that nobody recorded here as a pull does, one range from where it was;
# backwards, onto what landed here, or onto an unrelated history, nothing.


def move_main(repo: Repo, how: str, to: str) -> None:
    """`main` moved to `to` by `how`, an hour ago, as a script moves it."""
    hour = an_hour_ago()
    if how == "reset --hard":
        repo.git("reset", "-q", "--hard", to, **hour)
    elif how == "branch -f":  # not the branch checked out: HEAD leaves it, then comes back
        repo.git("checkout", "-q", "--detach", **hour)
        repo.git("branch", "-f", "main", to, **hour)
        repo.git("checkout", "-q", "main", **hour)
    else:
        repo.git("checkout", "-q", "-B", "main", to, **hour)


MOVES = ["reset --hard", "branch -f", "checkout -B"]


@pytest.mark.parametrize("how", MOVES)
def test_a_branch_moved_forward_by_hand_is_reviewed_once(
    repo: Repo, journal: Path, how: str
) -> None:
    """A commit a script writes (`git commit-tree`) and puts on the branch by moving it there:
    reviewed once, from the branch's reflog (HEAD's says it again), as a one-commit pull is.
    Before, `reset:` and `branch:` entries were no landing: it was never reviewed."""
    base = repo.head()
    scripted = scripted_commit(repo, f"scripted, then {how}")
    move_main(repo, how, scripted)
    assert drain(journal) == [(scripted, base)]
    assert drain(journal) == [(scripted, base)]  # a second pass adds nothing


def test_a_branch_fast_forwarded_by_fetch_is_reviewed_once(repo: Repo, journal: Path) -> None:
    """`git fetch origin main:main` from another branch moves `main` forward as a pull would
    (its entry `fetch ...: fast-forward`): reviewed once, as one. Before, a fetch was no landing."""
    base = repo.head()
    scripted = scripted_commit(repo, "scripted, then fetched into main")
    repo.git("branch", "topic", scripted, **an_hour_ago())
    repo.git("switch", "-q", "-c", "work", **an_hour_ago())
    repo.git("fetch", "-q", ".", "topic:main", **an_hour_ago())
    assert drain(journal) == [(scripted, base)]
    assert drain(journal) == [(scripted, base)]  # a second pass adds nothing


def diverged(repo: Repo) -> tuple[str, str]:
    """`other` and `main` each one commit past their fork, both landed through the hooks (so
    recorded here); (other's tip, main's tip)."""
    hour = an_hour_ago()
    repo.git("switch", "-q", "-c", "other", **hour)
    other = repo.land("on the other line", "other.txt", env=hour)
    repo.git("switch", "-q", "main", **hour)
    main = repo.land("on main", "main.txt", env=hour)
    return other, main


@pytest.mark.parametrize("how", MOVES)
def test_a_branch_moved_back_or_onto_what_landed_here_lands_nothing(
    repo: Repo, journal: Path, how: str
) -> None:
    """Sideways onto another line whose commits landed here (`git checkout -B main other`), back
    onto its own, backwards (`reset --hard HEAD~1`), onto a history unrelated to its own and
    back (no merge base: as a branch born at a commit that was there): no move queues
    anything, and each commit is reviewed once, as the hooks recorded it."""
    other, main = diverged(repo)
    unrelated = written(repo, "a history of its own")  # no parent, no hook, never recorded
    for to in (other, main, "HEAD~1", unrelated, main):
        move_main(repo, how, to)
    assert repo.head() == main
    assert drain(journal) == [(other, None), (main, None)]


@pytest.mark.parametrize("how", MOVES)
def test_a_branch_moved_sideways_onto_a_fetched_line_is_reviewed_once(
    tmp_path: Path, journal: Path, how: str
) -> None:
    """A branch with a commit of its own moved onto a teammate's line fetched from the remote
    (`git branch -f main origin/feature`): what that line brings is one range from where the
    branch was, once however often the branch moves there and back.
    Before, a move sideways was no landing: the teammate's commits were never reviewed."""
    mate, upstream, (clone,) = shared_upstream(tmp_path, "clone")
    mate.git("switch", "-q", "-c", "feature")
    tip = teammate_lands(mate, upstream, "feature")
    mine = clone.land("Keep a line of my own", {"file": "mine\n"}, env=an_hour_ago())
    clone.git("fetch", "-q", **an_hour_ago())
    for to in ("origin/feature", mine, "origin/feature"):
        move_main(clone, how, to)
    assert drain(journal) == [(mine, None), (tip, mine)]


def test_a_branch_moved_onto_what_the_hooks_recorded_is_not_reviewed_again(
    repo: Repo, journal: Path
) -> None:
    """Commits the hooks recorded on a topic, then main moved onto them, back, and onto them
    again: each is reviewed once, as the hooks recorded it, and no move queues a range."""
    hour = an_hour_ago()
    base = repo.head()
    repo.git("switch", "-q", "-c", "topic", **hour)
    landed = [repo.land(f"on topic {n}", f"t{n}", env=hour) for n in range(2)]
    repo.git("switch", "-q", "main", **hour)
    for how in MOVES:
        move_main(repo, how, "topic")
        move_main(repo, how, base)
    move_main(repo, "reset --hard", "ORIG_HEAD")
    assert repo.head() == landed[-1]
    assert drain(journal) == [(oid, None) for oid in landed]


def test_a_reset_forward_over_a_flood_is_one_range(repo: Repo, journal: Path) -> None:
    """A branch reset forward over more commits than a flood: one range, never an item each
    (what git is asked is bounded as a pull's is: FLOOD + 1 commits listed)."""
    base = repo.head()
    repo.git("branch", "incoming", base)
    incoming = [Commit(f"incoming {n}", {"file": f"{n}\n"}) for n in range(FLOOD + 5)]
    tip = write_history(repo, incoming, branch="incoming")
    repo.git("branch", "-D", "incoming")  # its reflog with it: only main's move is a landing
    move_main(repo, "reset --hard", tip)
    assert drain(journal) == [(tip, base)]


def test_fetch_and_reset_to_the_remote_is_reviewed_as_a_pull_is(tmp_path: Path) -> None:
    """A teammate's commits brought by `git fetch` + `git reset --hard origin/main` (a script's
    pull): one range, told as a teammate's are, the same review as `git pull --ff-only`'s."""
    mate, upstream, clones = shared_upstream(tmp_path, "pulled", "reset")
    base = mate.head()
    tip = teammate_lands(mate, upstream)
    pulled, reset = clones
    assert pulled.run("pull", "-q", "--ff-only", **an_hour_ago()).returncode == 0
    reset.git("fetch", "-q", **an_hour_ago())
    reset.git("reset", "-q", "--hard", "origin/main", **an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    found = []
    for clone in clones:
        review = report_store.read(clone.git_dir, tip)
        assert review is not None and (review.shape, review.base) == ("range", base)
        assert whose.NOTE in review.notes and review.summary() == "1 warning"
        assert line_markers.unread(clone.git_dir) == []  # told only at error
        found.append([(f.rule, f.path, f.line) for f in review.findings])
    assert found[0] == found[1]


def test_a_shallow_clone_fetched_and_reset_is_reviewed_as_a_pull_is(tmp_path: Path) -> None:
    """An audit: a `--depth 1` clone kept up to date as one is (`git fetch --depth 1` then
    `git reset --hard origin/main`; `git pull` refuses there): git finds no merge base across
    the cut, so the move was taken for one onto an unrelated history, and nothing said a
    teammate's secret had landed. In a shallow clone it is a range from where it was."""
    mate, upstream, _ = shared_upstream(tmp_path)
    mate.land("more", {"m.txt": "m\n"}, hooks=False, env=TEAMMATE)
    mate.git("push", "-q", str(upstream), "main")
    git("clone", "-q", "--depth", "1", f"file://{upstream}", str(tmp_path / "w"), cwd=tmp_path)
    shallow = Repo.existing(tmp_path / "w")
    shallow.install()
    base = shallow.head()
    tip = teammate_lands(mate, upstream)
    shallow.git("fetch", "-q", "--depth", "1", "origin", "main", **an_hour_ago())
    shallow.git("reset", "-q", "--hard", "origin/main", **an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    review = report_store.read(shallow.git_dir, tip)
    assert review is not None and (review.shape, review.base) == ("range", base)
    assert [finding.rule for finding in review.findings] == ["P001"]


def test_a_diverged_branch_reset_onto_its_fetched_upstream_is_reviewed_as_a_pull_is(
    tmp_path: Path,
) -> None:
    """`git fetch` + `git reset --hard origin/main` where main had a commit of its own (it had
    diverged): the teammate's commits it brings are one range from where main was, reviewed and
    told as `git pull --ff-only`'s of them where main had not diverged, with one more line read:
    the line its own commit had changed, back as the upstream has it. Before, a move sideways
    was no landing: the teammate's commits came into the worktree and were never reviewed."""
    mate, upstream, (pulled, moved) = shared_upstream(tmp_path, "pulled", "diverged")
    tip = teammate_lands(mate, upstream)
    mine = moved.land("Keep a line of my own", {"file": "mine\n"}, env=an_hour_ago())
    assert pulled.run("pull", "-q", "--ff-only", **an_hour_ago()).returncode == 0
    moved.git("fetch", "-q", **an_hour_ago())
    moved.git("reset", "-q", "--hard", "origin/main", **an_hour_ago())
    assert sweep.sweep(moved.git_dir, now=later()).enqueued == [f"review-{tip}"]
    assert moved.pending() == [(mine, None), (tip, mine)]
    assert run_reviewer("--once").returncode == 0
    assert sweep.sweep(moved.git_dir, now=later()).enqueued == []  # reviewed once
    pull, reset = (report_store.read(clone.git_dir, tip) for clone in (pulled, moved))
    assert pull is not None and reset is not None
    assert (reset.shape, reset.base, reset.summary()) == ("range", mine, "1 warning")
    assert whose.NOTE in reset.notes and tip not in line_markers.unread(moved.git_dir)
    assert (reset.lines_checked, pull.lines_checked) == (3, 2)
    assert [(f.rule, f.path, f.line) for f in reset.findings] == [
        (f.rule, f.path, f.line) for f in pull.findings
    ]


def reviewed_once_telling_nothing(clone: Repo, tip: str, base: str) -> None:
    """`tip`, found by the sweep, reviewed as one range from `base` that finds nothing and so
    tells nothing: what a squash-merged copy of the person's own commit brings."""
    assert sweep.sweep(clone.git_dir, now=later()).enqueued == [f"review-{tip}"]
    assert run_reviewer("--once").returncode == 0
    again = report_store.read(clone.git_dir, tip)
    assert again is not None and (again.shape, again.base) == ("range", base)
    assert again.findings == [] and line_markers.unread(clone.git_dir) == []


def test_a_reset_onto_a_squash_merged_copy_of_its_own_commit_tells_nothing_again(
    tmp_path: Path,
) -> None:
    """The person's commit, reviewed and told here, squash-merged upstream as a new commit of
    theirs (a hosting service's "Squash and merge"), then `git fetch` + `git reset --hard
    origin/main`: the copy brings nothing the worktree did not hold, and its finding is not
    reviewed and told a second time (a range from where the two lines part would)."""
    mate, upstream, (clone,) = shared_upstream(tmp_path, "clone")
    mine = clone.land("Keep my notes", {"notes.txt": "trailing  \n"}, env=an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    told = report_store.read(clone.git_dir, mine)
    assert told is not None and told.summary() == "1 warning"
    line_markers.mark_read(clone.git_dir, mine)
    me = {"GIT_AUTHOR_EMAIL": "me@example.com", "GIT_COMMITTER_EMAIL": "mate@example.com"}
    copy = mate.land("Keep my notes (#1)", {"notes.txt": "trailing  \n"}, hooks=False, env=me)
    mate.git("push", "-q", str(upstream), "main")
    clone.git("fetch", "-q", **an_hour_ago())
    clone.git("reset", "-q", "--hard", "origin/main", **an_hour_ago())
    reviewed_once_telling_nothing(clone, copy, mine)


@pytest.mark.parametrize("order", ["there, back, then pull", "pull, back, then there"])
def test_a_line_a_pull_brought_is_told_by_the_pull_alone_not_by_a_move_onto_it(
    tmp_path: Path, order: str
) -> None:
    """A branch moved sideways onto the fetched upstream (a teammate's commit holding a key)
    and back, then `git pull` (a merge), while no reviewer ran (or the other way round: the
    pull, back, then onto the upstream): the pull's merge, which the hooks recorded as one
    range from where the branch was, brought the teammate's commit, and the move onto it
    brings nothing nobody recorded. The key is told once, by the merge's review, and reading
    it clears the line. Before, the move's range told it too, and reading one left the other."""
    mate, upstream, (clone,) = shared_upstream(tmp_path, "clone")
    mine = clone.land("Keep a line of my own", {"mine.txt": "mine\n"}, env=an_hour_ago())
    key = {"conf.ini": "aws_access_key_id = AKIAZ7Q4MNB2XK5TLP3W\n"}
    theirs = mate.land("Their config", key, hooks=False, env=TEAMMATE)
    mate.git("push", "-q", str(upstream), "main")
    clone.git("fetch", "-q", **an_hour_ago())
    moves = ["origin/main", mine] if order.startswith("there") else []
    for to in moves:
        clone.git("reset", "-q", "--hard", to, **an_hour_ago())
    pulled = clone.run("pull", "-q", "--no-rebase", "--no-edit", **an_hour_ago())
    assert pulled.returncode == 0, pulled.stderr
    merge = clone.head()
    for to in [mine, "origin/main"] if not moves else []:
        clone.git("reset", "-q", "--hard", to, **an_hour_ago())
    assert sweep.sweep(clone.git_dir, now=later()).enqueued == []
    assert clone.pending() == [(mine, None), (merge, mine)]
    assert run_reviewer("--once").returncode == 0
    assert report_store.read(clone.git_dir, theirs) is None
    told = report_store.read(clone.git_dir, merge)
    assert told is not None and "S002" in {finding.rule for finding in told.findings}
    assert line_markers.unread(clone.git_dir) == [merge]
    shown = clone.landwatch("show", "--unread")
    assert shown.returncode == 0 and "S002" in shown.stdout, shown.stderr
    assert line_markers.unread(clone.git_dir) == []


# Tools that move a branch and say nothing a person's command would: a script's `update-ref`
# (no message), a push or a forced fetch into the repository itself.
UNSAID_MOVES = ["update-ref", "push .", "fetch ."]


def move_main_unsaid(repo: Repo, how: str, to: str) -> None:
    """`main` moved to `to` by `how`, an hour ago, by a tool whose reflog entry says no reset:
    HEAD leaves main first where git refuses to move a branch checked out."""
    hour = an_hour_ago()
    if how == "update-ref":
        repo.git("update-ref", "refs/heads/main", to, **hour)
        return
    repo.git("checkout", "-q", "--detach", **hour)
    repo.git(*how.split(), f"+{to}:refs/heads/main", **hour)
    repo.git("checkout", "-q", "main", **hour)


@pytest.mark.parametrize("how", UNSAID_MOVES)
def test_a_move_sideways_that_says_no_reset_tells_a_squash_merged_copy_nothing_again(
    tmp_path: Path, how: str
) -> None:
    """The same as a reset onto a squash-merged copy of the person's own commit, the branch
    moved by `git update-ref`, `git push . +X:main` or `git fetch . +X:main`: the entry's old
    and new commits say it moved sideways, whatever its message, and it is one range from
    where the branch was. Before, each new commit was reviewed from its own parent, and the
    copy's finding told a second time."""
    mate, upstream, (clone,) = shared_upstream(tmp_path, "clone")
    mine = clone.land("Keep my notes", {"notes.txt": "trailing  \n"}, env=an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    line_markers.mark_read(clone.git_dir, mine)
    me = {"GIT_AUTHOR_EMAIL": "me@example.com", "GIT_COMMITTER_EMAIL": "mate@example.com"}
    copy = mate.land("Keep my notes (#1)", {"notes.txt": "trailing  \n"}, hooks=False, env=me)
    mate.git("push", "-q", str(upstream), "main")
    clone.git("fetch", "-q", **an_hour_ago())
    move_main_unsaid(clone, how, "origin/main")
    reviewed_once_telling_nothing(clone, copy, mine)


def test_a_pull_rebase_onto_a_squash_merged_copy_of_its_own_commit_tells_nothing_again(
    tmp_path: Path,
) -> None:
    """The person's commit, reviewed and told, squash-merged upstream beside a teammate's clean
    commit, then `git pull --rebase` (which drops the person's commit, upstream holding it): the
    upstream's commits are one range from where the branch was, so the copy's finding is not
    reviewed and told a second time (from where the lines part, it was)."""
    mate, upstream, (clone,) = shared_upstream(tmp_path, "clone")
    mine = clone.land("Keep my notes", {"notes.txt": "trailing  \n"}, env=an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    line_markers.mark_read(clone.git_dir, mine)
    me = {"GIT_AUTHOR_EMAIL": "me@example.com", "GIT_COMMITTER_EMAIL": "mate@example.com"}
    mate.land("Keep my notes (#1)", {"notes.txt": "trailing  \n"}, hooks=False, env=me)
    tip = mate.land("Their next", {"b.txt": "clean\n"}, hooks=False, env=TEAMMATE)
    mate.git("push", "-q", str(upstream), "main")
    assert clone.run("pull", "-q", "--rebase", **an_hour_ago()).returncode == 0
    assert clone.head() == tip
    reviewed_once_telling_nothing(clone, tip, mine)


def test_a_landing_whose_subject_says_rebase_is_swept_like_any_other(
    repo: Repo, journal: Path
) -> None:
    """Only a rebase's own entries are read as a rebase's, by the action git wrote before the
    colon: a commit the hooks did not see whose subject holds the word is still a landing."""
    said = scripted_commit(repo, "Fix the rebase script")
    repo.git("update-ref", "-m", "commit: Fix the rebase script", "refs/heads/main", said)
    merged = scripted_commit(repo, "Merge fix-rebase")
    repo.git("update-ref", "-m", "merge fix-rebase: Fast-forward", "refs/heads/main", merged)
    swept = sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{said}", f"review-{merged}"]


@pytest.mark.parametrize("swept_between", [False, True], ids=["no pass", "pass between"])
def test_a_removed_worktree_s_commit_is_still_reviewed(
    repo: Repo, tmp_path: Path, journal: Path, swept_between: bool
) -> None:
    """A linked worktree removed before its queue was drained: its queue goes with it, and the
    branch's reflog brings the commit. An audit: a pass between the commit and the removal (a
    reviewer busy elsewhere) took the commit for recorded, its queue holding it, and read on;
    removed, it was never reviewed. The pass now waits before it until it is reviewed."""
    hotfix = tmp_path / "hotfix"
    repo.git("worktree", "add", "-q", "-b", "hotfix", str(hotfix), **an_hour_ago())
    (hotfix / "fix.txt").write_text("fixed\n")
    subprocess.run(["git", "add", "fix.txt"], cwd=hotfix, check=True)
    env = {**reviewer_env(), **an_hour_ago(), "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@x"}
    env.update(GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@x")
    subprocess.run(["git", "commit", "-q", "-m", "hotfix"], cwd=hotfix, env=env, check=True)
    fix = repo.git("rev-parse", "hotfix")
    if swept_between:
        assert sweep.sweep(repo.git_dir, now=later()).enqueued == []  # recorded in its queue
    repo.git("worktree", "remove", str(hotfix))  # its queue goes with it
    assert drain(journal) == [(fix, None)]


def test_the_sweep_reads_only_what_is_new(repo: Repo) -> None:
    for n in range(5):
        repo.land(f"landed {n}", env=an_hour_ago())
    later = time.time() + 3600
    sweep.sweep(repo.git_dir, now=later)
    state = layout.SWEEP_STATE.path(repo.git_dir).read_text()
    head = repo.git_dir / "logs" / "HEAD"
    assert f'"offset": {head.stat().st_size}' in state
    assert sweep.sweep(repo.git_dir, now=later).entries == 0  # nothing new, nothing read


def test_an_expired_reflog_is_not_read_twice(repo: Repo, journal: Path) -> None:
    first = scripted_commit(repo, "one")
    repo.git("update-ref", "refs/heads/main", first, **an_hour_ago())
    assert drain(journal) == [(first, None)]
    repo.git("reflog", "expire", "--expire=now", "--all")  # the reflogs, rewritten shorter
    second = scripted_commit(repo, "two")
    repo.git("update-ref", "refs/heads/main", second, **an_hour_ago())
    assert drain(journal) == [(first, None), (second, None)]


def test_a_sweep_pass_in_the_reviewer_costs_nothing_when_idle(repo: Repo) -> None:
    # Not a timing: the pass touches no reflog that did not change (no entry read).
    sweep.sweep(repo.git_dir, now=time.time() + 3600)
    assert sweep.sweep(repo.git_dir, now=time.time() + 3600) == sweep.Swept()


def test_sweep_runs_under_python_without_the_review_imported(repo: Repo) -> None:
    # The reviewer's own process never imports pygit2 for the sweep: it is the worker's.
    code = (
        "import sys, time; from landwatch.daemon import sweep;"
        f"sweep.sweep(__import__('pathlib').Path({str(repo.git_dir)!r}), now=time.time());"
        "print('pygit2' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


def test_other_repositories_are_swept_apart(tmp_path: Path, journal: Path) -> None:
    one, two = installed(tmp_path / "one"), installed(tmp_path / "two")
    a = scripted_commit(one, "a")
    one.git("update-ref", "refs/heads/main", a, **an_hour_ago())
    b = scripted_commit(two, "b")
    two.git("update-ref", "refs/heads/main", b, **an_hour_ago())
    assert sorted(drain(journal)) == sorted([(a, None), (b, None)])


def test_a_copied_report_or_a_marker_without_a_record_is_no_review(repo: Repo) -> None:
    """What the sweep takes as reviewed: a report of that very commit, a marker holding its
    record; a report copied under another commit's name, or a bare marker, says nothing."""
    first = repo.land("reviewed")
    assert run_reviewer("--once").returncode == 0
    second = repo.land("never reviewed", "second.txt")
    third = repo.land("never reviewed either", "third.txt")
    asked = landings.Repository(repo.git_dir)
    assert all(asked.recorded(oid) for oid in (first, second, third))
    repo.clear()
    known = repo.git_dir / "landwatch" / "known"
    for oid in (second, third):
        (known / f"review-{oid}").unlink()
    assert not asked.recorded(second) and not asked.recorded(third)
    report = layout.report_file(repo.git_dir, first)
    shutil.copyfile(report, layout.report_file(repo.git_dir, second))
    (known / f"review-{third}").write_text("planted\n")
    assert not asked.recorded(second) and not asked.recorded(third)
    assert asked.recorded(first)


def test_an_entry_dated_ahead_holds_no_later_landing_back(repo: Repo) -> None:
    """One reflog entry stamped years ahead is not waited for until that date: what lands after
    it, unrecorded, is swept at the next pass."""
    repo.land("dated ahead", env=years_ahead())  # the hooks recorded it
    scripted = scripted_commit(repo, "landed without hooks")
    repo.git("update-ref", "refs/heads/main", scripted, **an_hour_ago())
    swept = sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{scripted}"]


def test_an_entry_dated_ahead_waits_only_while_its_reflog_is_written(repo: Repo) -> None:
    """A stamp ahead of the clock says nothing of when its entry was written; the reflog's mtime
    does. Taken, it leaves the time a rewritten reflog is read again from where it was."""
    ahead = scripted_commit(repo, "dated ahead", **years_ahead())
    repo.git("update-ref", "refs/heads/main", ahead, **years_ahead())
    assert sweep.sweep(repo.git_dir, now=time.time()).enqueued == []  # its hook may be at work
    later = time.time() + 2 * SWEEP_GRACE
    assert sweep.sweep(repo.git_dir, now=later).enqueued == [f"review-{ahead}"]
    repo.git("reflog", "expire", "--expire=now", "--all")  # rewritten: the entry ahead is kept
    after = scripted_commit(repo, "after the expire")
    repo.git("update-ref", "refs/heads/main", after, **just_after_the_install())
    swept = sweep.sweep(repo.git_dir, now=time.time() + 4 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{after}"]


def test_a_ref_born_at_a_commit_that_was_there_lands_nothing(tmp_path: Path, journal: Path) -> None:
    """A new worktree's HEAD, a new branch (switch -c, checkout -b, branch, worktree add -b, a
    script's update-ref), a pull into an unborn branch: none is a landing of the history below."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, FLOOD + 2)
    hour = an_hour_ago()
    repo.git("worktree", "add", "-q", "--detach", str(tmp_path / "detached"), "HEAD~3", **hour)
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), "HEAD~2", **hour)
    repo.git("worktree", "add", "-q", str(tmp_path / "named"), **hour)  # its branch made too
    repo.git("switch", "-q", "-c", "switched", **hour)
    repo.git("checkout", "-q", "-b", "checked-out", "HEAD~1", **hour)
    repo.git("branch", "plain", "HEAD~4", **hour)
    repo.git("switch", "-q", "plain", **hour)
    repo.git("update-ref", "refs/heads/scripted", "main~5", **hour)
    named = Repo.existing(tmp_path / "named")
    named.git("checkout", "-q", "--orphan", "unborn", **hour)
    named.git("rm", "-q", "-r", "-f", ".")
    named.git("pull", "-q", str(repo.path), "main", **hour)  # `initial pull`: nothing new
    assert drain(journal) == []


def test_a_first_commit_is_a_landing_of_itself_alone(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    """A commit written where a ref was unborn (an orphan branch, here and in a new worktree; a
    libgit2 client's commit on a new branch) is reviewed, and nothing below it."""
    repo.git("checkout", "-q", "--orphan", "fresh", **an_hour_ago())
    fresh = commit_without_hooks(repo.path, "fresh start")
    repo.git("checkout", "-q", "main", **an_hour_ago())
    added = tmp_path / "added"
    repo.git("worktree", "add", "-q", "--detach", str(added), **an_hour_ago())
    Repo.existing(added).git("checkout", "-q", "--orphan", "elsewhere", **an_hour_ago())
    there = commit_without_hooks(added, "first in a worktree")
    below = scripted_commit(repo, "below, reviewed")
    repo.git("update-ref", "refs/heads/main", below, **an_hour_ago())
    branched = scripted_commit(repo, "on a new branch", parent=below)
    message = "commit: on a new branch"  # what libgit2 writes
    repo.git("update-ref", "-m", message, "refs/heads/new", branched, **an_hour_ago())
    done = drain(journal)
    assert sorted(done) == sorted((oid, None) for oid in (fresh, there, below, branched))


def test_a_branch_renamed_or_copied_brings_its_history_no_second_time(tmp_path: Path) -> None:
    """`git branch -m` moves a reflog, `-c` copies one: what it held before the install is
    not reviewed under the new name either, and what lands after it is."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, 3)
    repo.git("branch", "-m", "main", "trunk", **an_hour_ago())
    repo.git("branch", "-c", "trunk", "copy", **an_hour_ago())
    landed = scripted_commit(repo, "after the rename")
    repo.git("update-ref", "refs/heads/trunk", landed, **an_hour_ago())
    swept = sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{landed}"]


@pytest.mark.parametrize("checked_out", [False, True])
def test_a_branch_moved_without_the_hooks_then_renamed_is_swept(
    repo: Repo, checked_out: bool
) -> None:
    """An audit: a branch moved with no hook (`git fetch origin rel:rel`, a script's
    `update-ref`), then renamed (`git branch -m`) before the next pass: the renamed reflog was
    read as one born, after the rename's entry, and the landing was never reviewed. The reflog
    keeps its inode and lines: it is read on from the old name's cursor."""
    repo.git("branch", "rel")
    if checked_out:
        repo.git("switch", "-q", "rel")
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    landed = scripted_commit(repo, "on rel", parent="rel")
    repo.git("update-ref", "-m", "script: add", "refs/heads/rel", landed, **an_hour_ago())
    repo.git("branch", "-m", "rel", "release", **an_hour_ago())
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == [f"review-{landed}"]
    assert "logs/refs/heads/rel" not in cursors(repo)


def test_a_branch_born_beside_a_reflog_that_is_not_there_is_swept(tmp_path: Path) -> None:
    """A bare repository worked in a linked worktree: its own HEAD has no reflog (listed, not
    there). A branch born after it was passed over took the reflog not there for one renamed
    away, and the pass raised (KeyError): the reviewer stopped."""
    linked = bare_worktree(tmp_path)
    linked.install()
    common = tmp_path / "shop.git"
    assert sweep.sweep(common, now=later()).enqueued == []
    linked.git("branch", "topic", **an_hour_ago())
    landed = scripted_commit(linked, "on topic", parent="topic")
    linked.git("update-ref", "-m", "script: add", "refs/heads/topic", landed, **an_hour_ago())
    assert sweep.sweep(common, now=later()).enqueued == [f"review-{landed}"]


def installed_by_an_older_release(path: Path) -> Repo:
    """landwatch installed after 3 landings by a release whose cursors kept no time (0)."""
    repo = Repo(path)
    installed_after(repo, 3)
    kept = json.loads(layout.SWEEP_STATE.path(repo.git_dir).read_text())
    for cursor in kept["reflogs"].values():
        cursor["time"] = 0
    layout.SWEEP_STATE.path(repo.git_dir).write_text(json.dumps(kept))
    return repo


def test_an_older_install_s_cursors_are_dated_before_an_expire_rewrites_them(
    tmp_path: Path,
) -> None:
    """Cursors an older release stored at the install kept no time (0): the first pass dates
    each by the entry it ends at, so that a reflog gc rewrites later brings no history back."""
    repo = installed_by_an_older_release(tmp_path / "repo")
    assert sweep.sweep(repo.git_dir, now=time.time()).enqueued == []
    repo.git("reflog", "expire", "--all")
    swept = sweep.sweep(repo.git_dir, now=time.time() + 4 * SWEEP_GRACE)
    assert swept.enqueued == []


def test_a_reflog_rewritten_after_the_install_brings_no_history(tmp_path: Path) -> None:
    """`git gc` (and so `git maintenance`) rewrites every reflog (`reflog expire`), keeping 90
    days: none of it is read again, and what lands after it is."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, 3)
    repo.git("reflog", "expire", "--all")
    landed = scripted_commit(repo, "after the expire")
    repo.git("update-ref", "refs/heads/main", landed, **just_after_the_install())
    swept = sweep.sweep(repo.git_dir, now=time.time() + 4 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{landed}"]


def test_a_backdated_landing_lowers_no_floor_under_a_rewritten_reflog(tmp_path: Path) -> None:
    """A commit dated a month back (GIT_COMMITTER_DATE, a skewed clock) is swept as any other;
    the expire after it still brings back nothing that landed before the install."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, 3)
    month_ago = {"GIT_COMMITTER_DATE": f"@{int(time.time()) - 30 * 86400} +0000"}
    backdated = scripted_commit(repo, "backdated", **month_ago)
    repo.git("update-ref", "refs/heads/main", backdated, **month_ago)
    swept = sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE)
    assert swept.enqueued == [f"review-{backdated}"]
    repo.git("reflog", "expire", "--all")
    assert sweep.sweep(repo.git_dir, now=time.time() + 4 * SWEEP_GRACE).enqueued == []


def test_an_older_install_s_cursors_rewritten_before_the_first_pass_bring_no_history(
    tmp_path: Path,
) -> None:
    """An expire (a gc while the upgraded reviewer was not running) rewrote the reflogs before
    the older release's cursors (time 0) were dated: what that release had read stays read."""
    repo = installed_by_an_older_release(tmp_path / "repo")
    repo.git("reflog", "expire", "--all")
    assert sweep.sweep(repo.git_dir, now=time.time() + 4 * SWEEP_GRACE).enqueued == []


# The cursors: one per reflog, forgotten when its reflog is gone (a branch deleted or renamed, a
# worktree removed), and a reflog made again read as a birth: what is written at it lands,
# never the history it had or inherited.

TOPIC = "logs/refs/heads/topic"


def later() -> float:
    """A pass's clock past the grace the sweep leaves a hook: what was written now is taken."""
    return time.time() + 4 * SWEEP_GRACE


def cursors(repo: Repo) -> dict[str, dict[str, int]]:
    reflogs: dict[str, dict[str, int]] = json.loads(
        layout.SWEEP_STATE.path(repo.git_dir).read_text()
    )["reflogs"]
    return reflogs


def written(repo: Repo, message: str, parent: str | None = None) -> str:
    """A commit written as a script or a libgit2 client writes one: no hook, HEAD not moved."""
    tree = repo.git("write-tree")
    parents = ("-p", parent) if parent is not None else ()
    return repo.git("commit-tree", tree, *parents, "-m", message)


def born_again(repo: Repo, *, swept_between: bool, **env: str) -> str:
    """`topic` swept, deleted, then made again by a commit written where it was unborn (a libgit2
    client's `commit:`), with a pass between or not; the commit."""
    repo.git("branch", "topic")
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    assert TOPIC in cursors(repo)
    repo.git("branch", "-D", "topic")
    if swept_between:
        assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    again = written(repo, "topic, made again")
    repo.git("update-ref", "-m", "commit: topic, made again", "refs/heads/topic", again, **env)
    return again


def test_the_cursor_of_a_reflog_that_is_gone_is_forgotten(repo: Repo, tmp_path: Path) -> None:
    """A branch deleted, one renamed, a worktree removed: their cursors go at the pass that
    finds them gone. Before, they were kept for ever, and sweep.json grew with every branch a
    busy repository ever had."""
    repo.git("branch", "topic")
    repo.git("branch", "renamed-away")
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    side_head = "worktrees/side/logs/HEAD"
    assert {TOPIC, "logs/refs/heads/renamed-away", side_head} <= set(cursors(repo))
    repo.git("branch", "-D", "topic")
    repo.git("branch", "-m", "renamed-away", "renamed-to")
    repo.git("worktree", "remove", str(tmp_path / "side"))
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    kept = set(cursors(repo))
    assert {TOPIC, "logs/refs/heads/renamed-away", side_head}.isdisjoint(kept)
    assert {"logs/HEAD", "logs/refs/heads/main", "logs/refs/heads/renamed-to"} <= kept
    assert "logs/refs/heads/side" in kept  # the worktree's branch is still there


def test_a_branch_made_again_after_a_pass_is_a_birth(repo: Repo) -> None:
    """Its cursor forgotten at the pass that found it gone, `topic` made again is read as born:
    the commit written at it lands, however it is dated. Before, the old cursor read the new
    reflog as the old one rewritten, and passed over every entry dated before the last one it
    had taken: the commit went unreviewed."""
    again = born_again(repo, swept_between=True, **an_hour_ago())
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == [f"review-{again}"]


def test_a_branch_made_again_on_the_inode_of_the_deleted_one_is_a_birth(repo: Repo) -> None:
    """Deleted and made again between two passes, the new reflog given the inode of the one
    deleted (a filesystem may hand a new file the inode just freed: set here in the cursor, as
    that leaves it) and grown past where the old one was read: the line before the cursor is not
    the last one it took, so the file is read again (what is not older than the last entry
    taken). Before, it was read on from the old offset, and the branch's first commit went
    unreviewed."""
    again = born_again(repo, swept_between=False)
    on = written(repo, "on topic", parent=again)
    repo.git("update-ref", "-m", "commit: on topic", "refs/heads/topic", on, again)
    reflog = repo.git_dir / TOPIC
    state = json.loads(layout.SWEEP_STATE.path(repo.git_dir).read_text())
    assert reflog.stat().st_size > state["reflogs"][TOPIC]["offset"]
    state["reflogs"][TOPIC]["inode"] = reflog.stat().st_ino
    layout.SWEEP_STATE.path(repo.git_dir).write_text(json.dumps(state))
    swept = sweep.sweep(repo.git_dir, now=later())
    assert swept.enqueued == [f"review-{again}", f"review-{on}"]


@pytest.mark.parametrize("swept_between", [True, False], ids=["pass between", "no pass"])
def test_a_branch_made_again_from_another_brings_no_history_back(
    tmp_path: Path, swept_between: bool
) -> None:
    """`topic` deleted, then a branch whose history landed before the install renamed to it:
    none of that history is reviewed, with a pass between the two or not; what lands on it
    after is. Both were made from the same commit in the same second, so the old branch's first
    line is the very line `topic`'s cursor took last. Before, with no pass between, the sweep
    read on after that line as in a reflog an expire rewrote: every commit of the old branch's
    history was reviewed."""
    repo = Repo(tmp_path / "repo")
    same_second = {"GIT_COMMITTER_DATE": f"@{int(time.time())} +0000"}
    repo.git("branch", "old", **same_second)
    repo.git("switch", "-q", "old")
    for n in range(3):
        repo.land(f"before the install {n}", env=an_hour_ago())
    repo.git("switch", "-q", "main")
    repo.install()
    repo.git("branch", "topic", **same_second)
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    repo.git("branch", "-D", "topic")
    if swept_between:
        assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    repo.git("branch", "-m", "old", "topic")
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    landed = written(repo, "on topic", parent=repo.git("rev-parse", "topic"))
    repo.git("update-ref", "-m", "commit: on topic", "refs/heads/topic", landed)
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == [f"review-{landed}"]
    assert "logs/refs/heads/old" not in cursors(repo)


# Cursors that cannot be read: garbage where they were, or a newer release's (a downgrade).


def test_cursors_that_cannot_be_read_are_said_and_the_reflogs_read_again_since(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """sweep.json garbage (a disk's fault, a hand's edit): the pass says so once and reads every
    reflog again from when the cursors were last written, as one an expire rewrote. Before, it
    began again at the reflogs' ends, saying nothing: a landing the hooks missed since was never
    reviewed."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, 3)
    state = layout.SWEEP_STATE.path(repo.git_dir)
    landed = scripted_commit(repo, "after the install, no hook")
    repo.git("update-ref", "refs/heads/main", landed, **just_after_the_install())
    stored = state.stat().st_mtime
    state.write_bytes(b"\x00garbage{")
    os.utime(state, (stored, stored))  # as it was last written
    with caplog.at_level(logging.WARNING, logger="landwatch.reviewer"):
        assert sweep.sweep(repo.git_dir, now=later()).enqueued == [f"review-{landed}"]
        assert sweep.sweep(repo.git_dir, now=later()).enqueued == []
    said = [r.getMessage() for r in caplog.records if "read again from" in r.getMessage()]
    assert len(said) == 1 and f"{state} cannot be read (not JSON)" in said[0], said
    assert json.loads(state.read_text())["format"] == layout.SWEEP_STATE.format


def test_a_newer_release_s_cursors_are_never_written_over_and_the_stop_is_said(
    tmp_path: Path,
) -> None:
    """sweep.json of a newer release (landwatch downgraded): left byte for byte, and the sweep
    stopped there is said once in the reviewer's log, in status and by doctor, which names the
    file. Before, it was taken for none and written over with cursors at the reflogs' ends."""
    repo = Repo(tmp_path / "repo")
    installed_after(repo, 1)
    state = layout.SWEEP_STATE.path(repo.git_dir)
    newer = b'{"format": 2, "cursors": {}}'
    state.write_bytes(newer)
    landed = scripted_commit(repo, "no hook")
    repo.git("update-ref", "refs/heads/main", landed, **an_hour_ago())
    assert sweep.sweep(repo.git_dir, now=later()) == sweep.Swept()
    assert run_reviewer("--once").returncode == 0
    assert state.read_bytes() == newer
    log = layout.REVIEWER_LOG.path().read_text()
    assert log.count("the reflog sweep is stopped") == 1, log
    assert f"{state} was written by a newer landwatch (format 2; this one reads 1)" in log
    status = repo.landwatch("status").stdout
    assert "the reflog sweep is stopped" in status
    doctor = repo.landwatch("doctor").stdout
    assert f"{state} was written by a newer landwatch" in doctor
    assert "fix: upgrade landwatch to the release that wrote it" in doctor


def test_a_commit_rebuilt_without_hooks_and_moved_to_is_judged_for_what_it_adds(
    repo: Repo, tmp_path: Path
) -> None:
    """Attack 94: a commit adding a token, reviewed and refused at the gate, rebuilt with a new
    message the way jj, git-branchless or a script rebuild one (`git commit-tree`, then `git
    reset --hard` to it: no hook). The sweep reviewed the move sideways as a range from the old
    tip, which changed nothing, and kept it as the new commit's review: no marker, and the push
    sent the token. A range's review is not its commit's own: marked unchecked, read on."""
    from landwatch.review import blocking
    from support.kinds import origin, remote_head
    from support.tokens import GITHUB_TOKEN

    remote = origin(repo, tmp_path / "remote.git")
    old = repo.land("settings", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'}, env=an_hour_ago())
    assert run_reviewer("--once").returncode == 0
    rebuilt = repo.git("commit-tree", "-p", "HEAD~1", "-m", "settings, reworded", "HEAD^{tree}")
    repo.git("reset", "-q", "--hard", rebuilt, **an_hour_ago())
    assert sweep.sweep(repo.git_dir, now=later()).enqueued == [f"review-{rebuilt}"]
    assert run_reviewer("--once").returncode == 0
    kept = report_store.read(repo.git_dir, rebuilt)
    assert kept is not None and (kept.shape, kept.base, kept.findings) == ("range", old, [])
    assert not blocking.own(repo.git_dir, kept)
    assert (layout.BLOCKING.path(repo.git_dir) / rebuilt).read_text() == "unchecked\n"
    pushed = repo.run("push", "origin", "main")
    assert pushed.returncode != 0 and f"{rebuilt[:10]} settings.py:1  S002" in pushed.stderr
    assert remote_head(remote) != rebuilt
