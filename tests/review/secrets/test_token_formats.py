"""Tokens of known formats (review.secrets.token_formats): each found where its anchor is, with
its exact place on the line, in order; standing alone only; documentation placeholders, tokens cut
short and one-case AWS secrets let through. Every token here is built by the test."""

from __future__ import annotations

from landwatch.review.secrets.scanning import masked
from landwatch.review.secrets.token_formats import FORMAT_LABELS, tokens
from support.tokens import GITHUB_TOKEN

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


def test_every_format_has_a_label_of_its_own() -> None:
    assert len(set(FORMAT_LABELS)) == len(FORMAT_LABELS)
    assert {"GitHub personal access token", "AWS access key ID", "JSON Web Token"} <= set(
        FORMAT_LABELS
    )
