"""Whether a value given to a secret-like name is a secret (review.secrets.values): stand-ins
let through, a password judged as people make them, a token by how random it looks, a bare
value in code only when no code could be it."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.names import NameKind
from landwatch.review.secrets.values import (
    LONGEST_VALUE,
    looks_generated,
    machine_made,
    password_value,
    secret_value,
    stand_in,
)


@pytest.mark.parametrize(
    "value",
    [
        "${DB_PASSWORD}",
        "${DB_PASSWORD:-default}",
        "{{ vault_pw }}",
        "<your-token>",
        "$TOKEN",
        "$(cat /run/secrets/token)",
        "ENC(2dfRFqV/cS6TzRd+JyO=)",
        "changeme123",
        "example-token-1",
        "sk_****",
        "xoxp-1234-xxxx",
        "abcd1234abcd1234abcd1234",
        "987654zyxwvu",
        "eyJhbGciOi...",
    ],
)
def test_stand_ins(value: str) -> None:
    assert stand_in(value)


@pytest.mark.parametrize(
    "value", ["Zq8Wv7Tu6Rs5QpX3", "m{{h}o)p${e]nob(ody[finds>-_$#thisone}}", "k8#Tq2!vZ9$mW4pL"]
)
def test_what_only_looks_like_a_template_is_no_stand_in(value: str) -> None:
    assert not stand_in(value)


def test_generated_values_and_names_of_code() -> None:
    for value in ("AIhq5Xyb1Gga9Q29", "9RtxOg1woQP0iR35Bo3ghHiWpcsaSo", "jt7qlnqgfjxfaoaukg61879b"):
        assert looks_generated(value), value
    for value in ("getUserById2", "tokenV2Handler", "XMLHttpRequest2", "SalesResults-1.2"):
        assert not looks_generated(value), value


def test_passwords() -> None:
    assert password_value("cackle!", in_code=False)
    assert not password_value("Palau", in_code=False)  # too short
    assert not password_value("required", in_code=False)  # one kind of character
    assert not password_value("user.password", in_code=True)  # code
    assert not password_value("password2", in_code=True)
    assert password_value("d37Yt1Jnv0-z", in_code=True)  # no name of code holds a dash
    assert not password_value("0x0dead1beef7cafe2", in_code=True)  # a number: a constant, a mask
    assert password_value("0x0dead1beef7cafe2", in_code=False)


def test_a_value_is_judged_as_its_name_asks() -> None:
    uuid = "dafa7817-e246-48f3-91a7-e87653d587b8"
    assert secret_value(uuid, NameKind.SECRET, min_entropy=3.5, in_code=False)
    assert not secret_value(uuid, NameKind.KEY, min_entropy=3.5, in_code=False)
    assert secret_value("cackle!", NameKind.PASSWORD, min_entropy=3.5, in_code=False)
    assert not secret_value("cackle!", NameKind.SECRET, min_entropy=3.5, in_code=False)
    assert not secret_value(
        "A1" + "x9Q" * LONGEST_VALUE, NameKind.SECRET, min_entropy=0, in_code=False
    )


@pytest.mark.parametrize(
    "value",
    [
        "k8Tq2vZ9mW4pLr7Xc3Nb",  # generated: digits among mixed-case letters
        "3f1c9a7e-52b4-4d0e-9a61-0c2d7b8e4f15",  # a UUID
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",  # a hex key
        "k8#Tq2!vZ9$mW4pL",  # sixteen characters of four kinds
    ],
)
def test_a_value_a_machine_made_is_told_apart(value: str) -> None:
    assert machine_made(value)


@pytest.mark.parametrize("value", ["Tr0ub4dor&3", "hunter22", "Summer2024!", "letmein2024"])
def test_a_value_a_person_could_type_is_not(value: str) -> None:
    assert not machine_made(value)
