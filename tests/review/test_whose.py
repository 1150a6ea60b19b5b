"""Whose commits a landed range brings: others' only when none of them, merges aside, was
written or committed by the person's user.email."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2

from landwatch.review.change import open_repository
from landwatch.review.whose import copied, others_only
from landwatch.sharing import reviewer_email
from support.repos import Repo

MATE = {"GIT_AUTHOR_EMAIL": "mate@example.com", "GIT_COMMITTER_EMAIL": "mate@example.com"}
ME = "t@example.com"  # what support.queue.git_env commits as


def test_a_range_is_others_only_when_no_commit_of_it_is_mine(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    base = repo.head()
    repo.land("theirs", {"a.txt": "a\n"}, hooks=False, env=MATE)
    theirs = repo.head()
    git_repo = open_repository(repo.git_dir)
    assert others_only(git_repo, theirs, base, ME)
    assert others_only(git_repo, theirs, base, " T@Example.COM ")
    assert not others_only(git_repo, theirs, base, "")  # whose, nobody can tell
    assert not others_only(git_repo, theirs, theirs, ME)  # a range of nothing
    # Written by the teammate, committed by me (a cherry-pick, git am): mine to act on.
    repo.land("picked", {"b.txt": "b\n"}, hooks=False, env={"GIT_AUTHOR_EMAIL": "m@example.com"})
    assert not others_only(git_repo, repo.head(), base, ME)


def test_a_copy_of_a_commit_the_branch_held_does_not_make_the_range_mine(tmp_path: Path) -> None:
    """Upstream "Rebase and merge"d the person's commit (a copy: the person's author, the same
    patch) beside a teammate's: the line moved onto it brings only the teammate's lines, and
    told their warnings as the person's. A commit of mine that is no such copy still is mine."""
    repo = Repo(tmp_path / "repo")
    fork = repo.head()
    repo.land("mine", {"notes.txt": "mine\n"}, hooks=False)
    held = repo.head()
    repo.git("checkout", "-q", "-b", "upstream", fork)
    repo.land("theirs", {"a.txt": "a\n"}, hooks=False, env=MATE)
    hosted = {**MATE, "GIT_AUTHOR_EMAIL": ME}  # the hosting service commits the person's copy
    repo.land("mine (#1)", {"notes.txt": "mine\n"}, hooks=False, env=hosted)
    git_repo = open_repository(repo.git_dir)
    assert others_only(git_repo, repo.head(), held, ME)
    repo.land("mine, new", {"b.txt": "b\n"}, hooks=False, env=hosted)
    assert not others_only(git_repo, repo.head(), held, ME)


def _copied(git_repo: pygit2.Repository, tip: str, base: str, reviewed: set[str]) -> list[str]:
    """whose.copied as kinds.review asks it: of the range's commits with no review."""
    walker = git_repo.walk(tip)
    walker.hide(base)
    unreviewed = [commit for commit in walker if str(commit.id) not in reviewed]
    return copied(git_repo, tip, unreviewed, reviewed.__contains__)


def test_a_copy_is_found_on_a_local_branch_by_its_patch_and_author(tmp_path: Path) -> None:
    """whose.copied: the reviewed commits of local branches the tip lacks whose copy the range
    brings unreviewed, the same patch by the same author; not another's same patch, nor a
    commit no branch holds, nor one whose copy has a review of its own."""
    repo = Repo(tmp_path / "repo")
    base = repo.head()
    repo.git("checkout", "-q", "-b", "topic")
    mine = repo.land("mine", {"notes.txt": "mine\n"}, hooks=False)
    repo.land("also mine", {"other.txt": "other\n"}, hooks=False)
    repo.git("checkout", "-q", "-b", "upstream", base)
    repo.land("theirs", {"a.txt": "a\n"}, hooks=False, env=MATE)
    repo.land(
        "mine (#1)", {"notes.txt": "mine\n"}, hooks=False, env={**MATE, "GIT_AUTHOR_EMAIL": ME}
    )
    repo.land("their copy", {"other.txt": "other\n"}, hooks=False, env=MATE)
    tip = repo.head()
    git_repo = open_repository(repo.git_dir)
    reviewed = {mine, repo.git("rev-parse", "topic")}
    assert _copied(git_repo, tip, base, reviewed) == [mine]
    # A branch at no commit stops nothing (an audit: one such stopped the whole walk).
    repo.git("symbolic-ref", "refs/heads/alias", "refs/heads/upstream")
    repo.git("symbolic-ref", "refs/heads/dangling", "refs/heads/nowhere")
    (repo.git_dir / "refs" / "heads" / "tree").write_text(repo.git("rev-parse", "HEAD^{tree}"))
    assert _copied(git_repo, tip, base, reviewed) == [mine]
    assert _copied(git_repo, tip, base, {*reviewed, repo.git("rev-parse", "HEAD~1")}) == []
    repo.git("branch", "-q", "-D", "topic")
    assert _copied(git_repo, tip, base, reviewed) == []


def test_a_merge_of_mine_among_theirs_does_not_make_them_mine(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    base = repo.head()
    repo.git("checkout", "-q", "-b", "theirs")
    repo.land("theirs", {"a.txt": "a\n"}, hooks=False, env=MATE)
    repo.git("checkout", "-q", "main")
    repo.land("upstream", {"u.txt": "u\n"}, hooks=False, env=MATE)
    repo.git("merge", "-q", "--no-edit", "theirs")  # the merge a pull makes: committed by me
    assert others_only(open_repository(repo.git_dir), repo.head(), base, ME)


def test_an_address_that_is_not_utf8_is_the_person_s_own_as_git_wrote_it(tmp_path: Path) -> None:
    """A user.email in Latin-1 (`caf\\xe9@`, commits kept in Latin-1 too): read with U+FFFD for
    its byte, it was the address of no commit, and every range was taken for others' only."""
    repo = Repo(tmp_path / "repo")
    base = repo.head()
    address = b"caf\xe9@example.com"
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")  # else git makes the commit's UTF-8
    subprocess.run([b"git", b"config", b"user.email", address], cwd=repo.path, check=True)
    mine = {"GIT_AUTHOR_EMAIL": os.fsdecode(address), "GIT_COMMITTER_EMAIL": os.fsdecode(address)}
    repo.land("mine", {"a.txt": "a\n"}, hooks=False, env=mine)
    email = reviewer_email(repo.git_dir)
    assert not others_only(open_repository(repo.git_dir), repo.head(), base, email)
