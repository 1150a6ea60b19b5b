"""Tokens of known formats (review.secrets.token_formats): each found where its anchor is, with
its exact place on the line, in order; standing alone only; documentation placeholders, tokens cut
short and one-case AWS secrets let through. Every token here is built by the test."""

from __future__ import annotations

import base64
import hashlib
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landwatch.review.secrets.scanning import masked
from landwatch.review.secrets.token_formats import (
    FORMAT_LABELS,
    TOKEN_NEEDLES,
    TOKEN_NEEDLES_FOLDED,
    prefixed_tokens,
    tokens,
    unanchored_tokens,
)
from support.tokens import GITHUB_TOKEN, random_text

GITHUB = GITHUB_TOKEN
AWS_ID = "AKIA" + "QX7ZR4M2" * 2
AWS_SECRET = "Zq8/Wv7+Tu6Rs5Qp4On3Ml2" + "Kj1Ih0Gf9Ed8Cb7Aa"
STRIPE = "sk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"


def test_each_token_is_found_where_it_is_in_order() -> None:
    line = f'token = "{GITHUB}"  # and {AWS_ID}'
    at = line.index(GITHUB)
    assert tokens(line) == [
        ("GitHub personal access token", at, at + len(GITHUB)),
        ("AWS access key ID", line.index(AWS_ID), line.index(AWS_ID) + len(AWS_ID)),
    ]
    assert tokens(f"key: {STRIPE}") == [("Stripe live secret key", 5, 5 + len(STRIPE))]


def test_a_token_inside_a_longer_word_is_none() -> None:
    assert tokens(f"x{GITHUB}") == []
    assert tokens(f"{GITHUB}") != []


def test_placeholders_and_tokens_cut_short_are_let_through() -> None:
    assert tokens("AKIA" + "IOSFODNN7EXAMPLE") == []  # AWS's own documentation key
    assert tokens("ghp_" + "x" * 36) == []
    cut = "sk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1…"
    assert tokens(cut) == [] and masked(cut, len(cut) - 1)
    assert tokens(f"{STRIPE}...") == []


def test_an_aws_secret_key_is_one_of_mixed_case_beside_its_name() -> None:
    named = f"aws_secret_access_key = {AWS_SECRET}"
    assert tokens(named) == [("AWS secret access key", 24, 24 + len(AWS_SECRET))]
    assert tokens(f"aws_secret_access_key = {AWS_SECRET.lower()}") == []


def test_only_the_anchors_given_are_looked_for() -> None:
    assert tokens(GITHUB, anchors=[b"AKIA"]) == []
    assert tokens(GITHUB, anchors=[b"ghp_"]) == [("GitHub personal access token", 0, len(GITHUB))]


ANCHORS = sorted({needle.decode() for needle in (*TOKEN_NEEDLES, *TOKEN_NEEDLES_FOLDED)})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(ANCHORS),
            st.sampled_from(ANCHORS).map(str.upper),
            st.sampled_from([GITHUB, AWS_ID, AWS_SECRET, STRIPE, "eyJhbGciOiJIUzI1NiJ9"]),
            st.text("abcXYZ0189_-.:~= ", min_size=1, max_size=40),
        ),
        max_size=6,
    )
)
def test_without_anchors_given_each_anchor_the_line_holds_is_looked_for(parts: list[str]) -> None:
    """Looking for every format at once finds what looking for the line's anchors finds."""
    text = "".join(parts)
    every = [*TOKEN_NEEDLES, *TOKEN_NEEDLES_FOLDED]
    assert tokens(text) == tokens(text, anchors=every)


def test_a_mark_inside_a_token_finds_it_from_its_start() -> None:
    """Azure's `Q~`, Telegram's `:AA` and New Relic's `NRAL` stand inside or at the end."""
    azure = "qpF8Q~" + "PCM5MhMoyTFc5TYEomnzRUKim9UJhe8a2P"
    telegram = "508627689:AA" + "EuLPKs-EhrjrYGnz60bnYNZqakf6HJxc0"
    license_key = "eu01xx" + "5e9e4e8621f0259c297c2dd9e8d098" + "NRAL"
    for label, token in (
        ("Azure AD client secret", azure),
        ("Telegram bot token", telegram),
        ("New Relic license key", license_key),
    ):
        line = f'value = "{token}";'
        assert tokens(line) == [(label, 9, 9 + len(token))], token
        assert tokens(f"value = x{token}") == []  # inside a longer word
    # Too plain for a generator, one character short, not hex before NRAL.
    assert tokens("abc1Q~" + "ab" * 16) == []
    assert tokens(telegram[:-1]) == []
    assert tokens("eu01xx" + "5e9e4e8621f0259c297c2dd9e8dz8" + "NRAL") == []


