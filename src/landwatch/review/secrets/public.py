"""Credentials public by design: their holder's own documentation says they are shipped to every
browser or app, so one in a commit is told at most at info, with that reason, never refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from landwatch.lazy_re import lazy_compile

# Stripe's publishable keys identify an account to Stripe.js and its mobile SDKs, and "can be
# publicly accessible in your web or mobile app's client-side code" (docs.stripe.com/keys).
_STRIPE_PUBLISHABLE = ("pk_live_", "pk_test_")
STRIPE_REASON = "a publishable key: Stripe's documentation says it is public, for client-side code"

# Google's API keys (`AIza` and 35 characters) for the Maps JavaScript API and Firebase's web
# apps are written into every page that uses them, and kept safe by restricting them to the
# site's referrers and to those APIs: "API keys for Firebase services are not secret"
# (firebase.google.com/docs/projects/api-keys), and the Maps JavaScript API takes its key in
# the page's script URL (developers.google.com/maps/api-security-best-practices). The same
# shape is a server's key elsewhere (Gemini's, a Cloud API's), so only a key in a web page, or
# in script or docs of a file that names Maps or Firebase, counts as a browser key.
_GOOGLE_KEY = lazy_compile(r"AIza[0-9A-Za-z_-]{35}")
_PAGES = (".html", ".htm", ".xhtml")
_BROWSER_FILES = (
    *(".js", ".mjs", ".jsx", ".ts", ".tsx", ".vue", ".svelte", ".astro"),
    *(".md", ".mdx", ".rst", ".adoc"),
)
_BROWSER_APIS = ("firebase", "maps.googleapis.com", "google.maps", "googlemaps", "gmaps")
GOOGLE_REASON = (
    "a browser key: Google's documentation says Maps and Firebase web keys are public, "
    "restricted by referrer, not secret"
)


def publishable(value: str) -> bool:
    """Whether `value` is one of Stripe's publishable keys."""
    return value.startswith(_STRIPE_PUBLISHABLE)


def browser_file(path: str | None, texts: Iterable[str]) -> bool:
    """Whether `path` is a web page, or script or docs whose `texts` (its added lines) name
    Google Maps or Firebase: where a Google API key is the browser's."""
    if path is None:
        return False
    lowered = path.lower()
    if lowered.endswith(_PAGES):
        return True
    if not lowered.endswith(_BROWSER_FILES):
        return False
    return any(api in text.lower() for text in texts for api in _BROWSER_APIS)


def public_reason(value: str, in_browser_file: bool) -> str | None:
    """Why `value` is public by design (its holder's documentation), or None when it is not."""
    if publishable(value):
        return STRIPE_REASON
    if in_browser_file and _GOOGLE_KEY.fullmatch(value):
        return GOOGLE_REASON
    return None
