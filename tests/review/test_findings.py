"""The review's shared vocabulary (review.findings): a finding's fingerprint survives a line move,
and is the same at every run."""

from __future__ import annotations

from landwatch.review.findings import Finding
from landwatch.review.report import Report
from support.repos import Repo
from support.review import review


def test_fingerprints_survive_line_moves(repo: Repo) -> None:
    def whitespace(report: Report) -> Finding:
        [finding] = [f for f in report.findings if f.rule == "P001"]
        return finding

    repo.land("change", {"a.txt": "x = 1  \n"}, hooks=False)
    first = whitespace(review(repo))
    repo.git("rm", "-q", "a.txt")
    repo.git("commit", "-q", "-m", "gone", LANDWATCH="0")
    repo.land(
        "change", {"a.txt": "\n\n\nx = 1  \n"}, hooks=False
    )  # the same line, three lines lower
    moved = whitespace(review(repo))
    assert (first.line, moved.line) == (1, 4)
    assert moved.fingerprint == first.fingerprint
    assert whitespace(review(repo)).fingerprint == moved.fingerprint  # reproducible
