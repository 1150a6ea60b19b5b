"""The push gate's bench (bench/bench_push_gate.py) counts what it says: its recorder sees no
Python start for a push whose commit's review is kept and clean, and one for a commit with none."""

from __future__ import annotations

from pathlib import Path

from bench_push_gate import (
    commit,
    marked_branch_merged,
    pushing_repo,
    recorded,
    review_kept,
    starts,
    timed_push,
)
from support.queue import git


def test_the_recorder_sees_each_python_start_of_the_gate(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    repo = recorded(pushing_repo(tmp_path, "repo", hooks=True), calls)
    remote = tmp_path / "repo.git"
    commit(repo, 1)
    review_kept()
    timed_push(repo)
    assert starts(calls) == 0  # the review kept and clean: the hook alone let it go
    assert git("rev-parse", "main", cwd=remote) == git("rev-parse", "HEAD", cwd=repo)
    commit(repo, 2)
    timed_push(repo)  # no review yet, no reviewer: the gate's Python scanned it
    assert calls.read_text().splitlines() == [f"pre-push -- origin {remote}"]
    assert git("rev-parse", "main", cwd=remote) == git("rev-parse", "HEAD", cwd=repo)


def test_a_merge_bringing_in_a_marked_commit_the_remote_holds_starts_python_once(
    tmp_path: Path,
) -> None:
    """The sixth setup: its commit with a blocking marker, on a branch the remote holds, sends the
    push to the gate's Python (which asks the remote, and lets it go)."""
    calls = tmp_path / "calls"
    repo = recorded(pushing_repo(tmp_path, "repo", hooks=True), calls)
    marked_branch_merged(repo, 1)
    review_kept()
    timed_push(repo)
    assert starts(calls) == 1
    assert git("rev-parse", "main", cwd=tmp_path / "repo.git") == git("rev-parse", "HEAD", cwd=repo)
