"""Findings in bulk (review.bursts), through the whole review: a burst of one rule in one file is
one finding with its lines, a few stay apart, and two of one rule on one line are one."""

from __future__ import annotations

import random
from string import ascii_uppercase

from landwatch.review.findings import Severity, secret_digest
from support.repos import Repo
from support.review import KEY_ID, OTHER_ID, review


def test_a_burst_of_findings_is_one_finding_with_its_lines(repo: Repo) -> None:
    art = "".join(f"| cell {n} |   \n" for n in range(40)) + "ok\n" + "| end |  \n"
    repo.land("art", {"README.txt": art}, hooks=False)
    (burst,) = [f for f in review(repo).findings if f.rule == "P001"]
    assert burst.message == "trailing whitespace on 41 lines: 1-40, 42"
    assert (burst.line, burst.end_line) == (1, 42)
    repo.land("three", {"few.txt": "a \nb \nc \n"}, hooks=False)
    assert len([f for f in review(repo).findings if f.rule == "P001"]) == 3


def test_two_findings_of_one_rule_on_one_line_are_one(repo: Repo) -> None:
    repo.land("pair", {"ids.py": f'IDS = ("{KEY_ID}", "{OTHER_ID}")\n'}, hooks=False)
    (finding,) = [f for f in review(repo).findings if f.rule == "S002"]
    assert finding.message == "AWS access key ID (2 on this line)"
    # The one finding holds both secrets: allowing it for the first lets no second through.
    both = secret_digest(secret_digest(KEY_ID), secret_digest(OTHER_ID))
    assert finding.secret_digest == both
    repo.land("one", {"ids.py": f'IDS = ("{KEY_ID}", "x")\n'}, hooks=False)
    (alone,) = [f for f in review(repo).findings if f.rule == "S002"]
    assert alone.secret_digest == secret_digest(KEY_ID) != both


def test_a_burst_of_secrets_holds_every_one_of_them(repo: Repo) -> None:
    keys = [
        f"AKIA{''.join(random.Random(n).choices(ascii_uppercase + '234567', k=16))}"
        for n in range(5)
    ]
    repo.land("keys", {"keys.txt": "".join(f"{key}\n" for key in keys)}, hooks=False)
    (burst,) = [f for f in review(repo).findings if f.rule == "S002"]
    assert burst.message.endswith("on 5 lines: 1-5")
    assert burst.secret_digest == secret_digest(*(secret_digest(key) for key in keys))


def test_a_burst_is_told_at_the_severity_of_its_most_severe_secret(repo: Repo) -> None:
    """An audit: a burst took its first line's severity; a key moved in the file (info, no new
    leak) before four new ones made the five one finding at info, and the push went out."""
    keys = [
        f"AKIA{''.join(random.Random(n).choices(ascii_uppercase + '234567', k=16))}"
        for n in range(5)
    ]
    repo.land("an old key", {"keys.txt": f"x = 1\n{keys[0]}\n"}, hooks=False)
    repo.land("new keys", {"keys.txt": "".join(f"  {key}\n" for key in keys)}, hooks=False)
    (burst,) = [f for f in review(repo).findings if f.rule == "S002"]
    assert burst.message.endswith("on 5 lines: 1-5") and "moved, not new" not in burst.message
    assert burst.severity is Severity.ERROR and burst.line == 1


def test_one_secret_found_by_two_rules_is_one_finding(repo: Repo) -> None:
    # A password in a URL's user info is also a value given to a secret-like name.
    line = "DATABASE_PASSWORD_URL=postgres://app:Zq8Wv7Tu6Rs5QpX3@db.internal/app\n"
    repo.land("url", {"settings.env": line}, hooks=False)
    secrets = [f for f in review(repo).findings if f.rule.startswith("S")]
    assert [f.severity.name for f in secrets] == ["ERROR"]  # S003 alone would be a warning


def test_nothing_but_a_secret_is_told_inside_a_file_that_does_not_belong(repo: Repo) -> None:
    scratch = f"AWS_KEY={KEY_ID}   \nnotes   \n"
    repo.land("oops", {".sisyphus/notes.txt": scratch, "kept.txt": "x   \n"}, hooks=False)
    report = review(repo)
    assert sorted((f.rule, f.path) for f in report.findings) == [
        ("P001", "kept.txt"),
        ("P017", ".sisyphus/notes.txt"),
        ("S002", ".sisyphus/notes.txt"),
    ]
    assert "2 finding(s) not reported in 1 file(s) that do not belong in the commit" in (
        report.notes
    )
