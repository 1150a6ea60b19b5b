"""What an allowance covers: one finding's fingerprint in every commit that holds it, or every
finding of one commit; read back from anything (a store, a note) only when it is one, and carried
by a report wherever the report goes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from landwatch.review import output
from landwatch.review.allowed import REASONS, Allowance, allowing, covering, secrets_of
from landwatch.review.findings import Finding, Severity, secret_digest, stored_digest
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
        {**by_fingerprint("a" * 20).as_dict(), "secrets": "0123456789abcdef"},
        {**by_fingerprint("a" * 20).as_dict(), "secrets": ["0123456789ABCDEF"]},
        {**by_fingerprint("a" * 20).as_dict(), "secrets": ["0" * 17]},
        {**by_fingerprint("a" * 20).as_dict(), "secrets": ["0" * 16] * 65},
        {**by_commit(ONE).as_dict(), "secrets": ["0" * 16]},  # a commit's: every finding
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


def test_a_finding_s_allowance_holds_to_the_secrets_it_was_given_for() -> None:
    """Every token written on one line has that line's fingerprint (it is hashed redacted): a
    test token allowed must not let a real one, written where it was, through."""
    tested, real = github_token("Q7w2"), github_token("Zr5K")
    fixture = dataclasses.replace(KEY, secret_digest=secret_digest(tested))
    replaced = dataclasses.replace(KEY, secret_digest=secret_digest(real))
    assert fixture.secret_digest != replaced.secret_digest
    allowance = by_fingerprint(KEY.fingerprint)._replace(
        secrets=secrets_of(KEY.fingerprint, [fixture, SPACE])
    )
    assert allowance.secrets == (secret_digest(tested),)
    assert allowing([allowance], OTHER, fixture) is allowance
    assert allowing([allowance], ONE, replaced) is None
    # Read back from a store or a note as written, the digests with it.
    assert Allowance.from_dict(json.loads(json.dumps(allowance.as_dict()))) == allowance
    # A finding reviewed before digests were kept: its allowance covers its fingerprint, as then.
    assert secrets_of(KEY.fingerprint, [KEY, fixture]) == ()
    assert allowing([by_fingerprint(KEY.fingerprint)], ONE, replaced) is not None
    assert secrets_of(SPACE.fingerprint, [SPACE]) == ()


def test_a_secret_digest_is_kept_with_its_finding_and_is_no_part_of_sarif() -> None:
    finding = dataclasses.replace(KEY, secret_digest=secret_digest("a value"))
    assert Finding.from_dict(json.loads(json.dumps(finding.as_dict()))) == finding
    report = Report(ONE, None, "commit", ONE[:12], findings=[finding])
    assert finding.secret_digest not in json.dumps(output.as_sarif([report], Path("/r")))
    assert "secret_digest" not in SPACE.as_dict()  # a finding of no secret, as it was written
    assert secret_digest("a", "b") == secret_digest("b", "a") != secret_digest("a")
    assert "a value" not in json.dumps(finding.as_dict())
    for garbage in (None, 7, "0" * 15, "g" * 16, "A" * 16, ["0" * 16]):
        assert stored_digest(garbage) == ""
