"""Whether a value given to a secret-like name is a secret: stand-ins let through (templates,
placeholders, dummies, masks, encrypted envelopes), then judged as the name asks, a password as
people make them, a token or key by how random it looks, and a bare value in code only when no
name or expression of code could be it.
"""

from __future__ import annotations

import re
from itertools import pairwise

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.names import NameKind
from landwatch.review.secrets.public import publishable
from landwatch.review.secrets.scanning import (
    ELLIPSIS,
    ENCRYPTED,
    MASKS,
    PLACEHOLDER,
    REPEATED,
    placeholder_token,
    sealed_ciphertext,
    shannon_entropy,
)

# Longer than this is data (a certificate, a blob), never a value a person assigns by name.
LONGEST_VALUE = 1024
# Shorter than this is no secret of any kind (a password has six characters or more, the rest
# eight or more): asked first, since a line can give a name thousands of short values.
SHORTEST_VALUE = 6
_UUID = lazy_compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_HEX = lazy_compile(r"[0-9a-f]++", re.I)
_INTEGRITY = lazy_compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]++={0,2}")
_URL_OR_PATH = lazy_compile(r"[a-z][a-z0-9+.-]*+://[^@]*+|(?:~|\.{1,2})?/[\w.-]++/[\w./-]*+", re.I)
# Unicode whitespace, as str.isspace tells it (sre asks the same table), searched in C.
_SPACE = lazy_compile(r"\s")
# Names rather than values: `password_confirmation`, `auth.token.expired`, `X-Auth-Token`.
_IDENTIFIER = lazy_compile(r"[A-Za-z]++(?:[._-][A-Za-z]++)++")
# A name or an expression of code: `password`, `user.password`, `env["X"]`, `getToken()`.
_CODE_NAME = lazy_compile(r"[A-Za-z_$][\w$]*+(?:(?:\.|::|->)[A-Za-z_$][\w$]*+)*+")
_CODE_STARTS = ("$", "%", "{", "<", "@", "&", "*", "!", "(", "[")
# A number written in code: `#define PASSWORD 0x0dead1beef7cafe2` is a constant, a bit mask.
_HEX_NUMBER = lazy_compile(r"0x[0-9a-f_]++[ul]{0,3}", re.I)
_DUMMY_PREFIXES = ("test", "dummy", "fake", "sample", "example", "your")
_DUMMY_WORDS = ("changeme", "example", "placeholder", "redacted", "password", "secret", "token")
# A value hidden in place: a token's masks, and the x's people type over a password.
_MASKS = (*MASKS, "xxxx", "XXXX")
# Digits next to a letter: how a generator mixes them in (`k8Tq2v`); a version (`-1.2`) or a
# count (`_2`) sits apart.
_DIGIT_RUN = lazy_compile(r"[0-9]++")
# Characters a generated token holds: base64, base64url, base62 and their separators.
# (Digits counted among letters are found run by run, once each.)
_TOKEN_CHARACTERS = lazy_compile(r"[A-Za-z0-9+/=_.~-]++")


def stand_in(value: str) -> bool:
    """Whether a value only stands where a secret will be: a template, an environment
    reference, a dummy word, a mask, a run or a repeated unit, a cut-short or encrypted one
    (SOPS, Jasypt, Vault, a SealedSecret's ciphertext)."""
    if PLACEHOLDER.search(value) or ENCRYPTED.match(value) or sealed_ciphertext(value):
        return True
    if value.endswith(ELLIPSIS) or "..." in value or any(mask in value for mask in _MASKS):
        return True
    plain = value.lower().replace("-", "").replace("_", "")
    if plain.startswith(_DUMMY_PREFIXES) or any(word in plain for word in _DUMMY_WORDS):
        return True
    return bool(REPEATED.search(value)) or placeholder_token(value)


