"""Tokens of known formats (AWS, GitHub, GitLab, Slack, Stripe, Google, JWT, npm, PyPI,
SendGrid, X, Azure AD, Telegram, New Relic, Discord, Braintree, NuGet, JFrog, WunderGraph,
Atlassian), each matched exactly where its literal anchor is (Discord's bot tokens and
Atlassian's, which have none, by their shape), placeholders and cut-short ones let through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import NamedTuple

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.secrets.checks import base64url, jwt_well_formed
from landwatch.review.secrets.named_formats import LABELS as NAMED_LABELS
from landwatch.review.secrets.scanning import (
    ascii_lower,
    masked,
    placeholder_token,
    shannon_entropy,
)
from landwatch.review.secrets.values import looks_generated


class _Format(NamedTuple):
    label: str
    # Literal starts of every match (lower case when `folded`): lines without one are skipped.
    anchors: tuple[str, ...]
    pattern: LazyPattern[str]  # group 1 is the secret
    folded: bool = False
    mixed_case: bool = False  # the secret holds upper and lower case letters
    well_formed: Callable[[str], bool] | None = None  # what the pattern cannot check
    # How far before its anchor a match may start: 0 where every match starts with its anchor,
    # more where the anchor is a mark inside the token (Azure's `Q~`, Telegram's `:AA`).
    reach: int = 0


_WORD = r"A-Za-z0-9_\-"


def _token(label: str, prefix: str, body: str) -> _Format:
    """A token that starts with a literal prefix and stands alone (not inside a longer word)."""
    pattern = lazy_compile(rf"(?<![{_WORD}])({re.escape(prefix)}{body})(?![{_WORD}])")
    return _Format(label, (prefix,), pattern)


def _new_relic_license_key(value: str) -> bool:
    """Whether a value ending in NRAL is one of New Relic's 40-character license keys: hex,
    after a region's prefix where it has one (`eu01xx`)."""
    body = _NEW_RELIC_REGION.sub("", value[:-4], count=1)  # the pattern holds 40 characters
    return _HEX.fullmatch(body) is not None


# A JFrog reference token decoded: its version, its expiry (digits) and its secret.
_JFROG_REFERENCE = lazy_compile(r"reftkn:01:[0-9]{10}:[A-Za-z0-9]{20,}+")


def _jfrog_reference(value: str) -> bool:
    """Whether a JFrog reference token decodes as one: its version, its expiry and a secret
    that is no stand-in (`reftkn:01:0123456789:Abcdef…` is typed)."""
    decoded = (base64url(value) or b"").decode("ascii", "replace")
    return _JFROG_REFERENCE.fullmatch(decoded) is not None and not placeholder_token(decoded)


_NEW_RELIC_REGION = lazy_compile(r"^[a-z]{2}[0-9]{2}x+")
_HEX = lazy_compile(r"[0-9a-f]+")
# What a value a generator made has at least, in bits per character: Azure's client secrets are
# let through below it by the maintained rule set's own filter.
_AZURE_SECRET_ENTROPY = 3.0


