"""A whole new kind of landed work, declared here and nowhere else: no file under src/ names it,
yet it is enqueued, claimed in a line of its own, run, settled, and found as an installed
package's entry point like a built-in kind."""

from __future__ import annotations

from pathlib import Path

from landwatch.git import run_git
from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler
from landwatch.work_item import WorkItem
from support.daemon import TESTS, done_ids, journal_lines, run_reviewer
from support.handlers import journal as write_journal
from support.repos import Repo


class LinesAdded(ItemHandler[int]):
    """The `added` kind: how many lines each landed commit added, asked of git, journaled."""

    name = "added"

    def handle(self, item: WorkItem, reporter: Reporter) -> int:
        counted = run_git(
            "diff-tree",
            "--root",
            "--numstat",
            "-r",
            item.oid,
            git_dir=item.git_dir,
            timeout=60,
            alive=reporter.alive,
        )
        if counted.returncode != 0:
            raise RuntimeError(counted.stderr.strip() or "git diff-tree failed")
        added = sum(
            int(line.split("\t", 1)[0])
            for line in counted.stdout.splitlines()
            if line.split("\t", 1)[0].isdigit()
        )
        write_journal(f"added {item.oid} {added}")
        return added


def test_a_kind_declared_here_is_enqueued_run_and_settled(repo: Repo, journal: Path) -> None:
    oid = repo.land("three lines", {"a.txt": "1\n2\n3\n"})
    enqueued = repo.landwatch("enqueue", "--kind", "added")
    assert enqueued.returncode == 0 and enqueued.stdout == f"added added-{oid}\n"
    handler = "added=kinds.test_a_new_kind:LinesAdded"
    result = run_reviewer("--once", "--handler", handler, journal=journal)
    assert result.returncode == 0, result.stderr
    assert journal_lines(journal) == [["added", oid, "3"]]
    assert done_ids(repo.git_dir) == sorted([f"added-{oid}", f"review-{oid}"])


def test_an_installed_package_brings_its_kind_by_entry_point(
    repo: Repo, journal: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    dist = site / "lines_added-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lines-added\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[landwatch.kinds]\nadded = kinds.test_a_new_kind:LinesAdded\n"
    )
    oid = repo.land("two lines", {"b.txt": "1\n2\n"})
    assert repo.landwatch("enqueue", "--kind", "added").returncode == 0
    result = run_reviewer("--once", journal=journal, PYTHONPATH=f"{site}:{TESTS}")
    assert result.returncode == 0, result.stderr
    assert journal_lines(journal) == [["added", oid, "2"]]
    assert f"added-{oid}" in done_ids(repo.git_dir)


def test_a_kind_nobody_handles_waits_for_a_consumer_that_can(repo: Repo) -> None:
    oid = repo.head()
    assert repo.landwatch("enqueue", "--kind", "added").returncode == 0
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert repo.pending(kind="added") == [(oid, None)]
