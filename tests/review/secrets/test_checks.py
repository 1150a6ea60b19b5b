"""Formats checked beyond their pattern (review.secrets.checks): GitHub's and npm's CRC32, age's
bech32, PyPI's macaroon, a JWT's header and claims, a Slack token's ids. Every credential here is
built by the test with its checksum computed; none was issued."""

from __future__ import annotations

import base64
import json

import pytest

from landwatch.review.secrets.checks import (
    bech32_holds,
    checksum_fails,
    checksum_holds,
    jwt_names_algorithm,
    jwt_well_formed,
    slack_ids_hold,
    verdict,
)
from support.tokens import GITHUB_TOKEN, age_secret_key, github_token, pypi_token


def _altered(value: str, at: int = -1) -> str:
    """`value` with one character changed."""
    at %= len(value)
    return value[:at] + ("Q" if value[at] != "Q" else "P") + value[at + 1 :]


def _b64url(document: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()


@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "npm_"])
def test_a_crc32_checksum_tells_a_service_s_token_from_a_typed_one(prefix: str) -> None:
    token = github_token(prefix, prefix)
    assert checksum_holds(token) and not checksum_fails(token)
    assert checksum_fails(_altered(token)) and checksum_fails(_altered(token, 10))
    assert checksum_fails(prefix + "jscdipdmkhgiohnydry2hug9gpsinvpy8aoo")  # from the pattern


def test_an_age_key_s_bech32_checksum_holds_only_as_made() -> None:
    key = age_secret_key()
    assert key.startswith("AGE-SECRET-KEY-1") and len(key) == 74
    assert checksum_holds(key)
    assert checksum_fails(_altered(key)) and checksum_fails(_altered(key, 30))
    assert checksum_fails("AGE-SECRET-KEY-1" + "Q" * 58)  # a stand-in the docs show


@pytest.mark.parametrize(
    "value",
    [
        "a12uel5l",
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
        "?1ezyfcl",
    ],
)
def test_bech32_holds_for_bip_173_s_valid_vectors(value: str) -> None:
    assert bech32_holds(value)
    assert not bech32_holds(value[:-1] + ("q" if value[-1] != "q" else "p"))


def test_an_age_key_is_checked_only_as_age_writes_it() -> None:
    key = age_secret_key("case")
    assert verdict(key) is True and verdict(key.lower()) is None


def test_a_pypi_token_is_a_macaroon_with_its_signature() -> None:
    token = pypi_token()
    assert token.startswith("pypi-AgEIcHlwaS5vcmc")
    assert checksum_holds(token)
    assert checksum_fails(token[:-10])  # cut short: no whole signature
    assert checksum_fails("pypi-AgEIcHlwaS5vcmc" + "CJ" + "Ab1Cd2Ef3G" * 6)  # typed after it
    assert checksum_fails("pypi-AgEIcHlwaS5vcmc" + "!" * 60)


def test_formats_with_no_check_have_no_verdict() -> None:
    for value in ("glpat-" + "Zq8Wv7Tu6Rs5QpX3Lm2N", "AKIA" + "QX7ZR4M2" * 2, "ghp_short"):
        assert verdict(value) is None
        assert not checksum_holds(value) and not checksum_fails(value)
    assert verdict(GITHUB_TOKEN + "x") is None  # one character long: not the format


def test_a_jwt_decodes_to_json_objects_whose_header_names_its_algorithm() -> None:
    header = _b64url({"alg": "HS256", "typ": "JWT"})
    claims = _b64url({"sub": "1234"})
    assert jwt_well_formed(f"{header}.{claims}.c2lnbmF0dXJl")
    assert jwt_well_formed(f"{header}.{claims}")  # unsigned
    assert not jwt_well_formed(f"{header[:-2]}.{claims}.c2lnbmF0dXJl")  # the header cut
    assert jwt_well_formed(f"{_b64url({'kid': 'k1'})}.{claims}.c2ln")
    assert not jwt_names_algorithm(f"{_b64url({'kid': 'k1'})}.{claims}.c2ln")
    assert jwt_names_algorithm(f"{header}.{claims}")
    assert not jwt_well_formed(f"{_b64url(['alg'])}.{claims}.c2ln")
    assert not jwt_well_formed("eyJub3QgSlNPTg.eyJzdWIiOiIxMjM0In0.c2ln")
    # Only a JWT that does not decode is a stand-in: one that does proves no service made it.
    assert checksum_fails("eyJub3QgSlNPTg.eyJzdWIiOiIxMjM0In0.c2ln")
    assert not checksum_fails(f"{header}.{claims}.c2lnbmF0dXJl")
    assert not checksum_holds(f"{header}.{claims}.c2lnbmF0dXJl")


def test_a_slack_token_s_ids_are_as_slack_issues_them_or_a_version() -> None:
    for issued in (
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
        "xoxb-84748912-Ab1Cd2Ef3Gh4Ij5Kl6Mn7O",  # a legacy bot's: one id of 8 digits
        "xoxp-2575847938-7684568596-9838746238-4ddbc191d40ee098cbaae6f3523ada2d",
        "xoxp-1-Mi0yLTM5MTgwOTU0ODI3NC0xMDUzMjc0NTg2MzIx",  # the ids encoded after a version
    ):
        assert slack_ids_hold(issued) and not checksum_fails(issued), issued
        assert verdict(issued) is None and not checksum_holds(issued)  # structure, no proof
    for made_up in (
        "xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d",
        "xoxb-2575847938-123-pdFZKVeTuE8sk7oOcBrzbqgy",
        "xoxb-257584793812345-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
        "xoxp-pdFZKVeTuE8sk7oOcBrzbqgy",
        "xoxb-\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668-pdFZKVeTuE8sk7oOcBrzbqgy",
    ):
        assert checksum_fails(made_up), made_up
    # Slack's other tokens carry no ids to check.
    assert not checksum_fails("xoxa-2-" + "Ab1Cd2Ef3Gh4" * 3)
