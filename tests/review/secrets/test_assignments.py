"""Secret-looking literals given to secret-like names (review.secrets.assignments): by assignment,
as a key, by a call; unquoted only where a line is `key=value`; comparisons, templates,
placeholders, digests and dummies let through; as random as asked."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.assignments import assignments, secret_looking

VALUE = "Zq8Wv7Tu6Rs5Qp"


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (f'DB_PASSWORD = "{VALUE}"', "DB_PASSWORD"),
        (f"apiKey: '{VALUE}'", "apiKey"),
        (f'settings["SECRET_KEY"] = "{VALUE}"', "SECRET_KEY"),
        (f"define('DB_PASSWORD', '{VALUE}');", "DB_PASSWORD"),
        (f'token: str = "{VALUE}"', "token"),
        (f'client_secret => "{VALUE}"', "client_secret"),
    ],
)
def test_a_secret_given_to_a_secret_like_name_is_found(line: str, name: str) -> None:
    at = line.index(VALUE)
    assert assignments(line, unquoted=False, min_entropy=3.0) == [(name, at, at + len(VALUE))]


@pytest.mark.parametrize(
    "line",
    [
        f'if password == "{VALUE}":',  # a comparison
        'DB_PASSWORD = "${DB_PASSWORD}"',  # a template
        'password = "changeme123"',  # a dummy
        'api_key = "0123456789abcdef0123456789abcdef01234567"',  # a digest
        'secret = "aaaaaaaaaaaa"',  # a run of one character
        'token = "auth.token.expired"',  # a name, not a value
        'password = "short"',  # too short to guess at
        'message = "' + VALUE + '"',  # no secret-like name
    ],
)
def test_what_is_no_secret_is_let_through(line: str) -> None:
    assert assignments(line, unquoted=True, min_entropy=3.0) == []


def test_an_unquoted_value_counts_only_where_it_is_a_literal() -> None:
    line = f"TOKEN={VALUE}"
    assert assignments(line, unquoted=False, min_entropy=3.0) == []
    assert assignments(line, unquoted=True, min_entropy=3.0) == [("TOKEN", 6, 6 + len(VALUE))]


def test_how_random_a_secret_must_look_is_asked() -> None:
    plain = "passwordlike-abab"
    assert secret_looking(VALUE, 3.0)
    assert not secret_looking("abababababab", 3.0) and secret_looking("abababababab", 0.0)
    assert not secret_looking(plain, 0.0)  # it says password: a dummy whatever its entropy
