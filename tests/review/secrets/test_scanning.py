"""What the detectors share (review.secrets.scanning): lower case that keeps every offset,
entropy in bits per character, and the lines holding a detector's anchors, found the same way
whether they are few or many."""

from __future__ import annotations

import pytest

from landwatch.review.diffs import Line
from landwatch.review.secrets.scanning import (
    PLACEHOLDER,
    REPEATED,
    ascii_lower,
    lines_with,
    placeholder_token,
    sealed_ciphertext,
    shannon_entropy,
)
from support.tokens import GITHUB_TOKEN, github_token, sealed_value


def lines(*texts: str) -> list[Line]:
    return [Line(number, text.encode(), b"\n") for number, text in enumerate(texts, 1)]


def test_lower_case_keeps_every_offset() -> None:
    text = "İSTANBUL_TOKEN"
    assert len(text.lower()) != len(text)  # what str.lower does to a dotted capital I
    assert ascii_lower(text) == "İstanbul_token" and len(ascii_lower(text)) == len(text)
    assert ascii_lower("API_KEY") == "api_key"


def test_entropy_is_bits_per_character() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("ab") == 1.0
    assert shannon_entropy("0123456789abcdef") == 4.0


def test_the_lines_holding_an_anchor_few_or_many() -> None:
    few = lines("x = 1", "token = f()", "y = 2", *["z = 3"] * 20, "ghp_ then Token")
    assert lines_with(few, needles=[b"ghp_"], folded=[b"token"]) == {
        1: {b"token"},
        23: {b"ghp_", b"token"},
    }
    many = lines(*[f"token_{n} = f()" for n in range(30)], "nothing")
    assert lines_with(many, folded=[b"token"]) == {n: {b"token"} for n in range(30)}
    exact = lines("nothing", *[f"k{n} = ghp_{n}" for n in range(30)])
    assert lines_with(exact, needles=[b"ghp_"]) == {n: {b"ghp_"} for n in range(1, 31)}
    assert lines_with([], needles=[b"x"]) == {}


def test_templates_and_runs_are_no_secrets() -> None:
    for template in ("${DB_PASSWORD}", "{{ token }}", "%(secret)s", "<your-token>", "$TOKEN"):
        assert PLACEHOLDER.search(template), template
    assert not PLACEHOLDER.search("Zq8Wv7Tu6Rs5Qp")
    assert REPEATED.search("abc000000") and not REPEATED.search("abc00000")


@pytest.mark.parametrize(
    "value",
    [
        "AKIAIOSFODNN7EXAMPLE",  # AWS's documentation key
        "xoxp-572370529330-573807301142-####################",
        "ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "sk_abcdefghijklmnopqrstuvwxyz123",
        "dapi123456789abcdef123456789abcdef00",
        "xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere",
        "ghp_" + "Z" * 36,
        "sk_live_YourSecretKeyHere",  # a word as a person writes one: lower, upper, camel
        "sk_live_putYOURkeyhere",
        "sk_live_changeMePlease0123",
    ],
)
def test_stand_ins_for_a_token_are_placeholders(value: str) -> None:
    assert placeholder_token(value)


@pytest.mark.parametrize(
    "value",
    [
        GITHUB_TOKEN,
        "sk_test_T1z4jtdp7dcC39HqLyjWareD",  # a sandbox's key is a credential
        "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0F1mWkTz9Qx3Ry7Lp2Vb8Nc4Hd6Js5Gf1Ka3",  # Twitter's shape
        "xoxb-294058170632-3917264580134-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
        # A word in no case a person writes it, held by chance (an audit: 1 in 13,000 tokens).
        "sk_live_4eC39HqLyjWDarjtT1zdp7dcHErEk2Vx9Qm",
        github_token(start="yoUR"),  # its checksum holds: the service's, whatever it holds
        github_token(start="fake"),
    ],
)
def test_generated_tokens_are_not_placeholders(value: str) -> None:
    assert not placeholder_token(value)


def test_a_sealed_secret_s_ciphertext_is_known_by_its_key_size_and_length() -> None:
    for key_size in (256, 384, 512):
        assert sealed_ciphertext(sealed_value(key_size, key_size + 16 + 24))
    assert not sealed_ciphertext(sealed_value(512, 200))  # too short to hold the wrapped key
    assert not sealed_ciphertext(sealed_value(300, 600))  # no RSA key's size
    assert not sealed_ciphertext(sealed_value(512, 600) + "!")  # not base64
    assert not sealed_ciphertext("AgA")
