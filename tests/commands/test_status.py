"""`landwatch status`: every registered repository's queue, its coverage and the reviewer's lines,
as a table and as JSON; one repository that cannot be read does not hide the others."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from landwatch.commands import status
from landwatch.daemon.lock import InstanceLock
from landwatch.styled import Out
from landwatch.work_item import Claimed
from support.daemon import reviewer_env, running
from support.repos import Repo, installed
from support.terminal import Terminal, words


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
    # Recorded by the hooks, not yet published by a reviewer: waiting all the same.
    assert worktree["waiting"] == 2 and worktree["oldest_pending_seconds"] >= 0
    table = repo.landwatch("status").stdout
    assert "reviewer: not running" in table and str(repo.git_dir) in table
    assert "reviews not shared from 1 repository (landwatch share there turns it on)" in table


def test_status_shows_every_kind_of_line(repo: Repo) -> None:
    with running(env=reviewer_env()):
        status = repo.landwatch("status", "--json")
    assert status.returncode == 0, status.stderr
    assert set(json.loads(status.stdout)["lines"]) == {
        "review",
        "project_hooks",
        "push",
        "maintenance",
        "share",
    }


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


@pytest.mark.parametrize("width", [80, 120])
def test_status_reads_at_80_and_120_columns(tmp_path: Path, width: int) -> None:
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-one-below-it" / "project"
    repo = installed(deep)
    repo.land("waiting")
    screen = io.StringIO()
    assert (
        status.status(as_json=False, out=Out(screen, width=width, terminal=True, color=False)) == 0
    )
    shown = screen.getvalue()
    assert all(len(line) <= width for line in shown.splitlines()), shown
    row = next(
        line for line in shown.splitlines() if line.rstrip().endswith(("0", "1")) and ".git" in line
    )
    assert "project/.git" in row and "  1 " in row  # one waiting, the path whole at its end
    if width == 80:
        assert "…" in row  # its start left out, not wrapped mid-word


def _a_reviewer_working_on_a_landing(repo: Repo) -> tuple[Claimed, InstanceLock]:
    """A landing's item claimed, and the reviewer's lock held by this process (release it)."""
    from landwatch import work_item
    from landwatch.daemon.lock import LockHolder

    repo.land("one", hooks=False)
    repo.landwatch("enqueue", "HEAD")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    lock = InstanceLock()
    lock.acquire(LockHolder(os.getpid(), "foreground", "test", "-"))
    return claimed, lock


def _working_on(item_id: str) -> dict[str, Any]:
    return {"state": "running", "key": item_id, "progress": {"done": 0, "total": 1}}


def _reviewer_state(lines: dict[str, Any]) -> None:
    """The reviewer's state file as the reviewer this process stands for writes it."""
    from landwatch import layout

    layout.REVIEWER_STATE.path().write_text(json.dumps({"pid": os.getpid(), "lines": lines}))


def test_a_job_whose_item_was_settled_is_not_shown_as_working(repo: Repo) -> None:
    """The reviewer's state file lags by up to half a second; the queue is the truth."""
    from landwatch import work_item

    claimed, lock = _a_reviewer_working_on_a_landing(repo)
    try:
        _reviewer_state({"review": [_working_on(claimed.id)]})

        def shown() -> str:
            screen = io.StringIO()
            status.status(as_json=False, out=Out(screen, width=120, terminal=True, color=False))
            return screen.getvalue()

        assert f"working on {claimed.id[:28]} (0/1)" in shown()
        assert work_item.settle(repo.git_dir, claimed)
        assert "working on" not in shown() and "review: idle" in shown()
    finally:
        lock.release()


def test_every_registered_repository_shows_its_coverage(tmp_path: Path) -> None:
    fine, gone = installed(tmp_path / "fine"), installed(tmp_path / "gone")
    (gone.git_dir / "hooks" / "post-commit").unlink()
    data = json.loads(fine.landwatch("status", "--json").stdout)
    reach = {r["repository"]: r["coverage"]["reach"] for r in data["repositories"]}
    assert reach == {
        str(fine.git_dir.resolve()): "hooks ok",
        str(gone.git_dir.resolve()): "sweep only",
    }


def test_status_at_80_columns_keeps_headers_rows_and_names(
    tmp_path: Path, terminal: Terminal
) -> None:
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-one-below-it"
    name = "the-repository-named-so"
    kept = installed(deep / name)
    kept.land("waiting")
    gone = installed(deep / "gone-away-project")
    shutil.rmtree(gone.path)
    data = json.loads(kept.landwatch("status", "--json").stdout)
    [problem] = [r["problem"] for r in data["repositories"] if r["problem"]]
    screen = terminal.landwatch(kept.path, "status")
    header = next(line for line in screen.splitlines() if line.startswith("worktree"))
    assert header.split() == ["worktree", "waiting", "oldest", "working", "done", "given", "up"]
    row = next((line for line in screen.splitlines() if name in line), screen)
    assert f"…/{name}/.git" in row and row.split()[1] == "1", screen  # one waiting
    assert set(f"skipped: {problem}".split()) <= words(screen), screen


