"""Never repeating a secret (review.secrets.redaction): at most four characters of a secret are
shown."""

from __future__ import annotations

from landwatch.review.secrets.redaction import redact


def test_redact_keeps_at_most_four_characters() -> None:
    assert redact("ghp_" + "A1b2" * 9) == "ghp_…"
    assert redact("Zq8Wv7Tu6") == "Zq8W…"
    assert redact("Zq8Wv7Tu") == "****"
    assert redact("abc") == "****"
