"""Never repeating a secret (review.secrets.redaction): at most four characters of a secret are
shown; every secret a detector finds on a line, and every copy of one given, is redacted; a long
line shows a window around its first secret."""

from __future__ import annotations

from landwatch.review.secrets.redaction import redact, redact_secrets, redacted_snippet, window
from support.tokens import GITHUB_TOKEN


def test_redact_keeps_at_most_four_characters() -> None:
    assert redact(GITHUB_TOKEN) == "ghp_…"
    assert redact("Zq8Wv7Tu6") == "Zq8W…"
    assert redact("Zq8Wv7Tu") == "****"
    assert redact("abc") == "****"


GITHUB = GITHUB_TOKEN


def test_every_secret_a_detector_finds_and_every_copy_of_one_given_is_redacted() -> None:
    assert redact_secrets(f"a {GITHUB} b {GITHUB}") == "a ghp_… b ghp_…"
    given = "mine is Zq8Wv7Tu6Rs5 and Zq8Wv7Tu6Rs5 again"
    assert redact_secrets(given, [(8, 20)]) == "mine is Zq8W… and Zq8W… again"
    assert redact_secrets("nothing to hide here") == "nothing to hide here"


def test_overlapping_secrets_are_one_redaction() -> None:
    text = f"t = {GITHUB}"
    assert redact_secrets(text, [(4, 20), (10, 44)]) == "t = ghp_…"


def test_a_long_line_shows_a_window_around_its_first_secret() -> None:
    line = "x = 1; " * 200 + f'token = "{GITHUB}"; ' + "y = 2; " * 200
    shown = redacted_snippet(line, [])
    assert len(shown) == 242 and "ghp_…" in shown and GITHUB not in shown
    assert shown.startswith("…") and shown.endswith("…")
    assert redacted_snippet("short and clean", []) == "short and clean"
    assert window(shown) == shown  # the engine's window of every snippet keeps this one
    assert window("x" * 1000) == "x" * 240 + "…"
