"""What a name says its value is (review.secrets.names): a password, a secret, a bare key, or
something about the secret that is not it."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.names import NameKind, name_kind, name_words


def test_a_name_s_words() -> None:
    assert name_words("DB_PASSWORD") == ["db", "password"]
    assert name_words("githubToken") == ["github", "token"]
    assert name_words("X-Auth-Token") == ["x", "auth", "token"]
    assert name_words("HTTPServerKey2") == ["http", "server", "key", "2"]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("DB_PASSWORD", NameKind.PASSWORD),
        ("db_pass", NameKind.PASSWORD),
        ("cloudant_pw", NameKind.PASSWORD),
        ("X3_PSWD", NameKind.PASSWORD),
        ("MYSQLPASS", NameKind.PASSWORD),
        ("passphrase", NameKind.PASSWORD),
        ("githubToken", NameKind.SECRET),
        ("client_secret", NameKind.SECRET),
        ("SLAPIKEY", NameKind.SECRET),
        ("aws_secret_access_key", NameKind.SECRET),
        ("ANY_key", NameKind.KEY),
        ("pkey", NameKind.KEY),
        ("user_auth", NameKind.KEY),
        ("GITHUB_TOKEN_FOR_CI", NameKind.SECRET),  # what it is for follows the token
        ("password_of_admin", NameKind.PASSWORD),
    ],
)
def test_names_of_secrets(name: str, kind: NameKind) -> None:
    assert name_kind(name) is kind


@pytest.mark.parametrize(
    "name",
    [
        "credentialId",  # names which secret
        "LLM_SECRET_NAME",
        "access_token_url",
        "password_field",
        "secret_length",
        "PASSWORD_HASH",
        "public_key",  # public
        "publishableKey",
        "csrf_token",  # a form's guard, shown on every page
        "authenticity_token",
        "keyStr",  # a key of something else
        "KeyPair",
        "bypass",  # no password in it
        "compass",
        "message",
        "x" * 200 + "token",  # no name is this long
        "keyVaultToStoreSecrets",  # a vault, for secrets
        "number_of_tokens",
        "pathToToken",
    ],
)
def test_names_that_are_no_secret(name: str) -> None:
    assert name_kind(name) is None
