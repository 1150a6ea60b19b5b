"""What any match of the maintained rule set must hold (review.secrets.rule_anchors): literals,
runs for rules of short literals, base64 long enough; derived from patterns in Rust's syntax,
nothing derived where a pattern cannot be read as Rust reads it. The real rule set's anchors
let through every token its rules find."""

from __future__ import annotations

import base64

import pytest

from landwatch.review.secrets import provider_rules
from landwatch.review.secrets.provider_rules import provider_tokens
from landwatch.review.secrets.rule_anchors import Anchors, derive
from support.tokens import github_token, hugging_face_token, random_text


def test_each_rule_gives_the_literals_every_match_holds_case_folded() -> None:
    anchors = derive([r"(?i)\b(gsk_[A-Z0-9]{52})\b", r"(?:AKIA|ASIA)[A-Z2-7]{16}"])
    assert anchors is not None
    assert set(anchors.literals) == {"gsk_", "akia", "asia"}
    assert anchors.may_match(b'KEY = "GSK_' + b"A" * 52 + b'"')
    assert not anchors.may_match(b"the cart's total is kept in one place")


def test_a_rule_whose_case_is_ignored_mid_pattern_or_past_ascii_is_still_let_through() -> None:
    anchors = derive([r"\b(SG\.(?i)[a-z0-9]{66})", r"(?i)secret\s*=\s*([a-z0-9]{32})"])
    assert anchors is not None and "secret" in anchors.literals
    assert anchors.may_match("\u017fecret = 1".encode())  # the long s folds to s, as in Rust


def test_a_rule_of_short_literals_needs_its_run_too() -> None:
    anchors = derive([r"SK[0-9a-fA-F]{32}"])
    assert anchors is not None and not anchors.literals
    assert anchors.may_match(b"SK" + b"0123abcd" * 4)
    assert not anchors.may_match(b"ask for the desk")  # `sk`, and no run of 32 hex digits


def test_base64_long_enough_to_encode_a_match_is_let_through() -> None:
    anchors = derive([r"gsk_[A-Z0-9]{52}"])
    assert anchors is not None and anchors.base64 == 75  # 56 bytes: 75 characters at least
    encoded = base64.b64encode(b"gsk_" + b"A" * 52)
    assert anchors.may_match(b"blob: " + encoded)
    assert not anchors.may_match(b"blob: " + encoded[:70])


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?s)a(?x) b",  # verbose mode past the start
        r"[[a-z][0-9]]xyz",  # a nested class, which Python reads as two
        r"\p{L}{8}token",  # a Unicode class Python's parser does not know
        r"[[:graph:]]{8}",  # a POSIX class not mapped
        r"[a-z]{40}",  # no literal at all
    ],
)
def test_a_pattern_not_read_as_rust_reads_it_gives_no_anchors(pattern: str) -> None:
    assert derive(["gsk_[A-Z0-9]{52}", pattern]) is None


def test_anchors_written_are_read_back_and_a_mangled_file_is_refused() -> None:
    anchors = derive([r"gsk_[A-Z0-9]{52}", r"SK[0-9a-fA-F]{32}"])
    assert anchors is not None
    assert Anchors.loads(anchors.dumps()) == anchors
    with pytest.raises((ValueError, KeyError)):
        Anchors.loads(b'{"literals": []}')


def test_the_real_rule_set_s_anchors_let_through_every_token_it_finds() -> None:
    """The anchors kept beside the compiled rules (the session's, as install keeps them)."""
    anchors = provider_rules._anchors()
    assert anchors is not None
    tokens = [
        hugging_face_token("anchors"),
        github_token("anchors"),
        "dop_v1_" + random_text("anchors", 64, "0123456789abcdef"),
        "gsk_" + random_text("groq", 52, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
    ]
    for token in tokens:
        line = f'TOKEN = "{token}"'.encode()
        assert provider_tokens([line]), token
        assert anchors.may_match(line)
        encoded = base64.b64encode(line)
        assert provider_tokens([encoded]) and anchors.may_match(encoded)
