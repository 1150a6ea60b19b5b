"""What a push is refused for under each policy (review.blocking): a secret or a conflict marker
at error by default, any error under `errors`, nothing under `off`; and the marker's one word."""

from __future__ import annotations

import pytest

from landwatch.review import blocking
from landwatch.review.findings import Finding, Severity


def found(rule: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(rule, "a-rule", severity, "message", "a.py", 1)


def test_the_rules_a_push_is_refused_for_are_the_secret_rules_and_conflict_markers() -> None:
    assert blocking.refusing_rules() == {"S001", "S002", "S003", "S004", "P004"}


@pytest.mark.parametrize(
    ("finding", "secrets", "errors"),
    [
        (found("S002"), True, True),
        (found("P004"), True, True),
        (found("S001", Severity.WARNING), False, False),  # not sure enough to refuse
        (found("S003", Severity.INFO), False, False),  # moved, or in test data
        (found("P010"), False, True),  # an error, but no leak
        (found("hook:ruff"), False, True),
        (found("CFG"), False, True),
        (found("M001", Severity.WARNING), False, False),
    ],
)
def test_each_policy_refuses_what_it_names(finding: Finding, secrets: bool, errors: bool) -> None:
    assert blocking.refuses(finding, blocking.SECRETS) is secrets
    assert blocking.refuses(finding, blocking.ERRORS) is errors
    assert blocking.refuses(finding, blocking.OFF) is False


def test_the_marker_names_the_strictest_policy_that_refuses() -> None:
    assert blocking.level([]) is None
    assert blocking.level([found("M001", Severity.WARNING)]) is None
    assert blocking.level([found("P010")]) == blocking.ERRORS
    assert blocking.level([found("P010"), found("S002")]) == blocking.SECRETS
    assert blocking.refused_for([found("P010"), found("S002")], blocking.SECRETS) == [found("S002")]


def test_a_review_that_did_not_read_its_whole_change_is_marked_unchecked() -> None:
    assert blocking.marker([], whole=True) is None
    assert blocking.marker([found("M001", Severity.WARNING)], whole=False) == blocking.UNCHECKED
    assert blocking.marker([found("S002")], whole=False) == blocking.SECRETS  # refused anyway
    assert blocking.marker([found("P010")], whole=True) == blocking.ERRORS
