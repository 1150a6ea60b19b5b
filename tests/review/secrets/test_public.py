"""Credentials public by design (review.secrets.public): Stripe's publishable keys anywhere, and
Google API keys where they are a browser's (a web page, or script and docs naming Maps or
Firebase). Every key here is built by the test."""

from __future__ import annotations

from landwatch.review.secrets.public import (
    GOOGLE_REASON,
    STRIPE_REASON,
    browser_file,
    public_reason,
    publishable,
)
from support.tokens import random_text

GOOGLE_KEY = "AIza" + random_text("maps", 35)


def test_stripe_s_publishable_keys_are_public_and_its_secret_keys_are_not() -> None:
    for mode in ("live", "test"):
        assert publishable(f"pk_{mode}_" + random_text(mode, 40))
        assert public_reason(f"pk_{mode}_" + random_text(mode, 40), False) == STRIPE_REASON
        assert not publishable(f"sk_{mode}_" + random_text(mode, 40))
        assert public_reason(f"sk_{mode}_" + random_text(mode, 40), True) is None


def test_a_google_key_is_a_browser_s_only_in_a_page_or_beside_maps_or_firebase() -> None:
    assert browser_file("site/index.html", [])
    assert browser_file("web/firebase.js", ["const firebaseConfig = {", f'apiKey: "{GOOGLE_KEY}"'])
    assert browser_file("docs/maps.md", ["<script src='https://maps.googleapis.com/maps/api/js'>"])
    assert not browser_file("server/gemini.js", [f'const key = "{GOOGLE_KEY}"'])
    assert not browser_file("app/settings.py", ["# firebase admin"])  # a server's language
    assert not browser_file(None, ["firebase"])  # the commit message
    assert public_reason(GOOGLE_KEY, True) == GOOGLE_REASON
    assert public_reason(GOOGLE_KEY, False) is None
    assert public_reason(GOOGLE_KEY + "x", True) is None  # not the format
