"""Every detector at once (review.secrets.detectors): most lines decided in a few substring tests
to hold no secret, and where on a line any detector finds one, every kind together, for redacting
(a secret-like name's literal whatever its entropy)."""

from __future__ import annotations

from landwatch.review.secrets.detectors import may_hold_secret, spans
from support.tokens import GITHUB_TOKEN

GITHUB = GITHUB_TOKEN


def test_a_line_without_any_detector_s_anchor_holds_no_secret() -> None:
    for line in ("x = compute(total)", "return sum(items)", "# a comment", ""):
        assert not may_hold_secret(line), line
    for line in (GITHUB, "-----BEGIN RSA PRIVATE KEY-----", "My_Password = 1", "API-KEY: x"):
        assert may_hold_secret(line), line


def test_every_kind_of_secret_on_a_line_is_found() -> None:
    line = f"url = 'postgres://app:S3cr3tPw9@db/x'; t = '{GITHUB}'"
    assert spans(line) == (
        (line.index("S3cr3tPw9"), line.index("S3cr3tPw9") + len("S3cr3tPw9")),
        (line.index(GITHUB), line.index(GITHUB) + len(GITHUB)),
    )
    assert spans("x = 1") == ()


def test_for_redacting_a_secret_name_s_literal_counts_whatever_its_entropy() -> None:
    line = 'password = "aabbaabbab"'  # far too plain for the generic-secret rule
    assert spans(line) == ((12, 22),)
