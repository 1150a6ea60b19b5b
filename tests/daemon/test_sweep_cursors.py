"""The sweep's cursors with real git: one per reflog, forgotten when its reflog is gone (a branch
deleted or renamed, a worktree removed), and a reflog made again read as a birth: what is written
at it lands, never the history it had or inherited."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from landwatch import layout
from landwatch.daemon import sweep
from landwatch.daemon.settings import SWEEP_GRACE
from support.repos import Repo

TOPIC = "logs/refs/heads/topic"


def an_hour_ago() -> dict[str, str]:
    """Entries stamped an hour ago: before the last entry a pass took, as `git am
    --committer-date-is-author-date` or a script's GIT_COMMITTER_DATE stamps them."""
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) - 3600} +0000"}


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