_FORMATS = (
    _Format(
        "AWS access key ID",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
        lazy_compile(r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b"),
    ),
    _Format(
        "AWS secret access key",
        ("aws", "secret"),
        lazy_compile(
            r"(?i:aws|secret)[\w.'\"\[\] -]{0,40}?(?:=>|:=|=|:)\s*+[\"'`]?"
            r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        folded=True,
        mixed_case=True,
    ),
    _token("GitHub personal access token", "ghp_", "[A-Za-z0-9]{36}"),
    _token("GitHub OAuth access token", "gho_", "[A-Za-z0-9]{36}"),
    _token("GitHub user-to-server token", "ghu_", "[A-Za-z0-9]{36}"),
    _token("GitHub server-to-server token", "ghs_", "[A-Za-z0-9]{36}"),
    _token("GitHub refresh token", "ghr_", "[A-Za-z0-9]{36}"),
    _token("GitHub fine-grained personal access token", "github_pat_", "[A-Za-z0-9_]{82}"),
    _token("GitLab personal access token", "glpat-", "[A-Za-z0-9_-]{20,}"),
    _Format(
        "Slack token",
        ("xox",),
        lazy_compile(rf"(?<![{_WORD}])(xox[baprs]-[0-9]+-[A-Za-z0-9-]{{10,}})(?![{_WORD}])"),
    ),
    _Format(
        "Slack webhook URL",
        ("https://hooks.slack.com/services/",),
        # The secret is the path: the host alone says what it is and is no secret.
        lazy_compile(
            r"https://hooks\.slack\.com/services/([A-Za-z0-9_]+/[A-Za-z0-9_]+/[A-Za-z0-9]{20,})"
        ),
    ),
    _token("Stripe live secret key", "sk_live_", "[A-Za-z0-9]{24,}"),
    _token("Stripe live restricted key", "rk_live_", "[A-Za-z0-9]{24,}"),
    # Test mode's keys are credentials of the account's sandbox, as real as a live key there.
    _token("Stripe test secret key", "sk_test_", "[A-Za-z0-9]{24,}"),
    _token("Stripe test restricted key", "rk_test_", "[A-Za-z0-9]{24,}"),
    _token("Google API key", "AIza", "[0-9A-Za-z_-]{35}"),
    # Google's OAuth 2.0 access tokens begin `ya29.`, its refresh tokens `1//0`.
    _token("Google OAuth access token", "ya29.", "[0-9A-Za-z_-]{20,}"),
    _token("Google OAuth refresh token", "1//0", "[0-9A-Za-z_-]{40,}"),
    # A Discord webhook's URL holds its token: whoever has it posts as the webhook.
    _Format(
        "Discord webhook URL",
        tuple(
            f"https://{host}/api/webhooks/"
            for host in ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com")
        ),
        lazy_compile(
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
            rf"([0-9]{{17,20}}/[{_WORD}]{{60,68}})(?![{_WORD}])"
        ),
    ),
    # Braintree's access tokens name their environment, the merchant and then the secret.
    _Format(
        "Braintree access token",
        ("access_token$",),
        lazy_compile(
            r"(?<![A-Za-z0-9_$])"
            r"(access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})(?![A-Za-z0-9_$])"
        ),
    ),
    _Format(
        "JSON Web Token",
        ("eyJ",),
        # Signed (three parts) or not (two, or a third left empty).
        lazy_compile(
            rf"(?<![{_WORD}])(eyJ[{_WORD}]{{8,}}\.eyJ[{_WORD}]{{8,}}(?:\.[{_WORD}]{{8,}}|\.)?)"
            rf"(?![{_WORD}.])"
        ),
        well_formed=jwt_well_formed,
    ),
    _token("npm access token", "npm_", "[A-Za-z0-9]{36}"),
    # X's (Twitter's) app-only bearer tokens open with the base64 of zero bytes, then the rest,
    # URL-encoded where it holds `+`, `/` or `=`.
    _token("X (Twitter) bearer token", "AAAAAAAAAAAAAAAAAAAAA", "[A-Za-z0-9%]{40,}+"),
    _token("PyPI upload token", "pypi-AgEIcHlwaS5vcmc", "[A-Za-z0-9_-]{50,}"),
    # Microsoft Entra (Azure AD) client secrets carry `Q~` after three characters and a digit.
    _Format(
        "Azure AD client secret",
        ("Q~",),
        lazy_compile(
            r"(?<![A-Za-z0-9_~.\-])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})(?![\w~.\-])"
        ),
        well_formed=lambda value: shannon_entropy(value) > _AZURE_SECRET_ENTROPY,
        reach=4,
    ),
    # Telegram bot tokens: the bot's number, a colon, then 35 characters beginning `AA`.
    _Format(
        "Telegram bot token",
        (":AA",),
        lazy_compile(rf"(?<![{_WORD}:])([0-9]{{5,16}}:AA[{_WORD}]{{33}})(?![{_WORD}])"),
        reach=16,
    ),
    _token("New Relic user API key", "NRAK-", "[A-Z0-9]{27}"),
    _token("New Relic insert key", "NRII-", "[A-Za-z0-9_-]{32}"),
    _token("New Relic browser API key", "NRJS-", "[a-f0-9]{19}"),
    _Format(
        "New Relic license key",
        ("NRAL",),
        lazy_compile(r"(?<![\w-])([a-z0-9]{36}NRAL)(?![\w-])"),
        well_formed=_new_relic_license_key,
        reach=36,
    ),
    # Microsoft's identifiable keys (Azure Storage, Cosmos DB, DevOps, ...): 52 random characters,
    # Microsoft's signature `JQQJ9` and a version, then the rest with the service's own signature.
    _Format(
        "Azure identifiable key",
        ("JQQJ9",),
        lazy_compile(
            r"(?<![A-Za-z0-9+/])([A-Za-z0-9+/]{52}JQQJ9[9DH][A-Za-z0-9+/]{26}(?:[A-Za-z0-9+/=]{4})?)"
            r"(?![A-Za-z0-9+/=])"
        ),
        reach=52,
    ),
    # Formats of CredSweeper's rule table (Samsung/CredSweeper, MIT) that neither the maintained
    # set nor these held: NuGet's API keys, JFrog's API keys and reference tokens (base64 of
    # `reftkn:01:`, its expiry and its secret), WunderGraph Cosmo's API keys.
    _token("NuGet API key", "oy2", "[a-z0-9]{43}"),
    _Format(
        "JFrog reference token",
        ("cmVmdGtuOjAxO",),
        lazy_compile(rf"(?<![{_WORD}])(cmVmdGtuOjAxO[{_WORD}]{{51}})(?![{_WORD}])"),
        well_formed=_jfrog_reference,
    ),
    _token("WunderGraph Cosmo API key", "cosmo_", "[0-9a-f]{32}"),
    _Format(
        "SendGrid API key",
        ("SG.",),
        lazy_compile(rf"(?<![{_WORD}.])(SG\.[{_WORD}]{{22}}\.[{_WORD}]{{43}})(?![{_WORD}])"),
    ),
)


# A service's token as most now make them: a short lower-case prefix naming the service and the
# kind (`whsec_`, `nfp_`, `glrtr-`, `sk-ant-api03-`), then thirty or more random characters.
# Object ids with prefixes (Stripe's `cus_…`, `pi_…`) are shorter. Each match starts where a
# word does, its prefix is tried a bounded number of ways, and its body runs to the word's end
# once, so a line costs one pass.
_PREFIXED = lazy_compile(
    r"(?<![A-Za-z0-9_.\-])(?P<prefix>[a-z][a-z0-9]{1,7}(?:[_-][a-z0-9]{1,7}){0,2}[_-])"
    r"(?P<body>[A-Za-z0-9_\-]{30,}+)(?![A-Za-z0-9_.\-])"
)
_HEX_BODY = lazy_compile(r"[0-9a-fA-F_-]++")
# A digest named by its algorithm (`sha256-…`, `sha512-…`): Subresource Integrity's `integrity`
# attribute and the lockfiles' integrity fields, public by design.
_DIGEST_ALGORITHM = lazy_compile(
    r"sha(?:1|224|256|384|512)|sha3-(?:224|256|384|512)|md5|blake[23]b?"
)
# The words examples use for a name that is none (`foo_…` in a test of a scanner's rule).
_METASYNTACTIC = frozenset({"foo", "bar", "baz", "qux", "quux", "test", "my", "your", "some"})
PREFIXED_LABEL = "token with a service's prefix"
_EXACT_PREFIXES = tuple(
    anchor
    for token_format in _FORMATS
    if not token_format.folded
    for anchor in token_format.anchors
)


def prefixed_tokens(text: str) -> list[tuple[str, int, int]]:
    """(label, start, end) of each token that has a service's prefix and a random body (of no
    format landwatch or the rule set knows by name: the caller drops those it knows)."""
    found = []
    for match in _PREFIXED.finditer(text):
        body = match["body"]
        if match[0].startswith(_EXACT_PREFIXES):
            continue  # a format known exactly: what its pattern refused is no token of it
        if _HEX_BODY.fullmatch(body) or placeholder_token(match[0]):
            continue  # a hash or an id after a name (hex in either case), or a stand-in
        if _DIGEST_ALGORITHM.fullmatch(match["prefix"][:-1]):
            continue  # a digest, not a token
        if (body.count("-") + body.count("_")) * 10 > len(body):
            continue  # words joined (`be-exactly-40-chars`): base64url has one in thirty-two
        if match["prefix"][:-1] in _METASYNTACTIC:
            continue  # a prefix no service has (`foo_`): an example of the shape
        if looks_generated(body) and shannon_entropy(body) >= 4.0 and not masked(text, match.end()):
            found.append((f"{PREFIXED_LABEL} ({match['prefix']})", match.start(), match.end()))
    return found


# Discord bot tokens have no literal anchor: the bot's id (17 to 20 digits) in base64, a
# timestamp of six characters and an HMAC of 27 to 38. Nor have Atlassian Data Center's personal
# access tokens (Jira, Confluence, Bitbucket): the base64 of a 12-digit id, a colon and 20 random
# bytes (44 characters). Base64 of ASCII digits comes in groups of four characters of these
# classes, so each is checked as it is matched, and its digits decoded after; each match starts
# where a word does and is bounded, so a file costs one pass of one pattern.
_DISCORD_BOT_LABEL = "Discord bot token"
_ATLASSIAN_LABEL = "Atlassian Data Center personal access token"
_DIGITS_IN_BASE64 = "[MNO][DTjz][AEIMQUYcgk][w-z0-5]"
_UNANCHORED = lazy_compile(
    rf"(?<![{_WORD}.])((?:{_DIGITS_IN_BASE64}){{4}}"
    rf"(?:(?P<atlassian>O[g-v][{_WORD}+/]{{26}})"  # `:` and the 20 bytes, in base64
    rf"|(?:{_DIGITS_IN_BASE64}){{1,2}}+[{_WORD}]{{0,3}}\.[{_WORD}]{{6}}\.[{_WORD}]{{27,38}}))"
    rf"(?![{_WORD}.])"
)
_ATLASSIAN_ID_CHARACTERS = 16  # the 12 digits of the id, in base64


def _digits_decoded(encoded: str, least: int, most: int) -> bool:
    """Whether `encoded` decodes to `least` to `most` ASCII digits (a bot's id, a token's id)."""
    decoded = base64url(encoded)
    return decoded is not None and decoded.isdigit() and least <= len(decoded) <= most


def unanchored_tokens(text: str) -> list[tuple[str, int, int]]:
    """(label, start, end) of each token of a format with no literal anchor, told by its whole
    shape: Discord bot tokens, whose first part must decode to the bot's id, and Atlassian Data
    Center tokens, whose first 16 characters must decode to an id of 12 digits."""
    found = []
    for match in _UNANCHORED.finditer(text):
        value = match[1]
        if match["atlassian"] is not None:
            label = _ATLASSIAN_LABEL
            checked = _digits_decoded(value[:_ATLASSIAN_ID_CHARACTERS], 12, 12)
        else:
            label = _DISCORD_BOT_LABEL
            checked = _digits_decoded(value.partition(".")[0], 17, 20)
        if not checked or placeholder_token(value) or masked(text, match.end(1)):
            continue
        found.append((label, match.start(1), match.end(1)))
    return found


FORMAT_LABELS = (
    *(token_format.label for token_format in _FORMATS),
    _DISCORD_BOT_LABEL,
    _ATLASSIAN_LABEL,
    *NAMED_LABELS,  # told where their provider is named (named_formats)
)


def _by_needle() -> dict[bytes, list[tuple[_Format, str]]]:
    table: dict[bytes, list[tuple[_Format, str]]] = {}
    for token_format in _FORMATS:
        for anchor in token_format.anchors:
            table.setdefault(anchor.encode(), []).append((token_format, anchor))
    return table


_BY_NEEDLE = _by_needle()
TOKEN_NEEDLES = tuple(anchor.encode() for f in _FORMATS if not f.folded for anchor in f.anchors)
TOKEN_NEEDLES_FOLDED = tuple(anchor.encode() for f in _FORMATS if f.folded for anchor in f.anchors)
# Each needle, as text, and whether it is looked for in the line's lower case (no needle is both).
_ANCHOR_TESTS = tuple(
    (needle, needle.decode(), needle in TOKEN_NEEDLES_FOLDED) for needle in _BY_NEEDLE
)


def _match_at(token_format: _Format, text: str, at: int) -> re.Match[str] | None:
    """The match of `token_format` that holds its anchor found at `at`, if any: one try where
    matches start with the anchor, one at each of the `reach` characters before it otherwise
    (each pattern starts where a word does, so all but one try fail at their first step)."""
    for start in range(max(0, at - token_format.reach), at + 1):
        match = token_format.pattern.match(text, start)
        if match is not None and match.end() > at:
            return match
    return None


def _anchors_in(text: str, lowered: str) -> list[bytes]:
    """The anchors `text` holds, in the formats' order: a substring test each, so a line holding
    none (most) tries no format at all."""
    return [
        needle
        for needle, anchor, folded in _ANCHOR_TESTS
        if anchor in (lowered if folded else text)
    ]


def tokens(text: str, anchors: Collection[bytes] | None = None) -> list[tuple[str, int, int]]:
    """(label, start, end) of every known token on a line, in order, overlaps dropped.

    `anchors`, when known, are the anchors the line holds: other formats need no look.
    """
    lowered = ascii_lower(text)
    if anchors is None:
        anchors = _anchors_in(text, lowered)
    found: list[tuple[int, int, str]] = []
    for needle in anchors:
        for token_format, anchor in _BY_NEEDLE.get(needle, ()):
            haystack = lowered if token_format.folded else text
            # Every match holds its anchor: try the pattern only where an anchor is (from up
            # to `reach` characters before it, where the anchor is a mark inside the token).
            at = haystack.find(anchor)
            while at >= 0:
                match = _match_at(token_format, text, at)
                at = haystack.find(anchor, match.end() if match else at + 1)
                if match is None:
                    continue
                value = match[1]
                # Documentation placeholders (AKIAIOSFODNN7EXAMPLE, ghp_xxxx…) are well formed
                # but no secret.
                if placeholder_token(value) or masked(text, match.end(1)):
                    continue
                if token_format.mixed_case and (value.lower() == value or value.upper() == value):
                    continue
                if token_format.well_formed is not None and not token_format.well_formed(value):
                    continue
                found.append((match.start(1), match.end(1), token_format.label))
    tokens: list[tuple[str, int, int]] = []
    # At one start the longer match wins: a JWT segment is no AWS secret key.
    for start, end, label in sorted(found, key=lambda item: (item[0], -item[1])):
        if tokens and start < tokens[-1][2]:
            continue
        tokens.append((label, start, end))
    return tokens
