"""Work outside the job's thread: a warm worker process serving item after item."""

from __future__ import annotations

from pathlib import Path

from landwatch import work_item
from landwatch.work_item import FAILED, PENDING
from support.daemon import (
    done_ids,
    journal_lines,
    process_gone,
    run_reviewer,
)
from support.repos import Repo, installed


def test_a_warm_worker_serves_item_after_item(repo: Repo, journal: Path) -> None:
    for n in range(3):
        repo.land(f"worker {n}", f"w{n}")
    result = run_reviewer(
        "--once", "--handler", "review=support.handlers:InWorker", journal=journal
    )
    assert result.returncode == 0, result.stderr
    pids = {words[2] for words in journal_lines(journal)}
    assert len(journal_lines(journal)) == 3 and len(pids) == 1
    assert len(done_ids(repo.git_dir)) == 3
    assert work_item.entries(repo.git_dir, PENDING) == []


def test_work_past_its_limit_is_ended_and_given_up_while_other_work_goes_on(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    endless = repo.land("never ends", "endless")
    other = installed(tmp_path / "other")
    quick = other.land("quick", "quick")
    result = run_reviewer(
        "--once",
        "--handler",
        "review=support.handlers:Overrunning",
        journal=journal,
        LANDWATCH_TEST_ENDLESS=endless,
    )
    assert result.returncode == 65, result.stderr  # an item given up
    # Given up at its first try, not tried again, and the worker that ran it ended.
    assert [work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, FAILED)] == [
        f"review-{endless}"
    ]
    starts = [words for words in journal_lines(journal) if words[0] == "start"]
    assert len(starts) == 1 and process_gone(int(starts[0][2]))
    assert done_ids(other.git_dir) == [f"review-{quick}"]
    assert "did not end within 0.5 s" in result.stderr
