"""What the history before a change shows is the project's practice (review.precedent): fixtures
that end without a newline keep their bytes. Secrets are never quieted by history: their cases
are in tests/review/rules/test_secrets.py."""

from __future__ import annotations

from support.repos import Repo
from support.review import found, review


def test_fixtures_that_end_without_a_newline_keep_their_bytes(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("one more", {"tests/golden/3.out": "expected 3"}, hooks=False)
    report = review(repo)
    assert found(report, "P002") == []
    assert any("test fixtures whose files end that way" in note for note in report.notes)
    repo.land("elsewhere", {"src/config.ini": "a = 1"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "src/config.ini", 1)]


def test_what_the_editorconfig_asks_for_no_practice_quiets(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("declared", {".editorconfig": "[*]\ninsert_final_newline = true\n"}, hooks=False)
    repo.land("another", {"tests/golden/3.out": "expected 3"}, hooks=False)
    assert found(review(repo)) == [("P002", "tests/golden/3.out", 1)]
