"""The review kind drained by the real reviewer, and the hooks' line telling of it once."""

from __future__ import annotations

from daemon_helpers import run_reviewer
from landwatch import report_store, work_item
from landwatch.work_item import DONE
from repo_helpers import Repo


def test_the_reviewer_reviews_landings_and_the_hooks_tell_once(repo: Repo) -> None:
    oid = repo.land("with findings", {"a.py": "x = 1  \nimport pdb\n"})
    clean = repo.land("clean", {"b.txt": "fine\n"})
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert sorted(
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ) == sorted([f"review-{oid}", f"review-{clean}"])
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and stored.summary() == "2 warnings, 1 info"
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == f"landwatch: {oid[:7]} — 2 warnings, 1 info · landwatch show {oid[:7]}\n"
    assert repo.run("commit", "-q", "--allow-empty", "-m", "again").stderr == ""
    shown = repo.landwatch("show", oid)
    assert shown.returncode == 0 and "a.py" in shown.stdout and "debug-statement" in shown.stdout
    assert repo.landwatch("show", "HEAD").returncode == 1  # not reviewed yet