def test_an_item_retried_shows_its_age_since_the_landing_not_since_the_retry(repo: Repo) -> None:
    import time

    from landwatch import work_item
    from landwatch.work_item import WorkItem, WorkKind

    repo.clear()
    landed = time.time() - 7300  # the clock injected: the landing two hours ago
    item = WorkItem(WorkKind.REVIEW, repo.head(), repo.git_dir, repo.path)
    work_item.enqueue(item, now=landed)
    claimed = work_item.claim_next(repo.git_dir, now=landed + 60)
    assert claimed is not None
    work_item.settle(repo.git_dir, claimed, work_item.FAILED, now=landed + 60)
    assert repo.landwatch("retry", "--all").returncode == 0
    data = json.loads(repo.landwatch("status", "--json").stdout)
    [worktree] = data["repositories"][0]["worktrees"]
    assert worktree["waiting"] == 1 and worktree["oldest_pending_seconds"] >= 7300
    row = next(line for line in repo.landwatch("status").stdout.splitlines() if ".git " in line)
    assert row.split()[1:5] == ["1", "2", "h", "1"], row  # waiting 1, for 2 h 1 min


def test_each_queue_keeps_its_label_with_its_value_at_80_columns(
    repo: Repo, terminal: Terminal
) -> None:
    """The reviewer's queues on as many lines as they need, never a `share:` at one line's end
    and its value at the next's start."""
    claimed, lock = _a_reviewer_working_on_a_landing(repo)
    try:
        failed = {"state": "failed", "key": "push-x", "progress": {"done": 0, "total": None}}
        lines = {
            "review": [_working_on(claimed.id)],
            "push": [failed],
            "maintenance": [],
            "project_hooks": [failed],
            "share": [failed],
        }
        _reviewer_state(lines)
        screen = terminal.landwatch(repo.path, "status").splitlines()
    finally:
        lock.release()
    shown = screen[1 : screen.index(next(line for line in screen if line.startswith("worktree")))]
    assert all(len(line) <= 80 for line in shown), shown
    each = {kind: f"{kind}: idle (1 failed lately)" for kind in ("push", "project_hooks", "share")}
    each |= {
        "review": f"review: working on {claimed.id[:28]} (0/1)",
        "maintenance": "maintenance: idle",
    }
    for kind, whole in each.items():
        assert any(whole in line for line in shown), (kind, shown)  # on one line, label and all


def test_a_pre_push_hook_written_over_landwatch_s_is_told_the_gate_is_off(repo: Repo) -> None:
    """The person's own pre-push written over landwatch's after install: the landings are still
    reviewed, the push gate no longer runs, and status says so (as doctor does)."""
    gate = repo.git_dir / "hooks" / "pre-push"
    gate.write_text("#!/bin/sh\nexit 0\n")
    shown = repo.landwatch("status").stdout
    assert "the push gate does not run (git runs another pre-push hook)" in " ".join(shown.split())
    assert "(fix: landwatch install)" in shown
    data = json.loads(repo.landwatch("status", "--json").stdout)
    assert "push gate" in data["repositories"][0]["coverage"]["gate_off"]
    repo.install()
    assert "push gate" not in repo.landwatch("status").stdout


def test_a_share_remote_given_as_a_url_with_a_token_is_shown_redacted(repo: Repo) -> None:
    """`landwatch.share.remote` set to a URL holding a token (as configured, a setting): status
    and `status --json` said "sharing reviews with https://ci:TOKEN@..." whole. A URL is no
    remote's name, and is refused: the line saying so shows it redacted."""
    token = "glpat-" + "Xq7vR2mT9kLp4sWz8nBd"
    repo.git("config", "landwatch.share.remote", f"https://ci:{token}@git.example.com/app.git")
    table = repo.landwatch("status").stdout
    shown = repo.landwatch("status", "--json").stdout
    assert "landwatch.share.remote = 'https://ci:" in table and "@git.example.com/app.git" in table
    assert token not in table + shown
    assert token[:8] not in table + shown


def test_repositories_are_read_side_by_side_in_their_order_and_a_failure_is_raised() -> None:
    """Issue 40: each repository's two git processes no longer wait for every other's; what
    is shown keeps the registry's order, and what one reading raised is raised as before."""
    items = [Path(f"/r{n}") for n in range(20)]
    assert status._side_by_side(items, lambda path: path.name) == [p.name for p in items]
    assert status._side_by_side([], lambda path: path.name) == []

    def failing(path: Path) -> str:
        if path.name in ("r7", "r3"):
            raise OSError(f"{path} cannot be read")
        return path.name

    with pytest.raises(OSError, match="/r3 cannot be read"):
        status._side_by_side(items, failing)
