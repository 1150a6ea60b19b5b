"""Credentials of the provider formats in kingfisher's maintained rule set
(review.secrets.provider_rules): found where landwatch's own formats know nothing, placed on
their line in the text the review shows, keys left to the private-key rule."""

from __future__ import annotations

import base64
import random
import string

from landwatch.review.secrets.provider_rules import (
    ProviderToken,
    available,
    by_line,
    provider_spans,
    provider_tokens,
    text_spans,
)

CHOSEN = random.Random(7)


def made(size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A value made here, at random: no test holds a credential anyone issued."""
    return "".join(CHOSEN.choices(alphabet, k=size))


HUGGING_FACE = "hf_" + made(34, string.ascii_letters)
DIGITAL_OCEAN = "dop_v1_" + made(64, "0123456789abcdef")


def test_the_rule_set_is_installed_with_landwatch() -> None:
    assert available()


def test_a_provider_format_is_found_with_its_line_and_columns() -> None:
    lines = [b"import os", f'HF_TOKEN = "{HUGGING_FACE}"'.encode(), b"x = 1"]
    [token] = provider_tokens(lines)
    assert (token.line, token.start, token.end) == (1, 12, 12 + len(HUGGING_FACE))
    assert token.label == "huggingface-access-token" and token.confident


def test_a_format_the_rule_set_is_not_sure_of_says_so() -> None:
    [token] = provider_tokens([f"DO = '{DIGITAL_OCEAN}'".encode()])
    assert not token.confident


def test_private_keys_are_left_to_the_private_key_rule() -> None:
    body = base64.b64encode(CHOSEN.randbytes(180)).decode()
    pem = ["-----BEGIN " + "PRIVATE KEY-----", body[:64], body[64:128], body[128:]]
    pem.append("-----END PRIVATE KEY-----")
    assert provider_tokens([line.encode() for line in pem]) == []


def test_columns_are_the_texts_on_a_line_that_is_not_ascii() -> None:
    text = f'name = "café ☕"; token = "{HUGGING_FACE}"'
    [(start, end)] = provider_spans(text)
    assert text[start:end] == HUGGING_FACE


def test_many_tokens_on_a_line_are_placed_in_one_pass() -> None:
    raw = "é".join(["x"] * 3).encode()
    tokens = [ProviderToken(0, 0, 1, "a", True), ProviderToken(0, 3, 4, "b", True)]
    assert text_spans(raw, tokens) == [(0, 1), (2, 3)]


def test_overlapping_tokens_on_a_line_keep_the_first() -> None:
    tokens = [
        ProviderToken(0, 0, 10, "a", True),
        ProviderToken(0, 5, 12, "b", True),
        ProviderToken(1, 0, 3, "c", False),
    ]
    assert by_line(tokens) == {0: [tokens[0]], 1: [tokens[2]]}
