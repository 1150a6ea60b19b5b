"""A landed commit reviewed as the reviewer reviews it (review_landing): under the standards its
history taught and the linters the person trusted; what `landwatch review` prints for a commit or
a range is this review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from landwatch import layout, trust
from landwatch.review import engine
from landwatch.review.linters import NO_LINTERS
from landwatch.review.report import Report
from landwatch.review_landing import explain_standards, review_landing
from support.history import history
from support.repos import Repo
from support.review import canary_linter, found


def as_shown(report: Report | dict[str, Any]) -> dict[str, Any]:
    """A report as JSON shows it, but for when it ran and how long it took."""
    data = report.as_dict() if isinstance(report, Report) else dict(report)
    return {key: value for key, value in data.items() if key not in ("started", "duration")}


def test_landwatch_review_prints_this_review(repo: Repo, tmp_path: Path) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    first = repo.head()
    repo.land("add a linter", {".landwatch.toml": canary_linter(tmp_path / "ran")}, hooks=False)
    trust.approve(repo.git_dir, trust.committed(repo.git_dir)[1])
    repo.land("Sum the prices", {"cart.py": "total = 1  \nimport pdb\n"}, hooks=False)
    printed = repo.landwatch("review", "HEAD", "--json")
    assert printed.returncode == 0, printed.stderr
    review = review_landing(repo.git_dir, "HEAD")
    assert as_shown(json.loads(printed.stdout)) == as_shown(review)
    assert {"P001", "P007", "M005"} <= {finding.rule for finding in review.findings}
    assert len(review.linters) == 1 and (tmp_path / "ran").exists()  # the trusted linter ran
    ranged = repo.landwatch("review", f"{first}..HEAD", "--json")
    reviewed_range = review_landing(repo.git_dir, "HEAD", first)
    assert reviewed_range.shape == "range"
    assert as_shown(json.loads(ranged.stdout)) == as_shown(reviewed_range)


def test_the_standards_the_history_taught_apply_and_are_kept(repo: Repo) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    repo.land("Not conventional at all", hooks=False)
    assert found(review_landing(repo.git_dir, "HEAD"), "M005") == [("M005", None, 1)]
    assert found(engine.review(repo.git_dir, "HEAD", linters=NO_LINTERS), "M005") == []
    assert layout.STANDARDS.path(repo.git_dir).is_file()  # kept for the next review


def test_committed_linters_run_only_once_trusted(repo: Repo, tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    repo.land("add a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    repo.land("a change", {"m.py": "x = 1\n"}, hooks=False)
    held = review_landing(repo.git_dir, "HEAD")
    assert not canary.exists() and held.linters == [] and held.linters_held_back
    trust.approve(repo.git_dir, trust.committed(repo.git_dir)[1])
    ran = review_landing(repo.git_dir, "HEAD")
    assert canary.exists() and ran.linters_held_back is None
    canary.unlink()
    review_landing(repo.git_dir, "HEAD", linters=NO_LINTERS)  # a policy given wins
    assert not canary.exists()


def test_explain_says_what_was_learned_and_what_the_configuration_overrides(repo: Repo) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    lines = explain_standards(repo.git_dir)
    assert any("learned from 35 commits" in line for line in lines)
    assert not any("it wins" in line for line in lines)
    repo.land("configured", {".landwatch.toml": '[rules]\nM005 = "off"\n'}, hooks=False)
    assert explain_standards(repo.git_dir)[-1] == (
        "  the committed configuration (.landwatch.toml) sets M005: it wins"
    )