def _classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters `value` holds."""
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


def looks_generated(value: str) -> bool:
    """Whether a value looks made by a machine, not a name of code or a word: token characters
    only, digits among the letters more than once (or with both cases and a digit), and
    random enough."""
    if len(value) < 12 or not _TOKEN_CHARACTERS.fullmatch(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digit_runs = _digits_among_letters(value)
    if not letters or not digit_runs:
        return False
    if digit_runs < 2:
        # One run of digits: a generated value still mixes cases often, and carries its digits
        # inside, where a name of code puts a number at its end (`getUserById2`).
        mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
        inside = value[-1].isalpha()
        if not (mixed and inside and len(value) >= 16 and _changes(value) * 10 >= len(value) * 4):
            return False
    return shannon_entropy(value) >= 3.0


def machine_made(value: str) -> bool:
    """Whether a secret a name was given looks made by a machine rather than typed: generated
    (looks_generated), a UUID or a long hex key, or sixteen characters or more of three kinds
    and high entropy. What a person could have typed is told only as a guess."""
    if looks_generated(value) or _UUID.fullmatch(value):
        return True
    if _HEX.fullmatch(value):
        return len(value) >= 32
    return len(value) >= 16 and _classes(value) >= 3 and shannon_entropy(value) >= 3.5


def _digits_among_letters(value: str) -> int:
    """How many runs of digits sit next to a letter."""
    count = 0
    for run in _DIGIT_RUN.finditer(value):
        start, end = run.span()
        if (start and value[start - 1].isalpha()) or (end < len(value) and value[end].isalpha()):
            count += 1
    return count


def _changes(value: str) -> int:
    """How often a value goes from one kind of character to another (case, digit, other)."""

    def kind(c: str) -> int:
        return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3

    return sum(kind(a) != kind(b) for a, b in pairwise(value))


def _not_a_value(value: str) -> bool:
    """What no secret is, whatever the name: prose, a URL or a path, a regular expression, a
    name in dotted or dashed words, an integrity hash."""
    return (
        bool(_SPACE.search(value))
        or "\\" in value
        or bool(_URL_OR_PATH.fullmatch(value))
        or bool(_IDENTIFIER.fullmatch(value))
        or bool(_INTEGRITY.fullmatch(value))
    )


def secret_value(value: str, kind: NameKind, *, min_entropy: float, in_code: bool) -> bool:
    """Whether `value`, given to a name of `kind`, is a secret. `in_code`: it stands bare in
    code, where a name or an expression is what stands there most often."""
    if len(value) < SHORTEST_VALUE or len(value) > LONGEST_VALUE:
        return False
    if _not_a_value(value) or stand_in(value):
        return False
    if publishable(value):
        return False  # public by design: the format rule tells it at info, saying so
    if kind is NameKind.PASSWORD:
        return password_value(value, in_code=in_code)
    if kind is NameKind.KEY:
        # A bare `key` holds ids and hashes as often as secrets: a generated value only.
        return len(value) >= 16 and not _UUID.fullmatch(value) and looks_generated(value)
    if in_code:
        return len(value) >= 8 and looks_generated(value)
    if len(value) < 8:
        return False
    if _UUID.fullmatch(value) or (_HEX.fullmatch(value) and len(value) >= 32):
        return True  # a service's random key, written as hex or a UUID
    return shannon_entropy(value) >= min_entropy


def password_value(value: str, *, in_code: bool) -> bool:
    """Whether a value given to a password's name is a password: six characters or more of two
    kinds (letters and digits, or a symbol); bare in code, one no name of code could be."""
    if len(value) < SHORTEST_VALUE or _classes(value) < 2:
        return False
    if not in_code:
        return True
    if value.startswith(_CODE_STARTS) or ("/" in value and "." in value):
        return False  # a variable, a call, a path or a host
    if _HEX_NUMBER.fullmatch(value):
        return False
    if not _CODE_NAME.fullmatch(value):
        return "(" not in value and "[" not in value
    # A name of code mixes cases and digits less than a password does (`Tr0ub4dor5`).
    return (
        len(value) >= 8
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )
