"""What every secret rule does alike (review.rules.secret_rule): no finding holds a whole
secret, identities survive line moves, and what the history held never quiets a new secret.
"""

from __future__ import annotations

import base64
import random

import pytest

from landwatch.review.findings import Severity, fingerprint
from landwatch.review.report import Report
from landwatch.review.rules.assigned_secrets import GenericSecret
from landwatch.review.rules.secrets import PrivateKey, TokenFormat
from landwatch.review.secrets.redaction import redact
from support.changes import Changes
from support.repos import Repo
from support.review import review, reviewed
from support.secret_examples import (
    AWS_KEY_ID,
    AWS_SECRET_KEY,
    TOKENS,
    VALUES,
    check,
    key_body,
    pem,
    unsalted,
)
from support.tokens import GITHUB_TOKEN, github_token

# --- redaction and identity ----------------------------------------------------------------------


def test_no_finding_holds_a_whole_secret(changes: Changes) -> None:
    body = "".join(key_body(21))
    key = f"-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----"
    tokens = [token for _, token in TOKENS] + [AWS_SECRET_KEY]
    lines = [
        f'"key": "{key}", "other": "{TOKENS[0][1]}"',
        *(f"aws_secret_access_key = {token}" for token in tokens),
        f'password = "{VALUES[0]}"; backup_password = "{VALUES[0]}"',
        f'client_secret = "{VALUES[1]}", token = "{TOKENS[1][1]}"',
    ]
    change = changes.change({"leak.txt": "\n".join(lines) + "\n"})
    secrets = {
        PrivateKey: [body],
        TokenFormat: tokens,
        GenericSecret: [VALUES[0], VALUES[1]],
    }
    every = [body, *tokens, VALUES[0], VALUES[1]]
    for rule_class, expected in secrets.items():
        # What an attacker holding a SARIF file could test a guess against, were it hashed.
        guessable = {
            unsalted(rule_class.id, "leak.txt", text, occurrence)
            for value in every
            for text in (value, *lines)
            for occurrence in (0, 1)
        }
        reported: set[str] = set()
        for finding in check(change, "leak.txt", rule_class()):
            snippet = finding.snippet
            assert snippet is not None
            for value in every:
                assert value not in finding.message and value not in snippet, finding.rule
            assert finding.fingerprint not in guessable
            reported |= {value for value in expected if redact(value) in snippet}
        assert reported == set(expected), rule_class.id


def test_a_fingerprint_survives_a_line_shift_and_confirms_no_guess(changes: Changes) -> None:
    token = GITHUB_TOKEN
    first = changes.change({"ci.py": f'TOKEN = "{token}"\n'})
    # The same file, landed elsewhere with lines above it.
    moved = changes.change({"ci.py": f'"""CI."""\n\nTOKEN = "{token}"\n'})
    (before,) = check(first, "ci.py", TokenFormat())
    (after,) = check(moved, "ci.py", TokenFormat())
    assert (before.line, after.line) == (1, 3)
    assert before.fingerprint == after.fingerprint
    # Any guess at the token gives the same identity: the fingerprint holds only the redaction.
    for guess in (token, github_token("Zz9Y")):
        assert fingerprint("S002", "ci.py", f'TOKEN = "{guess}"') == before.fingerprint
    assert unsalted("S002", "ci.py", token) != before.fingerprint


def test_a_finding_knows_where_its_secret_sits_and_no_output_says(changes: Changes) -> None:
    # The suppression step tests a secret scanner's declarations on the value at that place.
    lines = [f'x = 1; TOKEN = "{TOKENS[0][1]}"', f'password = "{VALUES[0]}"', f"u = {TOKENS[3][1]}"]
    change = changes.change({"ci.py": "\n".join(lines) + "\n"})
    findings = [*check(change, "ci.py", TokenFormat()), *check(change, "ci.py", GenericSecret())]
    values = [TOKENS[0][1], TOKENS[3][1], VALUES[0]]
    placed = []
    for finding in findings:
        assert finding.span is not None and finding.line is not None
        start, end = finding.span
        placed.append(lines[finding.line - 1][start:end])
        assert "span" not in finding.as_dict() and "span" not in repr(finding)
    assert placed == values


def test_the_same_secret_twice_in_a_file_is_two_findings(changes: Changes) -> None:
    token = GITHUB_TOKEN
    change = changes.change({"ci.py": f'A = "{token}"\nB = "{token}"\n'})
    findings = check(change, "ci.py", TokenFormat())
    assert [f.line for f in findings] == [1, 2]
    assert len({f.fingerprint for f in findings}) == 2


def test_a_long_line_shows_a_window_around_the_secret(changes: Changes) -> None:
    token = GITHUB_TOKEN
    line = "x = 1; " * 200 + f'token = "{token}"; ' + "y = 2; " * 200
    change = changes.change({"bundle.min.js": line + "\n"})
    (finding,) = check(change, "bundle.min.js", TokenFormat())
    assert finding.snippet is not None
    assert len(finding.snippet) < 260 and "ghp_…" in finding.snippet
    assert finding.snippet.startswith("…") and finding.snippet.endswith("…")


