"""What a name says its value is: a password (human-made, judged as one), a secret (a token or
a key, judged by how random it looks), a key or an auth value (only when it looks generated), or
no secret at all (`password_field`, `credentialId`, `public_key`, `token_url`).
"""

from __future__ import annotations

import enum
import functools

from landwatch.lazy_re import lazy_compile


class NameKind(enum.Enum):
    """How sure a name is that its value is a secret, strongest first."""

    PASSWORD = enum.auto()  # passwords, passphrases: people make them, at low entropy
    SECRET = enum.auto()  # secrets, tokens, credentials, API and access keys
    KEY = enum.auto()  # a bare `key` or `auth`: as often a cache key or a mode as a secret


# Substrings of a folded name (lower case, no separators) that say what its value is.
_PASSWORD_PARTS = ("passw", "pwd", "passphrase", "passcode")
# Password's abbreviations and misspellings: pswd, pswrd, psword, psswrd, paswd, passwd.
_PASSWORD_SPELLINGS = lazy_compile(r"pa?s{1,2}w(?:o?r)?d")
_SECRET_PARTS = (
    "secret",
    "token",
    "bearer",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "clientkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
)
# Whole words that do the same: `db_pass`, `user_pw`, `X-Auth`, `pkey`.
_PASSWORD_WORDS = frozenset({"pass", "pw", "passwd", "pword"})
# Words ending in `pass` that are no password (`MYSQLPASS` is one).
_NOT_PASS = frozenset({"bypass", "compass", "encompass", "surpass", "overpass", "underpass"})
_KEY_WORDS = frozenset({"key", "pkey", "auth", "authorization", "apikey", "authkey", "sharedkey"})
# A name ending in one of these words names something about the secret, not the secret:
# `password_field`, `secret_name`, `tokenUrl`, `api_key_id`, `secret_length`, `PASSWORD_HASH`.
_NOT_THE_VALUE = frozenset(
    {
        *("id", "ids", "name", "names", "type", "types", "kind", "label", "title"),
        *("url", "uri", "urls", "endpoint", "host", "path", "paths", "file", "files"),
        *("filename", "dir", "folder", "location", "ref", "reference", "arn", "env", "var"),
        *("variable", "length", "len", "size", "count", "min", "max", "limit", "format"),
        *("version", "field", "fields", "column", "header", "headers", "param", "params"),
        *("parameter", "prompt", "placeholder", "hint", "regex", "pattern", "policy"),
        *("provider", "scope", "scopes", "algorithm", "alg", "mode", "enabled", "required"),
        *("hash", "hashed", "sha", "digest", "checksum", "fingerprint", "salt", "rounds"),
        *("expiry", "expires", "expiration", "ttl", "timeout", "lifetime", "age", "store"),
        *("vault", "manager", "template", "prefix", "suffix", "input", "error", "message"),
        *("msg", "text", "description", "desc", "help", "method", "class", "flag", "option"),
        *("options", "service", "user", "username", "email", "reset", "strength", "rule"),
        *("rules", "valid", "validator", "validation", "changed", "visible"),
    }
)
# A name holding one of these words names the secret made safe: `hashed_secret`,
# `password_digest`, `encrypted_token` (a baseline's or a database's, never the secret).
_TRANSFORMED = frozenset({"hash", "hashed", "digest", "checksum", "sha", "encrypted", "salted"})
# A name starting with one of these words is public, or a form's guard against forgery that
# every page shows: `public_key`, `publishableKey`, `csrf_token`, Rails' `authenticity_token`;
# `NEXT_PUBLIC_TOKEN` is public too.
_NOT_SECRET_WORDS = frozenset(
    {"public", "pub", "publishable", "csrf", "xsrf", "authenticity", "nonce", "no"}
)
# A word after which a name says what its thing is for or of: `keyVaultToStoreSecrets` is a
# vault, `number_of_tokens` a count, `GITHUB_TOKEN_FOR_CI` a token.
_PURPOSE = frozenset({"to", "for", "of"})
# Words of a name: runs of lower case, of upper case (before a capitalised word), or of digits.
_WORDS = lazy_compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_NEEDLES_TEXT = (*_PASSWORD_PARTS, *_SECRET_PARTS, "pass", "pw", "psw", "ssw", "asw", "key", "auth")
# What a line must hold, folded, for any name on it to be secret-like: the detectors' anchors.
SECRET_NAME_NEEDLES = tuple(needle.encode() for needle in _NEEDLES_TEXT)
_LONGEST_NAME = 128


def name_words(name: str) -> list[str]:
    """The words of a name, lower case: `DB_PASSWORD` -> db, password; `githubToken` -> github,
    token; `X-Auth-Token` -> x, auth, token."""
    return [word.lower() for word in _WORDS.findall(name)]


@functools.lru_cache(maxsize=4096)
def name_kind(name: str) -> NameKind | None:
    """What `name` says its value is, or None when it names no secret (kept for the names a
    review meets again and again)."""
    if len(name) > _LONGEST_NAME:
        return None  # no name is this long: a run of a minified line or of data
    words = name_words(name)
    for at, word in enumerate(words[1:], start=1):
        if word in _PURPOSE:
            words = words[:at]  # `keyVaultToStoreSecrets` names a vault: what it is for follows
            break
    if not words or words[0] in _NOT_SECRET_WORDS or "public" in words:
        return None
    folded, last = "".join(words), words[-1]
    if last in _NOT_THE_VALUE or not _TRANSFORMED.isdisjoint(words):
        return None
    if (
        any(part in folded for part in _PASSWORD_PARTS)
        or _PASSWORD_SPELLINGS.search(folded)
        or not _PASSWORD_WORDS.isdisjoint(words)
        or any(word.endswith("pass") and word not in _NOT_PASS for word in words)
    ):
        return NameKind.PASSWORD
    if any(part in folded for part in _SECRET_PARTS):
        return NameKind.SECRET
    if last in _KEY_WORDS or last.endswith("key") or "auth" in words:
        return NameKind.KEY
    return None
