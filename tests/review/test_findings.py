"""The review's shared vocabulary (review.findings): a finding's fingerprint survives a line move,
is the same at every run, and cannot confirm a secret guessed in a file name."""

from __future__ import annotations

import hashlib

from landwatch.review.findings import Finding, fingerprint
from landwatch.review.report import Report
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
