"""Tokens written percent-escaped (review.secrets.escaped): read unescaped where an escape of
`=`, `+` or `/` is inside the token's run, their place given in the line as written; escapes
around a token, other escapes, and stand-ins are let through."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from landwatch.review.diffs import Line
from landwatch.review.findings import Severity
from landwatch.review.rules.secrets import TokenFormat
from landwatch.review.secrets.detectors import detected_spans
from landwatch.review.secrets.escaped import escaped_tokens, unescaped, unescaped_value
from support.secret_examples import AWS_SECRET_KEY
from support.timing import cpu_seconds
from support.tokens import random_text

# An Atlassian Cloud API token (gitleaks' `ATATT3` and 186 characters), its `=` before the last
# eight: URL-encoded, it holds `%3D`.
ATLASSIAN = (
    "ATATT3"
    + random_text(
        "atlassian", 177, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    )
    + "="
    + "00203E68"
)
AWS_ESCAPED = quote(AWS_SECRET_KEY, safe="")  # its `/` and `+` escaped


def lines(*texts: str) -> list[Line]:
    return [Line(number, text.encode(), b"\n") for number, text in enumerate(texts, start=1)]


def found(*texts: str) -> list[tuple[int, str, str]]:
    more, _ = escaped_tokens(lines(*texts), {})
    return [
        (index, label, texts[index][start:end])
        for index, on_line in sorted(more.items())
        for label, start, end in on_line
    ]


def test_unescaping_keeps_where_each_character_was() -> None:
    assert unescaped("a%3Db%2fc") == ("a=b/c", [0, 1, 4, 5, 8, 9])
    assert unescaped("a%20b") is None  # a space's escape is no token's character
    assert unescaped("plain") is None
    assert unescaped_value("x%3d%3D%2B") == "x==+"


def test_a_token_holding_escapes_is_found_where_it_is_written() -> None:
    escaped = ATLASSIAN.replace("=", "%3D")
    assert found(
        f'url = "https://example.atlassian.net/rest?token={escaped}"',
        f"JIRA_TOKEN={ATLASSIAN.replace('=', '%3d')}",
        f"aws_secret_access_key={AWS_ESCAPED}",
    ) == [
        (0, "atlassian-api-token (kingfisher's rules)", escaped),
        (1, "atlassian-api-token (kingfisher's rules)", ATLASSIAN.replace("=", "%3d")),
        (2, "AWS secret access key", AWS_ESCAPED),
    ]


def test_escapes_outside_the_token_other_escapes_and_stand_ins_are_let_through() -> None:
    assert (
        found(
            f"secret%3D{AWS_SECRET_KEY}",  # the escape is the name's `=`, not the token's
            f"https://x.test/{ATLASSIAN[:-9]}%2F{ATLASSIAN[-8:]}",  # a path's slash
            f"path%2Fto%2F{'a' * 40}",
            "ATATT3" + "x" * 177 + "%3D" + "00203E68",  # a unit repeated
            f"aws_secret_access_key={AWS_ESCAPED[:-1]}",  # one character short
            "https://x.test/a%20b%3Dc",
        )
        == []
    )
    # What is found already unescaped is not found again.
    line = f"aws_secret_access_key={AWS_ESCAPED}"
    assert escaped_tokens(lines(line), {0: [("AWS secret access key", 22, len(line))]}) == (
        {},
        set(),
    )


def test_the_token_format_rule_tells_them_and_redacts_them() -> None:
    escaped = ATLASSIAN.replace("=", "%3D")
    findings = list(TokenFormat().scan("config/jira.txt", lines(f"url = ...?t={escaped}")))
    assert [(f.message, f.severity) for f in findings] == [
        ("atlassian-api-token (kingfisher's rules)", Severity.ERROR)
    ]
    assert escaped[10:] not in (findings[0].snippet or "")
    text = f"see {escaped} there"
    assert detected_spans(text) == ((4, 4 + len(escaped)),)


def test_telling_what_the_line_holds_already_takes_time_linear_in_the_line() -> None:
    """Each escaped token is checked against what the line as written holds already and what
    was taken before it: a line of thousands of both is read once, not once a token."""

    def work(tokens: int) -> Callable[[], object]:
        text = f"{quote(ATLASSIAN, safe='')}          " * tokens
        step = len(text) // tokens
        # Ten spans the other detectors found between each two tokens, none overlapping one.
        held = [
            ("held", at * step - 10 + k, at * step - 9 + k)
            for at in range(1, tokens + 1)
            for k in range(10)
        ]
        return lambda: escaped_tokens(lines(text), {0: held})

    work(1)()  # the rule set loaded before anything is timed
    small, large = cpu_seconds(work(300), tries=2), cpu_seconds(work(3000), tries=1)
    assert large / max(small, 1e-4) < 30, (small, large)
