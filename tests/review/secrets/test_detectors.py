"""Every detector at once (review.secrets.detectors): most lines decided in a few substring tests
to hold no secret, and where on a line any detector finds one, every kind together, for redacting
(a secret-like name's literal whatever its entropy)."""

from __future__ import annotations

from landwatch.review.diffs import Line
from landwatch.review.rules.assigned_secrets import GenericSecret
from landwatch.review.secrets.detectors import may_hold_secret, spans
from landwatch.review.secrets.redaction import redact_words
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


def test_whatever_the_assigned_secret_rule_tells_is_hidden_too() -> None:
    """An audit: a bare token given to a secret-like name in code (`export DEPLOY_TOKEN=…`,
    `API_TOKEN = …` in Python), which S003 tells at warning, and a short quoted password it
    tells at info, were shown whole by redact_words: push refusals, a kind's error and the
    reviewer's log kept them. What any of S003's findings holds is hidden."""
    cases = [
        ("deploy.sh", "export DEPLOY_TOKEN=Xk9vQ2mZ7pLw4aB8cD1eF"),
        ("settings.py", "API_TOKEN = Xk9vQ2mZ7pLw4aB8cD1eF"),
        ("app.py", 'password = "Tr0ub4"'),
    ]
    for path, line in cases:
        found = GenericSecret().scan(path, [Line(1, line.encode(), b"\n")])
        told = [f.span for f in found if f.span is not None]
        assert told, line  # S003 tells it
        for start, end in told:
            assert line[start:end] not in redact_words(line), line
            assert any(a <= start and end <= b for a, b in spans(line)), line
