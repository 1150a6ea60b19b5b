"""Work outside the job's thread: a warm worker process serving item after item."""

from __future__ import annotations

from pathlib import Path

from landwatch import work_item
from landwatch.work_item import PENDING
from support.daemon import (
    done_ids,
    journal_lines,
    run_reviewer,
)
from support.repos import Repo


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
