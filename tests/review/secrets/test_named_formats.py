"""Formats told only where their provider is named (review.secrets.named_formats): Mailgun's
private API keys and Dropbox's long-lived tokens, on a line naming the provider or in a file its
path names for it; the same shapes elsewhere, and stand-ins, are let through."""

from __future__ import annotations

from landwatch.review.diffs import Line
from landwatch.review.findings import Severity
from landwatch.review.rules.secrets import TokenFormat
from landwatch.review.secrets.detectors import detected_spans
from landwatch.review.secrets.named_formats import named_tokens
from support.tokens import random_text

HEX = "0123456789abcdef"
MAILGUN = "-".join(random_text(f"mailgun{n}", size, HEX) for n, size in enumerate((32, 8, 8)))
DROPBOX = random_text("dropbox", 11) + "A" * 10 + random_text("dropbox-rest", 43)
MAILGUN_LABEL = "Mailgun private API key"
DROPBOX_LABEL = "Dropbox long-lived access token"


def lines(*texts: str) -> list[Line]:
    return [Line(number, text.encode(), b"\n") for number, text in enumerate(texts, start=1)]


def found(path: str | None, *texts: str) -> list[tuple[int, str, str]]:
    spans = named_tokens(path, lines(*texts))
    return [
        (index, label, texts[index][start:end])
        for index, on_line in sorted(spans.items())
        for label, start, end in on_line
    ]


def test_a_key_on_a_line_naming_its_provider_is_found() -> None:
    assert found(
        "app/settings.py",
        f'MAILGUN_API_KEY = "{MAILGUN}"',
        f"  # the key Mailgun gave us: {MAILGUN}",
        f"dropbox_token: {DROPBOX}",
        f"client = Dropbox('{DROPBOX}')",
    ) == [
        (0, MAILGUN_LABEL, MAILGUN),
        (1, MAILGUN_LABEL, MAILGUN),
        (2, DROPBOX_LABEL, DROPBOX),
        (3, DROPBOX_LABEL, DROPBOX),
    ]


def test_a_bare_key_in_a_file_its_path_names_for_the_provider_is_found() -> None:
    assert found("deploy/mailgun.env", MAILGUN, "region=eu") == [(0, MAILGUN_LABEL, MAILGUN)]
    assert found("config/Dropbox/token.txt", f"var g = '{DROPBOX}'") == [
        (0, DROPBOX_LABEL, DROPBOX)
    ]


def test_the_same_shapes_where_no_provider_is_named_are_let_through() -> None:
    # A bare shape anywhere else: some identifier's hex, or a line of base64 with zeros.
    assert found("app/settings.py", f'REQUEST_ID = "{MAILGUN}"', f"data: {DROPBOX}") == []
    assert found(None, f"key {MAILGUN}") == []  # a commit message names no file


def test_near_misses_and_stand_ins_are_let_through() -> None:
    assert (
        found(
            "mailgun/keys.txt",
            MAILGUN[:-1],  # one digit short
            MAILGUN + "0",
            "x" + MAILGUN,  # inside a longer word
            MAILGUN.replace(MAILGUN[0], "g"),  # not hex
            MAILGUN[:10] + MAILGUN[10:].upper(),  # mixed case: hex is written in one
            "0" * 32 + "-" + "0" * 8 + "-" + "0" * 8,  # a unit repeated
            f"{MAILGUN[:20]}…",  # shown cut short
        )
        == []
    )
    assert found("dropbox.txt", DROPBOX.replace("A" * 10, "A" * 9 + "B"), DROPBOX + "x") == []
    assert found("dropbox.txt", "A" * 64) == []


def test_the_token_format_rule_tells_them_at_error_and_redacts_them() -> None:
    rule = TokenFormat()
    findings = list(rule.scan("legacy/mailgun/keys.txt", lines(MAILGUN)))
    assert [(f.message, f.severity) for f in findings] == [(MAILGUN_LABEL, Severity.ERROR)]
    assert MAILGUN not in (findings[0].snippet or "")
    assert list(rule.scan("notes.txt", lines(MAILGUN))) == []
    # Redacted wherever the line is shown, named or not: too much hidden is harmless.
    assert detected_spans(f"id {MAILGUN} {DROPBOX}") == (
        (3, 3 + len(MAILGUN)),
        (4 + len(MAILGUN), 4 + len(MAILGUN) + len(DROPBOX)),
    )
