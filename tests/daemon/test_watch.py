"""File events wake the reviewer (daemon.watch, and daemon.watched, what each event means): a
landing is taken in without a rescan, and a worktree added after the start is watched at once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.daemon import (
    RECORDING,
    done_ids,
    reviewed,
    reviewer_command,
    reviewer_env,
    running,
    wait_for,
)
from support.repos import Repo


def test_a_file_event_wakes_it_for_a_new_item(repo: Repo, journal: Path) -> None:
    # No rescan within the test's life: only the hook's file event can bring the item in.
    # How fast is bench_reviewer.py's business.
    command = ("--rescan", "3600", "--handler", "review=support.handlers:Noop")
    with running(*command, env=reviewer_env(journal)):
        oid = repo.land("wake up")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the item settled")


def test_a_new_worktree_is_watched_without_a_rescan(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    with running("--rescan", "3600", *RECORDING, env=reviewer_env(journal)):
        linked = tmp_path / "linked"
        repo.git("worktree", "add", "-q", "-b", "topic", str(linked))
        (linked / "t.txt").write_text("t\n")
        subprocess.run(["git", "add", "t.txt"], cwd=linked, check=True)
        subprocess.run(
            ["git", "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "t"],
            cwd=linked,
            check=True,
        )
        oid = repo.git("rev-parse", "topic")
        wait_for(lambda: (oid, None) in reviewed(journal), "the linked worktree's commit")


def test_with_file_watches_run_out_it_starts_and_reviews_by_rescans(repo: Repo) -> None:
    """An audit: inotify watches run out at its start (a desktop's 8,192, an IDE holding most)
    made the reviewer exit 1 before any review, and its service restart it for ever. Run in a
    user namespace of its own, whose limit is its own: nothing else on the machine is touched."""
    if subprocess.run(["unshare", "--user", "--map-root-user", "true"]).returncode != 0:
        pytest.skip("no user namespace to lower the limit in")
    oid = repo.land("with few watches")
    few = 'echo 3 > /proc/sys/user/max_inotify_watches && exec "$@"'
    done = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            few,
            "sh",
            *reviewer_command("--once"),
        ],
        env=reviewer_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    assert "no file events for" in done.stderr
