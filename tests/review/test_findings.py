"""The review's shared vocabulary (review.findings): a finding's fingerprint survives a line move,
is the same at every run, and cannot confirm a secret guessed in a file name; whose standard
decided each finding (Basis): what the project declared (its landwatch configuration,
.editorconfig, pre-commit, commitlint), what landwatch learned from its history, or landwatch's
default, kept in stored reports and shown with every finding."""

from __future__ import annotations

import hashlib
import io
import json

from landwatch.review import engine, output
from landwatch.review.findings import DECLARED, DEFAULT, LEARNED, Basis, Finding, fingerprint
from landwatch.review.report import Report
from landwatch.review.standards import Standards
from landwatch.styled import Out
from support.repos import Repo
from support.review import review
from support.tokens import github_token


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


def test_a_fingerprint_hashes_a_path_with_its_secrets_redacted() -> None:
    token, guess = github_token("Q7w2"), github_token("Zx9k")  # built here, never whole
    assert fingerprint("P001", f"keys/{token}.txt", "x") == fingerprint(
        "P001", f"keys/{guess}.txt", "x"
    )
    # A path without secrets hashes exactly as before.
    expected = hashlib.sha256(b"P001\0src/app.py\0x = 1\0" + b"0").hexdigest()[:20]
    assert fingerprint("P001", "src/app.py", "x = 1  ") == expected


SUBJECT = "Add " + "x" * 86  # 90 characters: past the default 72


def bases(report: Report, rule: str) -> list[Basis | None]:
    return [finding.basis for finding in report.findings if finding.rule == rule]


def test_a_finding_no_declaration_or_history_decided_is_the_default_s(repo: Repo) -> None:
    repo.land("add", {"app.py": "x = 1  \n"}, hooks=False)
    assert bases(review(repo), "P001") == [Basis(DEFAULT)]


def test_the_editorconfig_that_asks_for_it_decides(repo: Repo) -> None:
    repo.land(
        "declared", {".editorconfig": "[*.py]\ntrim_trailing_whitespace = true\n"}, hooks=False
    )
    repo.land("add", {"app.py": "x = 1  \n", "notes.txt": "y  \n"}, hooks=False)
    report = review(repo)
    by_path = {finding.path: finding.basis for finding in report.findings if finding.rule == "P001"}
    assert by_path == {"app.py": Basis(DECLARED, ".editorconfig"), "notes.txt": Basis(DEFAULT)}


def test_a_pre_commit_hook_that_runs_on_the_file_decides(repo: Repo) -> None:
    config = (
        "repos:\n- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v5.0.0\n"
        "  hooks:\n  - id: trailing-whitespace\n    files: ^src/\n"
    )
    repo.land("hooks", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("add", {"src/app.py": "x = 1  \n", "docs/a.txt": "y  \n"}, hooks=False)
    by_path = {f.path: f.basis for f in review(repo).findings if f.rule == "P001"}
    # docs/ is outside the hook's files: the rule is off there, as declared.
    assert by_path == {"src/app.py": Basis(DECLARED, ".pre-commit-config.yaml")}


def test_landwatch_s_own_configuration_decides_the_rules_it_sets(repo: Repo) -> None:
    repo.land("configure", {".landwatch.toml": '[rules]\nP001 = { severity = "error" }\n'})
    repo.land("add", {"app.py": "x = 1  \n"}, hooks=False)
    assert bases(review(repo), "P001") == [Basis(DECLARED, ".landwatch.toml")]


def test_declared_outranks_learned_which_outranks_the_default(repo: Repo) -> None:
    history = Standards(commits=300, subject_p99=80)
    repo.land(SUBJECT, {"a.txt": "a\n"}, hooks=False)
    learned = engine.review(repo.git_dir, "HEAD", standards=history)
    assert bases(learned, "M001") == [Basis(LEARNED, "300 commits of history")]
    assert bases(review(repo), "M001") == [Basis(DEFAULT)]
    limit = {"rules": {"header-max-length": [2, "always", 85]}}
    repo.land("declare", {".commitlintrc.json": json.dumps(limit)}, hooks=False)
    repo.land(SUBJECT, {"b.txt": "b\n"}, hooks=False)
    declared = engine.review(repo.git_dir, "HEAD", standards=history)
    assert bases(declared, "M001") == [Basis(DECLARED, ".commitlintrc.json")]


def test_the_basis_is_stored_shown_and_absent_from_old_reports(repo: Repo) -> None:
    repo.land("declared", {".editorconfig": "[*]\ntrim_trailing_whitespace = true\n"}, hooks=False)
    repo.land("add", {"app.py": "x = 1  \n"}, hooks=False)
    report = review(repo)
    stored = json.loads(output.as_json([report]))
    (finding,) = (f for f in stored["findings"] if f["rule"] == "P001")
    assert finding["decided_by"] == {"standard": "declared", "source": ".editorconfig"}
    assert Finding.from_dict(finding).basis == Basis(DECLARED, ".editorconfig")
    del finding["decided_by"]
    assert Finding.from_dict(finding).basis is None
    screen = io.StringIO()
    output.render(report, Out(screen, width=200, color=False))
    assert "trailing whitespace [declared: .editorconfig]" in screen.getvalue()
    sarif = output.as_sarif([report], repo.path)
    (result,) = (r for r in sarif["runs"][0]["results"] if r["ruleId"] == "P001")
    assert result["properties"]["decidedBy"] == {"standard": "declared", "source": ".editorconfig"}