def test_a_long_line_s_secrets_are_looked_for_once_however_many_rules_tell_one(
    changes: Changes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each rule's finding shows the line with every secret on it redacted; a line too long to
    # be among the detectors' remembered ones was searched whole again for each rule.
    from landwatch.review.secrets import detectors

    searched: list[int] = []
    search = detectors.detected_spans

    def counted(text: str) -> tuple[tuple[int, int], ...]:
        searched.append(len(text))
        return search(text)

    monkeypatch.setattr(detectors, "detected_spans", counted)
    line = (
        "x = 1; " * 400
        + f'token = "{GITHUB_TOKEN}"; password = "{VALUES[0]}"; '
        + 'url = "https://deploy:Xk9vQ2mZ7pLw4@proxy.internal:8030/"; '
        + f'aws_secret_access_key = "{AWS_SECRET_KEY}"'
    )
    change = changes.change({"settings.js": line + "\n"})
    report = reviewed(change)
    told = {f.rule for f in report.findings if f.line == 1}
    assert len(told) >= 2, told  # several rules tell a secret of the line
    assert searched.count(len(line)) == 1


# What the history held before a change never quiets a new secret (issue 23): these land commits
# in a real repository and review each as the reviewer does.


def reported(report: Report, rule: str) -> list[tuple[str | None, int | None, str]]:
    return [(f.path, f.line, f.severity.name.lower()) for f in report.findings if f.rule == rule]


def test_a_second_secret_in_a_file_that_held_one_is_reported(repo: Repo) -> None:
    settings = f'SECRET_KEY = "{VALUES[0]}"\n'
    repo.land("settings", {"app/settings.py": settings}, hooks=False)
    assert reported(review(repo), "S003") == [("app/settings.py", 1, "warning")]
    repo.land("aws", {"app/settings.py": settings + f'AWS_KEY = "{AWS_KEY_ID}"\n'}, hooks=False)
    assert reported(review(repo), "S002") == [("app/settings.py", 2, "error")]


def test_a_third_secret_in_a_directory_that_held_two_is_reported(repo: Repo) -> None:
    tokens = [value for _, value in TOKENS[:3]]
    for n, token in enumerate(tokens):
        repo.land(f"token {n}", {f"app/client{n}.py": f'TOKEN = "{token}"\n'}, hooks=False)
        assert reported(review(repo), "S002") == [(f"app/client{n}.py", 1, "error")]


def test_a_secret_moved_unchanged_is_no_new_leak_but_is_still_told(repo: Repo) -> None:
    before = f"# config\nDB = 1\nTOKEN = '{AWS_KEY_ID}'\n"
    repo.land("first", {"conf.py": before}, hooks=False)
    moved = f"TOKEN = '{AWS_KEY_ID}'  # first now\n# config\nDB = 1\n"
    repo.land("moved", {"conf.py": moved}, hooks=False)
    [finding] = [f for f in review(repo).findings if f.rule == "S002"]
    assert (finding.line, finding.severity) == (1, Severity.INFO)
    assert finding.message.endswith("(already in this file before the change: moved, not new)")
    # Renamed, and its line edited: the value came with the file, from its old path.
    repo.git("mv", "conf.py", "settings.py")
    edited = moved.replace("# first now", "# the deploy's")
    repo.land("renamed", {"settings.py": edited}, hooks=False)
    assert reported(review(repo), "S002") == [("settings.py", 1, "info")]


def test_a_secret_removed_is_no_finding(repo: Repo) -> None:
    repo.land("leak", {"conf.py": f"TOKEN = '{AWS_KEY_ID}'\nDB = 1\n"}, hooks=False)
    repo.land("remove the leak", {"conf.py": "DB = 1\n"}, hooks=False)
    assert reported(review(repo), "S002") == []


def test_secrets_in_test_paths_are_told_at_info_but_a_proven_token_as_it_is(repo: Repo) -> None:
    key = "\n".join(pem("PRIVATE KEY", 71)) + "\n"
    files = {
        "tests/fixtures/settings.py": f'password = "{VALUES[1]}"\n',
        "tests/fixtures/aws.py": f'KEY = "{AWS_KEY_ID}"\n',
        "tests/certs/server.key": key,  # a test certificate's key, as psf/requests keeps them
        "tests/fixtures/ci.py": f'TOKEN = "{GITHUB_TOKEN}"\n',  # its checksum holds: real
        "app/settings.py": f'password = "{VALUES[2]}"\n',
    }
    report_ = review(repo, repo.land("fixtures", files, hooks=False))
    assert reported(report_, "S003") == [
        ("app/settings.py", 1, "warning"),
        ("tests/fixtures/settings.py", 1, "info"),
    ]
    assert reported(report_, "S001") == [("tests/certs/server.key", 1, "info")]
    assert sorted(reported(report_, "S002")) == [
        ("tests/fixtures/aws.py", 1, "info"),
        ("tests/fixtures/ci.py", 1, "error"),
    ]


def test_a_key_body_regenerated_under_the_same_header_is_found(repo: Repo) -> None:
    def pem(seed: int) -> str:
        body = base64.b64encode(random.Random(seed).randbytes(180)).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return "\n".join(["-----BEGIN " + "PRIVATE KEY-----", *lines, "-----END PRIVATE KEY-----"])

    repo.land("a test key", {"certs/server.key": pem(1) + "\n"}, hooks=False)
    assert [f.rule for f in review(repo).findings] == ["S001"]
    repo.land("regenerated", {"certs/server.key": pem(2) + "\n"}, hooks=False)
    [finding] = [f for f in review(repo).findings if f.rule == "S001"]
    assert finding.severity is Severity.ERROR and "replaced in place" in finding.message