def test_google_oauth_discord_and_braintree_tokens_are_found_by_their_shape() -> None:
    access = "ya29." + random_text("google-access", 60)
    refresh = "1//0" + random_text("google-refresh", 60)
    webhook = "8" + "40573916284" + "035271/" + random_text("discord-webhook", 68)
    braintree = "access_token$production$" + "q7r2m9x4k8w3p6z1$" + "9f3a" * 8
    for label, line, secret in (
        ("Google OAuth access token", f'token = "{access}"', access),
        ("Google OAuth refresh token", f"refresh_token: {refresh}", refresh),
        ("Discord webhook URL", f"url = 'https://discord.com/api/webhooks/{webhook}'", webhook),
        ("Braintree access token", f"BT={braintree}", braintree),
    ):
        at = line.index(secret)
        assert tokens(line) == [(label, at, at + len(secret))], label
    # Python's floor division, a token cut short, a webhook of a made-up id.
    assert tokens("print(1//0)") == tokens("ya29.short") == []
    assert (
        tokens("https://discord.com/api/webhooks/123/" + random_text("discord-made-up", 68)) == []
    )


def test_a_discord_bot_token_is_told_by_its_shape_and_the_bot_s_id_inside() -> None:
    """No anchor: the first part must be base64 of 17 to 20 digits, the bot's id."""
    hmac = random_text("discord-hmac", 38)
    for bot_id in ("80351110224678912", "640978231507194368", "10294813959151003004"):
        encoded = base64.urlsafe_b64encode(bot_id.encode()).decode().rstrip("=")
        token = f"{encoded}.GxR4tq.{hmac}"
        line = f'client.run("{token}")'
        at = line.index(token)
        assert unanchored_tokens(line) == [("Discord bot token", at, at + len(token))], bot_id
        assert unanchored_tokens(f"x{token}") == []  # inside a longer word
    not_an_id = base64.urlsafe_b64encode(b"6409782315071943x8").decode()
    assert unanchored_tokens(f"{not_an_id}.GxR4tq.{hmac}") == []
    # Three parts of base64url as code writes none: a chain of names, a version, a hash.
    assert unanchored_tokens("self.assertEqual.called_once_with_these_arguments") == []
    assert unanchored_tokens("MTIzNDU2Nzg5MDEyMzQ1Njc4.GxR4tq." + "x" * 38) == []


def test_a_slack_token_is_told_by_the_ids_slack_gives() -> None:
    """A bot's or a user's token carries the workspace's and the user's ids, 8 to 14 digits in
    the tokens Slack issues; made-up ids (`1234`) are a stand-in's, whatever follows them."""
    bot = "xoxb-" + "17653672481-19874698323-" + random_text("slack-bot", 24)
    user = "xoxp-" + "2575847938-7684568596-9838746238-" + random_text("slack-user", 32).lower()
    legacy_bot = "xoxb-" + "84748912-" + random_text("slack-legacy", 22)
    # A newer token's version, its ids encoded in what follows.
    versioned = "xoxp-" + "1-" + random_text("slack-versioned", 120)
    for token in (bot, user, legacy_bot, versioned):
        assert tokens(f'token = "{token}"') == [("Slack token", 9, 9 + len(token))], token
    made_up = "xoxp-" + "1234-1234-1234-" + "4ddbc191d40ee098cbaae6f3523ada2d"
    one_made_up = "xoxp-" + "2575847938-1234-9838746238-" + "4ddbc191d40ee098cbaae6f3523ada2d"
    too_long = "xoxb-" + "176536724819874" + "-19874698323-" + random_text("slack-bot", 24)
    for stand_in in (made_up, one_made_up, too_long):
        assert tokens(f'"token3": "{stand_in}"') == [], stand_in
    # Tokens of other kinds carry no such ids: a workspace token's version, a legacy token's.
    workspace = "xoxa-" + "2-" + random_text("slack-workspace", 40)
    assert tokens(workspace) == [("Slack token", 0, len(workspace))]


def test_an_atlassian_data_center_token_is_told_by_the_id_inside() -> None:
    """No anchor: the first 16 characters must be base64 of a 12-digit id, then a colon."""
    # Its bytes in standard base64: `/` and `+` among them too.
    for seed in (b"atlassian", b"slash", b"plus"):
        secret = hashlib.sha256(seed).digest()[:20]
        token = base64.b64encode(b"418273950164:" + secret).decode()
        line = f"Authorization: Bearer {token}"
        at = line.index(token)
        assert unanchored_tokens(line) == [
            ("Atlassian Data Center personal access token", at, at + len(token))
        ]
        assert unanchored_tokens(f"x{token}") == []  # inside a longer word
    # No id of 12 digits and a colon: a different count of digits, a letter among them.
    for made_up in (b"41827395016:", b"4182739501a4:", b"418273950164;"):
        token = base64.b64encode(made_up + hashlib.sha256(b"x").digest()[:20]).decode()[:44]
        assert unanchored_tokens(token) == [], made_up


