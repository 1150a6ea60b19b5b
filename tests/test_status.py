"""`landwatch status`: every registered repository's queue and the reviewer's lines, as a table and
as JSON; one repository that cannot be read does not hide the others."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from daemon_helpers import reviewer_env, running
from repo_helpers import Repo, installed


def test_status_json_and_table(repo: Repo) -> None:
    repo.land("one")
    repo.land("two", "two")
    shown = repo.landwatch("status", "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["reviewer"] is None
    [repository] = data["repositories"]
    assert repository["repository"] == str(repo.git_dir.resolve())
    [worktree] = repository["worktrees"]
    assert worktree["counts"]["pending"] == 2 and worktree["oldest_pending_seconds"] >= 0
    table = repo.landwatch("status").stdout
    assert "reviewer: not running" in table and str(repo.git_dir) in table


def test_status_shows_every_kind_of_line(repo: Repo) -> None:
    with running(env=reviewer_env()):
        status = repo.landwatch("status", "--json")
    assert status.returncode == 0, status.stderr
    assert set(json.loads(status.stdout)["lines"]) == {"review", "push", "maintenance"}


def test_a_queue_that_cannot_be_read_is_reported_and_the_others_shown(
    repo: Repo, tmp_path: Path
) -> None:
    other = installed(tmp_path / "other")
    work = other.git_dir / "landwatch"
    shutil.rmtree(work)
    work.write_text("not a directory\n")
    shown = repo.landwatch("status", "--json")
    assert shown.returncode == 0, shown.stderr
    by_path = {r["repository"]: r for r in json.loads(shown.stdout)["repositories"]}
    [broken] = by_path[str(other.git_dir.resolve())]["worktrees"]
    assert "is not a directory" in broken["problem"]
    [fine] = by_path[str(repo.git_dir.resolve())]["worktrees"]
    assert fine["problem"] is None and fine["counts"]["pending"] == 0
    table = repo.landwatch("status")
    assert table.returncode == 0 and "skipped:" in table.stdout


def test_a_linked_work_directory_is_reported_not_followed(repo: Repo, tmp_path: Path) -> None:
    other = installed(tmp_path / "other")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(other.git_dir / "landwatch", elsewhere)
    (other.git_dir / "landwatch").symlink_to(elsewhere)
    shown = repo.landwatch("status", "--json")
    assert shown.returncode == 0, shown.stderr
    by_path = {r["repository"]: r for r in json.loads(shown.stdout)["repositories"]}
    [linked] = by_path[str(other.git_dir.resolve())]["worktrees"]
    assert "not following it" in linked["problem"]
    assert by_path[str(repo.git_dir.resolve())]["worktrees"][0]["problem"] is None
