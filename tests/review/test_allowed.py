"""What an allowance covers: one finding's fingerprint in every commit that holds it, or every
finding of one commit; read back from anything (a store, a note) only when it is one, and carried
by a report wherever the report goes."""

from __future__ import annotations

import json

import pytest

from landwatch.review.allowed import REASONS, Allowance, allowing, covering
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from support.tokens import github_token

ONE, OTHER = "1" * 40, "2" * 40
KEY = Finding(
    "S001", "private-key", Severity.ERROR, "a private key", "id_rsa", 1, fingerprint="a" * 20
)
SPACE = Finding(
    "P001", "trailing-whitespace", Severity.WARNING, "ws", "a.py", 3, fingerprint="b" * 20
)


def by_fingerprint(fingerprint: str, reason: str = "false-positive") -> Allowance:
    return Allowance(reason, "Ann <ann@example.com>", 1_700_000_000.0, fingerprint, None)


def by_commit(commit: str, reason: str = "fix-later") -> Allowance:
    return Allowance(reason, "Ann <ann@example.com>", 1_700_000_000.0, None, commit)


def test_a_fingerprint_covers_that_finding_in_every_commit_and_a_commit_all_of_its_own() -> None:
    key = by_fingerprint(KEY.fingerprint)
    assert allowing([key], ONE, KEY) is key and allowing([key], OTHER, KEY) is key
    assert allowing([key], ONE, SPACE) is None
    whole = by_commit(ONE)
    assert allowing([whole], ONE, KEY) is whole and allowing([whole], ONE, SPACE) is whole
    assert allowing([whole], OTHER, KEY) is None
    # The first that covers it; a finding with no fingerprint is covered by no fingerprint.
    assert allowing([key, whole], ONE, KEY) is key
    blank = Finding("X1", "x", Severity.ERROR, "x")
    assert allowing([by_fingerprint("")], ONE, blank) is None


def test_covering_keeps_those_that_cover_a_finding_once_each() -> None:
    key, other = by_fingerprint(KEY.fingerprint), by_commit(OTHER)
    assert covering([key, other, key], ONE, [KEY, SPACE]) == [key]
    assert covering([key, other], OTHER, [SPACE]) == [other]


@pytest.mark.parametrize("reason", REASONS)
def test_an_allowance_is_read_back_as_it_was_written(reason: str) -> None:
    for allowance in (by_fingerprint(KEY.fingerprint, reason), by_commit(ONE, reason)):
        assert Allowance.from_dict(json.loads(json.dumps(allowance.as_dict()))) == allowance


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        [],
        "false-positive",
        {},
        {**by_commit(ONE).as_dict(), "reason": "because"},
        {**by_commit(ONE).as_dict(), "fingerprint": KEY.fingerprint},  # both: which?
        {**by_commit(ONE).as_dict(), "commit": None},  # neither
        {**by_commit(ONE).as_dict(), "commit": "HEAD"},
        {**by_commit(ONE).as_dict(), "commit": ONE[:12]},
        {**by_fingerprint("a" * 20).as_dict(), "fingerprint": "../../etc"},
        {**by_commit(ONE).as_dict(), "when": True},
        {**by_commit(ONE).as_dict(), "when": -1},
        {**by_commit(ONE).as_dict(), "when": "yesterday"},
        {**by_commit(ONE).as_dict(), "who": ["Ann"]},
        {**by_commit(ONE).as_dict(), "who": "A" * 400},
    ],
)
def test_anything_else_is_no_allowance(garbage: object) -> None:
    assert Allowance.from_dict(garbage) is None


def test_what_a_person_is_told_of_it_is_escaped_and_redacted() -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    sly = Allowance("used-in-tests", f"Eve\x1b[2J {token}", 1_700_000_000.0, None, ONE)
    said = sly.described()
    assert said.startswith("used-in-tests, by Eve\\x1b[2J ghp_") and "on 2023-11-14" in said
    assert token not in said and "\x1b" not in said
    assert sly.what() == f"every finding of {ONE[:12]}"


def test_a_report_carries_its_allowances_and_drops_garbage_among_them() -> None:
    report = Report(ONE, None, "commit", ONE[:12], findings=[KEY], allowed=[by_commit(ONE)])
    data = json.loads(json.dumps(report.as_dict()))
    assert Report.from_dict(data).allowed == [by_commit(ONE)]
    data["allowed"].append({"reason": "whatever"})
    assert Report.from_dict(data).allowed == [by_commit(ONE)]
    del data["allowed"]  # a report stored before allowances
    assert Report.from_dict(data).allowed == []
