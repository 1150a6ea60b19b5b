"""What a push's remote holds, asked (push_heard), with real git and bare remotes: what a place
names, or why it did not answer; for a push creating a ref, what the remote says rather than
tracking refs another place left, what it names that a clone lacks fetched (objects alone) where
those tracking refs knew more; for a push creating none, its tracking refs, nothing asked."""

from __future__ import annotations

import os
from pathlib import Path

from landwatch import push_heard
from support.kinds import bare_remote, origin
from support.queue import git
from support.repos import Repo

ZERO = "0" * 40


def test_a_place_asked_says_its_branches_and_tags_or_why_not(repo: Repo, tmp_path: Path) -> None:
    """`git ls-remote` of the place, where the person's git runs (a relative URL from there),
    as the share kind and the push gate ask it; a place that does not answer, why not."""
    remote = origin(repo, tmp_path / "remote.git")
    repo.git("tag", "-a", "v1", "-m", "release")
    repo.git("push", "-q", "--no-verify", "origin", "v1")
    tag = repo.git("rev-parse", "v1")
    relative = os.path.relpath(remote, repo.path)
    tips, why = push_heard.heard_tips(relative, cwd=repo.path, git_dir=repo.git_dir, timeout=30)
    assert tips == sorted({repo.head(), tag}) and why == ""  # the tag and the commit it names
    tips, why = push_heard.heard_tips(
        str(tmp_path / "gone.git"), cwd=repo.path, git_dir=repo.git_dir, timeout=30
    )
    # git's first line, the reason (its last is advice: "and the repository exists.").
    assert tips is None and why.startswith("fatal: '") and "does not appear to be a git" in why


def pushed_from_elsewhere(remote: Path, clone: Path) -> str:
    """A commit pushed to main of `remote` from another clone of it (a teammate's, or the
    first commit of a repository made on its host): its id."""
    git("clone", "-q", str(remote), str(clone), cwd=remote.parent)
    git("commit", "-q", "--allow-empty", "-m", "elsewhere", cwd=clone)
    git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=clone)
    return git("rev-parse", "HEAD", cwd=clone)


def held(repo: Repo, remote: Path, *, ask: bool = True) -> push_heard.Held:
    """What the gate takes origin at `remote` to hold, for a push of a branch `topic`, asked
    (as for a push creating it) or not."""
    held_at = {"refs/heads/topic": ZERO}
    return push_heard.held_by_remote(
        repo.git_dir, "origin", str(remote), held_at, ask=ask, where=repo.path
    )


def test_what_a_remote_moved_on_to_is_fetched_where_its_tracking_refs_knew_more(
    repo: Repo, tmp_path: Path
) -> None:
    """A teammate pushed to main since this clone's last fetch: what the remote names, this clone
    lacks, and origin/main, which it holds, is past all the remote names that is here. The new
    tip is fetched, objects alone (no ref moved, no FETCH_HEAD), so that no history the remote
    holds is judged again as if sent."""
    remote = origin(repo, tmp_path / "remote.git")
    moved = pushed_from_elsewhere(remote, tmp_path / "teammate")
    refs = repo.git("for-each-ref")
    assert repo.run("cat-file", "-e", moved).returncode != 0
    # Not asked (a push creating no ref): the tracking refs.
    assert held(repo, remote, ask=False) == push_heard.Held([], ["--remotes=origin"], ("origin",))
    assert repo.run("cat-file", "-e", moved).returncode != 0
    found = held(repo, remote)
    assert found == push_heard.Held([moved], named=("origin",))
    assert repo.run("cat-file", "-e", moved).returncode == 0
    assert repo.git("for-each-ref") == refs and not (repo.git_dir / "FETCH_HEAD").exists()


def test_tracking_refs_of_the_old_place_are_not_what_a_new_one_holds(
    repo: Repo, tmp_path: Path
) -> None:
    """After `git remote set-url origin NEW`, origin/main is the old repository's: only what the
    new one names counts, its own first commit fetched (this clone lacks it)."""
    origin(repo, tmp_path / "old.git")
    new = bare_remote(tmp_path / "new.git")
    first = pushed_from_elsewhere(new, tmp_path / "readme")
    repo.git("remote", "set-url", "origin", str(new))
    found = held(repo, new)
    assert found.tips == [first] and found.tracking == [] and not found.unfetched
    # A place that does not answer: its tracking refs stand in, and why is said.
    gone = tmp_path / "gone.git"
    repo.git("remote", "set-url", "origin", str(gone))
    found = held(repo, gone)
    assert found.tracking == ["--remotes=origin"] and found.unheard.startswith("fatal: '")


def test_a_place_is_asked_where_a_fetch_s_rewriting_keeps_it_one_repository(
    repo: Repo, tmp_path: Path
) -> None:
    """Round 3 of the audits of attack 114's mends: a place whose fetch rewriting sends asking
    to another repository (a mirror) is not asked; one spelt otherwise for fetching (https
    fetched, ssh pushed; here a path and its file:// URL) is the same place, and is asked."""
    public = bare_remote(tmp_path / "public.git")
    repo.git("push", "-q", str(public), "main")
    repo.git("config", f"url.file://{public}.insteadOf", str(public))
    tips, why = push_heard.heard_tips(str(public), cwd=repo.path, git_dir=None, timeout=30)
    assert tips == [repo.head()] and why == ""
    mirror = bare_remote(tmp_path / "mirror.git")
    repo.git("config", "--unset", f"url.file://{public}.insteadOf")
    repo.git("config", f"url.{mirror}.insteadOf", str(public))
    tips, why = push_heard.heard_tips(str(public), cwd=repo.path, git_dir=None, timeout=30)
    assert tips is None and "cannot be asked" in why
