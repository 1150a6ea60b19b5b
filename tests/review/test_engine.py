"""The review as a whole (review.engine): a file too large for line work is still reported, and
the secret rules read the commit message too."""

from __future__ import annotations

import base64
import json
import random

from support.repos import Repo
from support.review import found, review
from support.tokens import github_token


def test_a_huge_file_gets_no_line_work_but_is_reported_large(repo: Repo) -> None:
    repo.land(
        "change", {"dump.sql": b"INSERT INTO t VALUES (1);  \n" * 400_000}, hooks=False
    )  # ~11 MB
    report_ = review(repo)
    assert found(report_) == [("P005", "dump.sql", None)]
    assert report_.lines_checked == 0
    assert any("dump.sql: larger than 8 MB" in note for note in report_.notes)


def test_secret_rules_read_the_commit_message_too(repo: Repo) -> None:
    token = github_token("Q7w2")
    repo.land(f"Fix the deploy\n\nUse {token} until Monday.\n", {"a.txt": "a\n"}, hooks=False)
    report_ = review(repo)
    [finding] = [f for f in report_.findings if f.rule == "S002"]
    assert (finding.path, finding.line) == (None, 3)
    assert finding.snippet == "Use ghp_… until Monday." and token not in finding.message


def pem_lines(seed: int) -> list[str]:
    """A PEM private key of random bytes: header, body lines, END line."""
    body = base64.b64encode(random.Random(seed).randbytes(300)).decode()
    marker = "PRIVATE " + "KEY-----"
    return [
        f"-----BEGIN {marker}",
        *(body[at : at + 64] for at in range(0, len(body), 64)),
        f"-----END {marker}",
    ]


def test_a_token_in_a_file_name_is_redacted_in_every_finding(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    huge = b"x\n" * 4_500_000  # past 8 MB: no line checks, and a note says so
    repo.land("change", {f"keys/{token}.txt": "x  \n", f"{token}.sql": huge}, hooks=False)
    report_ = review(repo)
    assert found(report_) == [("P005", "ghp_….sql", None), ("P001", "keys/ghp_….txt", 1)]
    assert "no line checks for ghp_….sql: larger than 8 MB" in report_.notes
    assert token not in json.dumps(report_.as_dict())


def test_a_key_body_line_another_rule_flags_shows_no_key(repo: Repo) -> None:
    lines = pem_lines(1)
    body_line = lines[2]
    lines[2] += "  "  # trailing whitespace: P001 flags a line of the key's body
    repo.land("change", {"certs/server.key": "\n".join(lines) + "\n"}, hooks=False)
    report_ = review(repo)
    [whitespace] = [f for f in report_.findings if f.rule == "P001"]
    assert (whitespace.path, whitespace.line) == ("certs/server.key", 3)
    assert whitespace.snippet == "(private key material)"
    assert [f.line for f in report_.findings if f.rule == "S001"] == [1]
    assert body_line not in json.dumps(report_.as_dict())


def test_a_key_pasted_into_a_commit_message_shows_no_body_line_in_any_snippet(
    repo: Repo,
) -> None:
    """An audit: the message rules showed a pasted key's body (M002 its first line after the
    header, M003 the whole body written on one line): only a file's key lines were hidden."""
    lines = pem_lines(4)
    on_one_line = "".join(lines[1:-1])
    repo.land("\n".join(lines), {"a.txt": "a\n"}, hooks=False)
    as_a_message = review(repo)
    repo.land(
        f"Add the deploy key\n\n{lines[0]}\n{on_one_line}\n{lines[-1]}",
        {"b.txt": "b\n"},
        hooks=False,
    )
    on_one = review(repo)
    for report_, rule in ((as_a_message, "M002"), (on_one, "M003")):
        [told] = [f for f in report_.findings if f.rule == rule]
        assert told.snippet == "(private key material)", rule
        shown = json.dumps(report_.as_dict())
        assert not any(line in shown for line in lines[1:-1]) and on_one_line[:40] not in shown


def test_a_key_regenerated_in_place_shows_no_body_line_in_any_snippet(repo: Repo) -> None:
    old = pem_lines(2)
    repo.land("change", {"certs/server.key": "\n".join(old) + "\n"}, hooks=False)
    new = pem_lines(3)
    new[4] += "\t"  # the header unchanged; a body line of the new key flagged by P001
    repo.land("rotate", {"certs/server.key": "\n".join(new) + "\n"}, hooks=False)
    report_ = review(repo)  # S001 stays quiet: the key before it makes the file a fixture
    [whitespace] = [f for f in report_.findings if f.rule == "P001"]
    assert (whitespace.line, whitespace.snippet) == (5, "(private key material)")
    shown = json.dumps(report_.as_dict())
    assert not any(line in shown for line in new[1:-1])


def test_a_long_line_s_finding_shows_a_window_of_it_not_the_whole_line(repo: Repo) -> None:
    """A minified or generated file's one line was each of its findings' snippet whole: a
    2.8 MB line in the report, its JSON and SARIF, and the screen's escaping, once per finding."""
    token = github_token("Q7w2")
    line = "var a=1;" * 50_000 + f'var t="{token}";' + "var b=2;" * 50_000 + "  "
    repo.land("change", {"dist/app.js": line}, hooks=False)  # no final newline
    report_ = review(repo)
    told = {f.rule: f for f in report_.findings if f.path == "dist/app.js" and f.line}
    assert {"P001", "P002", "S002"} <= set(told), told
    for finding in told.values():
        assert finding.snippet is not None and 0 < len(finding.snippet) <= 242, finding.rule
    assert token not in json.dumps(report_.as_dict())