def test_nuget_jfrog_and_wundergraph_tokens_are_found_by_their_prefix() -> None:
    reference = base64.urlsafe_b64encode(
        b"reftkn:01:1739284512:" + random_text("jfrog", 27).encode()
    ).decode()
    for label, token in (
        ("NuGet API key", "oy2" + random_text("nuget", 43, string.ascii_lowercase + "0123456789")),
        ("JFrog reference token", reference),
        ("WunderGraph Cosmo API key", "cosmo_" + random_text("cosmo", 32, "0123456789abcdef")),
    ):
        line = f"token: {token}"
        assert tokens(line) == [(label, 7, 7 + len(token))], label
    # A reference token whose expiry or secret is typed, not made: a stand-in.
    typed = base64.urlsafe_b64encode(b"reftkn:01:0123456789:" + b"Ab" * 13 + b"c").decode()
    assert tokens(typed) == []
    assert tokens("oy2" + "abc" * 14) == []  # a unit repeated
    assert tokens("cosmo_" + random_text("cosmo", 31, "0123456789abcdef")) == []


def test_an_azure_identifiable_key_is_told_by_microsoft_s_signature_at_its_place() -> None:
    head, rest = random_text("azure", 52), random_text("azure-rest", 22)
    key = f"{head}JQQJ99{rest}AZSt{random_text('azure-end', 2)}=="
    line = f'AccountKey="{key}"'
    assert tokens(line) == [("Azure identifiable key", 12, 12 + len(key))]
    assert tokens(key[1:]) == []  # the signature one character early
    assert tokens("x" + key) == tokens(key[:-8]) == []  # inside a longer run, cut short


def test_stripe_s_test_mode_keys_are_credentials_of_a_sandbox() -> None:
    secret, restricted = (
        "sk_" + "test_" + random_text("sk", 24),
        "rk_" + "test_" + random_text("rk", 99),
    )
    assert tokens(f"STRIPE_KEY={secret}") == [("Stripe test secret key", 11, 11 + len(secret))]
    assert tokens(f"'{restricted}'") == [("Stripe test restricted key", 1, 1 + len(restricted))]
    assert tokens(secret[:-1]) == []  # one character short
    assert tokens("pk_" + "test_" + random_text("pk", 24)) == []  # publishable: public


def test_every_format_has_a_label_of_its_own() -> None:
    assert len(set(FORMAT_LABELS)) == len(FORMAT_LABELS)
    assert {"GitHub personal access token", "AWS access key ID", "JSON Web Token"} <= set(
        FORMAT_LABELS
    )


@pytest.mark.parametrize(
    "token",
    [
        "whsec_" + random_text("stripe", 32),
        "glrtr-" + random_text("runner", 40),
        "sk-ant-api03-" + random_text("anthropic", 93),
    ],
)
def test_a_token_with_a_service_s_prefix_is_found(token: str) -> None:
    line = f"deploy --token {token}"
    ((label, start, end),) = prefixed_tokens(line)
    assert (start, end) == (15, 15 + len(token))
    assert label.startswith("token with a service's prefix (")


@pytest.mark.parametrize(
    "text",
    [
        "pi_3MtwBwLkdIwHu7ix28a3tqPa",  # an object's id: too short
        "build-3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",  # a hash after a name
        "acme_" + random_text("mixed-hex", 58, "0123456789abcdefABCDEF"),  # hex, either case
        "test_should_return_the_right_value_for_input_42_and_7",  # words
        "glptt-Need5_T00-be-exactly-40-chars--ELse_failing",
        "desktop-rhf_SponsoredProductsRemoteRHFSearchEXPSubsK2Cli",  # inside a longer word
        "ghp_" + random_text("short", 35),  # a known format's near miss is its pattern's call
        "sk_" + "abcdefghijklmnopqrstuvwxyz0123456789",  # typed in order
        # A metasyntactic prefix: a test's example of the shape, no service's token.
        "foo_" + random_text("metasyntactic", 36),
        "bar-" + random_text("metasyntactic", 40),
        # Digests named by their algorithm: Subresource Integrity, a lockfile's integrity.
        f'<link href="x.css" integrity="sha256-{random_text("sri", 32)}++1DtQ5S8uM=">',
        f'"integrity": "sha512-{random_text("lock", 86)}=="',
        f"sha3-256-{random_text('sha3', 43)}",
    ],
)
def test_what_only_looks_prefixed_is_no_token(text: str) -> None:
    assert prefixed_tokens(text) == []
