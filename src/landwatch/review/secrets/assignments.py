"""Secret-looking literals given to secret-like names (`DB_PASSWORD = "…"`, `apiKey: '…'`,
`define('SECRET', '…')`, `token=…` in .env files), placeholders, digests and dummies let through.
"""

from __future__ import annotations

import re

from landwatch.review.secrets.scanning import (
    ELLIPSIS,
    ENCRYPTED,
    PLACEHOLDER,
    REPEATED,
    ascii_lower,
    shannon_entropy,
)

_NAME_WORDS = (
    "passw(?:or)?d|pwd|secret|token|credentials?|api[_-]?key|access[_-]?key|private[_-]?key"
)
SECRET_NAME_NEEDLES = tuple(
    word.encode()
    for word in (
        "passw",
        "pwd",
        "secret",
        "token",
        "credential",
        "apikey",
        "api_key",
        "api-key",
        "accesskey",
        "access_key",
        "access-key",
        "privatekey",
        "private_key",
        "private-key",
    )
)
# Every pattern here runs in time linear in the line (docs/security.md, "Every scan is linear"):
# a name is one run of name characters, found once (`_NAME_RUN`) and tested for a secret word,
# never matched from each of its letters; quantifiers that follow one another take disjoint
# characters or are possessive, and a type annotation is bounded.
_NAME_RUN = re.compile(r"[\w.-]++")
_NAME_WORD = re.compile(_NAME_WORDS)
# `=`, `:`, `:=`, `=>` and a typed `name: str =`; comparisons (`==`, `!=`) are not assignments.
_ASSIGN = r"(?:=>|:=|=(?!=)|:(?!:)(?:\s*+[A-Za-z_][\w\[\]., |\t]{0,80}?=(?!=))?)"
_VALUE = r"\s*+[rbuf]{0,2}(?:\"(?P<dq>[^\"]*+)\"|'(?P<sq>[^']*+)'|`(?P<bq>[^`]*+)`)"
# What follows a secret-like name given a quoted literal. These match ASCII-lowered text (see
# ascii_lower): case-insensitive matching is several times slower.
# A key may close its own quote or subscript: "password": ..., settings['SECRET_KEY'] = ...
_QUOTED_TAIL = re.compile(r"(?:[\"'`]\]?)?\s*+" + _ASSIGN + _VALUE)
# A call setting a secret by name (PHP's define, setenv, a header): define('DB_PASSWORD', '...').
# Only as a call's first argument: a tuple or list of names, ("token", "refresh"), is not one.
_CALL = re.compile(r"(?<=[\w$])\(\s*+[\"'`](?P<name>[\w.-]++)[\"'`]\s*+," + _VALUE)
# In .env, INI and YAML files the rest of a `key=value` line is a literal; elsewhere an unquoted
# value is code (a variable, a call). Values opening with YAML syntax (!tag, &anchor, *alias,
# |, >, {, [) are not scalars.
_UNQUOTED = re.compile(
    r"\s*+(?:export\s++|-\s++)?(?P<name>[\w.-]++)"
    r"\s*+[=:]\s*+(?P<value>[^\s\"'`#;!&*|>{\[%@<]\S*+)(?:\s++[#;].*)?\s*+$"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_HEX_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}", re.I)
_INTEGRITY = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}")
_URL_OR_PATH = re.compile(r"[a-z][a-z0-9+.-]*://[^@]*|(?:~|\.{1,2})?/[\w.-]+/[\w./-]*", re.I)
# Names rather than values: `password_confirmation`, `auth.token.expired`, `X-Auth-Token`.
_IDENTIFIER = re.compile(r"[A-Za-z]+(?:[._-][A-Za-z]+)+")
_DUMMY_PREFIXES = ("test", "dummy", "fake", "sample", "example", "your")
_DUMMY_WORDS = ("changeme", "example", "placeholder", "redacted", "password")


def secret_looking(value: str, min_entropy: float) -> bool:
    """Whether a literal assigned to a secret-like name looks like a real secret."""
    if len(value) < 8 or any(character.isspace() for character in value):
        return False  # too short to be guessed at, or prose (messages, labels)
    if PLACEHOLDER.search(value) or "\\" in value:
        return False  # a template, or a regular expression or escape sequence
    if ENCRYPTED.match(value):
        return False  # encrypted for the repository (SOPS, Jasypt, Vault): safe to commit
    if value.endswith(ELLIPSIS) or "..." in value:
        return False  # a token shown cut short in docs
    if (
        _UUID.fullmatch(value)
        or _HEX_DIGEST.fullmatch(value)
        or _INTEGRITY.fullmatch(value)
        or _URL_OR_PATH.fullmatch(value)
        or _IDENTIFIER.fullmatch(value)
    ):
        return False
    plain = value.lower().replace("-", "").replace("_", "")
    if plain.startswith(_DUMMY_PREFIXES) or any(word in plain for word in _DUMMY_WORDS):
        return False
    if REPEATED.search(value):
        return False
    return shannon_entropy(value) >= min_entropy


def _secret_name(name: str) -> bool:
    """Whether a name holds a secret word (DB_PASSWORD, githubToken); `name` is lower case."""
    return _NAME_WORD.search(name) is not None


def assignments(text: str, *, unquoted: bool, min_entropy: float) -> list[tuple[str, int, int]]:
    """(name, start, end) of each secret-looking value a secret-like name is given on a line."""
    lowered = ascii_lower(text)
    found: list[tuple[str, int, int]] = []
    for run in _NAME_RUN.finditer(lowered):
        if not _secret_name(run[0]):
            continue
        match = _QUOTED_TAIL.match(lowered, run.end())
        if match is not None:
            group = next(g for g in ("dq", "sq", "bq") if match[g] is not None)
            found.append((text[run.start() : run.end()], match.start(group), match.end(group)))
    for match in _CALL.finditer(lowered):
        if _secret_name(match["name"]):
            group = next(g for g in ("dq", "sq", "bq") if match[g] is not None)
            found.append((text[match.start("name") : match.end("name")], *match.span(group)))
    if unquoted and not found and (bare := _UNQUOTED.match(lowered)) and _secret_name(bare["name"]):
        name = text[bare.start("name") : bare.end("name")]
        found.append((name, bare.start("value"), bare.end("value")))
    return [
        (name, start, end)
        for name, start, end in sorted(set(found), key=lambda item: item[1])
        if secret_looking(text[start:end], min_entropy)
    ]
