"""A whole new kind of landed work, declared here and nowhere else: no file under src/ names it,
yet it is enqueued, claimed in a line of its own, run, settled, and found as an installed
package's entry point like a built-in kind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from landwatch.git import run_git
from landwatch.job_queue import Reporter
from landwatch.kinds.base import Failing, ItemHandler
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


class Unreachable(ItemHandler[None]):
    """The `unreachable` kind: its work has failed for an hour, whatever is asked of it."""

    name = "unreachable"

    @classmethod
    def failing(cls, git_dir: Path, now: float) -> Failing | None:
        return Failing(cls.name, "reaching the archive", 3600.0, "connection refused")

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        raise RuntimeError("unreachable")


def installed_package(tmp_path: Path, kind: str, spec: str) -> Path:
    """A directory for PYTHONPATH holding an installed package whose entry point names `spec`."""
    site = tmp_path / "site"
    dist = site / f"{kind}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {kind}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[landwatch.kinds]\n{kind} = {spec}\n")
    return site


def test_an_installed_kind_is_asked_what_is_failing_while_an_item_of_it_waits(
    repo: Repo, tmp_path: Path
) -> None:
    """Issue 40: status asks only the kinds with work waiting, so it loads none and looks for
    no installed one when nothing waits; one that waits is found and heard."""
    site = installed_package(tmp_path, "unreachable", "kinds.test_a_new_kind:Unreachable")

    def status() -> list[dict[str, object]]:
        ran = subprocess.run(
            [sys.executable, "-m", "landwatch", "status", "--json"],
            cwd=repo.path,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": f"{site}:{TESTS}"},
        )
        assert ran.returncode == 0, ran.stderr
        [worktree] = json.loads(ran.stdout)["repositories"][0]["worktrees"]
        failing: list[dict[str, object]] = worktree["failing"]
        return failing

    assert status() == []
    assert repo.landwatch("enqueue", "--kind", "unreachable").returncode == 0
    assert status() == [
        {
            "kind": "unreachable",
            "what": "reaching the archive",
            "seconds": 3600.0,
            "error": "connection refused",
        }
    ]


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
    site = installed_package(tmp_path, "added", "kinds.test_a_new_kind:LinesAdded")
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
