"""What the tree before a change shows is the project's practice (review.precedent): fixtures
that end without a newline keep their bytes; trailing whitespace a file kept is told at info.
Secrets are never quieted by history: their cases are in tests/review/rules/test_secrets.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch.review.findings import LEARNED, Basis, Finding, Severity
from landwatch.review.report import Report
from landwatch.review.rules.patch import TrailingWhitespace
from support.repos import Repo
from support.review import found, review


def _trailing(report: Report) -> list[tuple[str | None, Severity, object]]:
    return [(f.path, f.severity, f.basis) for f in report.findings if f.rule == "P001"]


def test_fixtures_that_end_without_a_newline_keep_their_bytes(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("one more", {"tests/golden/3.out": "expected 3"}, hooks=False)
    report = review(repo)
    assert found(report, "P002") == []
    assert any("test fixtures whose files end that way" in note for note in report.notes)
    repo.land("elsewhere", {"src/config.ini": "a = 1"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "src/config.ini", 1)]


def test_a_new_fixture_directory_is_judged_by_the_fixtures_around_it(repo: Repo) -> None:
    """Issue 42: express's `test/fixtures/` keeps every file's bytes; a new directory in it
    (one file, no neighbour yet) follows that practice, a new one elsewhere does not."""
    fixtures = {f"test/fixtures/{name}": f"{name} as sent" for name in ("a.txt", "b.tmpl", "c")}
    repo.land(
        "fixtures", {**fixtures, "test/fixtures/d.txt": "d\n", "src/a.js": "x\n"}, hooks=False
    )
    repo.land("a new directory of them", {"test/fixtures/blog/post.txt": "a post"}, hooks=False)
    assert found(review(repo), "P002") == []
    repo.land("in the sources", {"src/new/post.txt": "a post"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "src/new/post.txt", 1)]
    repo.land("tests of their own", {"tests/unit/new/case.txt": "a case"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "tests/unit/new/case.txt", 1)]


def test_what_the_editorconfig_asks_for_no_practice_quiets(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("declared", {".editorconfig": "[*]\ninsert_final_newline = true\n"}, hooks=False)
    repo.land("another", {"tests/golden/3.out": "expected 3"}, hooks=False)
    assert found(review(repo)) == [("P002", "tests/golden/3.out", 1)]


def test_trailing_whitespace_a_file_kept_before_is_told_at_info(repo: Repo) -> None:
    repo.land("docs", {"docs/guide.md": "Title\n\nsome text \nmore\n"}, hooks=False)
    repo.land("more docs", {"docs/guide.md": "Title\n\nsome text \nmore\nadded \n"}, hooks=False)
    report = review(repo)
    source = "docs/guide.md had trailing whitespace before"
    assert _trailing(report) == [("docs/guide.md", Severity.INFO, Basis(LEARNED, source))]
    assert any("1 P001 finding(s) told at info" in note for note in report.notes)


def test_a_file_that_was_clean_keeps_its_warning(repo: Repo) -> None:
    repo.land("docs", {"docs/guide.md": "Title\n\nsome text\n"}, hooks=False)
    repo.land("more docs", {"docs/guide.md": "Title\n\nsome text\nadded \n"}, hooks=False)
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.WARNING]


def test_a_markdown_hard_break_before_is_not_whitespace_kept(repo: Repo) -> None:
    # Two spaces after text break a Markdown line: the file kept no trailing whitespace.
    repo.land("docs", {"README.md": "Line one  \nline two\n"}, hooks=False)
    repo.land("more", {"README.md": "Line one  \nline two\nthree \n"}, hooks=False)
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.WARNING]


def test_files_beside_it_that_kept_whitespace_are_no_evidence(repo: Repo) -> None:
    """sinatra's rack-protection took trailing whitespace into one file per commit: the third
    file's is as new as the first's, whatever its neighbours hold by then."""
    repo.land("one", {"lib/a.rb": "x = 1 \n", "lib/b.rb": "y = 2 \n"}, hooks=False)
    repo.land("new", {"lib/c.rb": "z = 3 \n"}, hooks=False)
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.WARNING]


def test_what_the_project_declared_trims_outranks_what_it_kept(repo: Repo) -> None:
    repo.land("kept", {"notes.txt": "a \n", "other.txt": "b\n"}, hooks=False)
    repo.land(
        "declared",
        {".editorconfig": "[*.txt]\ntrim_trailing_whitespace = true\n"},
        hooks=False,
    )
    repo.land("more", {"notes.txt": "a \nc \n"}, hooks=False)
    assert [(severity, basis) for _, severity, basis in _trailing(review(repo))] == [
        (Severity.WARNING, Basis("declared", ".editorconfig"))
    ]
    hook = (
        "repos:\n- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v4.6.0\n"
        "  hooks:\n  - id: trailing-whitespace\n"
    )
    repo.land("hooks", {".editorconfig": None, ".pre-commit-config.yaml": hook}, hooks=False)
    repo.land("again", {"notes.txt": "a \nc \nd \n"}, hooks=False)
    assert [(severity, basis) for _, severity, basis in _trailing(review(repo))] == [
        (Severity.WARNING, Basis("declared", ".pre-commit-config.yaml"))
    ]


def test_kept_whitespace_is_judged_from_the_parent_not_from_the_change(repo: Repo) -> None:
    # The change that puts the first trailing whitespace into a file is told, whatever it adds.
    repo.land("clean", {"a.txt": "one\n"}, hooks=False)
    repo.land("dirty", {"a.txt": "one \ntwo \nthree \n"}, hooks=False)
    findings: list[Finding] = [f for f in review(repo).findings if f.rule == "P001"]
    assert findings and all(f.severity is Severity.WARNING for f in findings)


def test_a_file_of_many_findings_is_read_for_what_it_kept_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked once per finding, the file before would be scanned as many times: quadratic.
    scanned: list[str] = []
    held_in = TrailingWhitespace.held_in

    def counted(self: TrailingWhitespace, path: str, content: bytes) -> bool:
        scanned.append(path)
        return held_in(self, path, content)

    monkeypatch.setattr(TrailingWhitespace, "held_in", counted)
    repo.land("kept", {"big.txt": "a \n" * 1000}, hooks=False)
    repo.land("more", {"big.txt": "a \n" * 1000 + "b \n" * 200}, hooks=False)
    report = review(repo)
    assert scanned == ["big.txt"]
    assert {f.severity for f in report.findings if f.rule == "P001"} == {Severity.INFO}


def test_a_repeat_offence_is_not_lowered_by_the_author_s_own_unpushed_commit(
    repo: Repo, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.land("docs", {"docs/guide.md": "Title\n\nsome text\n"}, hooks=False)
    repo.git("push", "-q", "--no-verify", "origin", "main")
    repo.land("first", {"docs/guide.md": "Title\n\nsome text \n"}, hooks=False)
    repo.land("again", {"docs/guide.md": "Title\n\nsome text \nmore \n"}, hooks=False)
    # The first offence is the author's own, not pushed: no practice of the project's.
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.WARNING]
    # Pushed, it is the project's history: the next one is told at info, as kept before.
    repo.git("push", "-q", "--no-verify", "origin", "main")
    repo.land("third", {"docs/guide.md": "Title\n\nsome text \nmore \nand \n"}, hooks=False)
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.INFO]
    # A teammate's commit not pushed yet (merged from their branch) is theirs, not a repeat.
    repo.land(
        "theirs",
        {"docs/other.md": "x \n"},
        hooks=False,
        author="Teammate <mate@example.com>",
    )
    repo.land("mine", {"docs/other.md": "x \ny \n"}, hooks=False)
    assert [severity for _, severity, _ in _trailing(review(repo))] == [Severity.INFO]
