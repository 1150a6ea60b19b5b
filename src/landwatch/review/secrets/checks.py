"""Formats a value can be checked by, beyond its pattern: a checksum (GitHub's and npm's CRC32,
age's bech32) or a fixed structure (a PyPI token's macaroon, a JWT's JSON header and claims,
the ids in a Slack token).

A value that passes was made by the service's own code; one that fails was typed, generated from
the pattern for a test or a document, or mistyped, and is a stand-in.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json

# GitHub's classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and npm's (npm_) are thirty base62
# characters and six more: the CRC32 of those thirty in base62, zero-padded. Described by
# GitHub ("Behind GitHub's new authentication token formats", github.blog, 2021-04-05) and npm
# ("npm has a new access token format", github.blog, 2021-09-23).
_CRC32_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "npm_")
_CRC32_TOKEN = 40
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# age's secret keys are Bech32 (BIP-173) with the human-readable part AGE-SECRET-KEY-, written
# in upper case: 32 bytes of key (52 characters) and a six-character checksum (the age v1
# specification, age-encryption.org/v1, "X25519 recipient stanza"; the checksum as BIP-173
# describes it).
AGE_PREFIX = "AGE-SECRET-KEY-1"
_AGE_KEY = len(AGE_PREFIX) + 58
_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)

# PyPI's API tokens are `pypi-` and a macaroon in its version-2 binary form, base64url: version
# byte 2, its location (`pypi.org`), its identifier, its caveats, and a 32-byte HMAC signature
# (PyPI's help, "API tokens", and libmacaroons' format v2: fields of a type byte, a LEB128
# length and the data, sections ended by a zero byte). `AgEIcHlwaS5vcmc` is the base64 of its
# first eleven bytes.
PYPI_PREFIX = "pypi-AgEIcHlwaS5vcmc"
_MACAROON_LOCATION, _MACAROON_IDENTIFIER, _MACAROON_VERIFIER, _MACAROON_SIGNATURE = 1, 2, 4, 6
_SIGNATURE_BYTES = 32
_MOST_MACAROON = 8192  # characters: PyPI's tokens are a few hundred

# A JWT's header and claims are base64url JSON objects (RFC 7519 section 7.2), and its header
# names its algorithm (RFC 7515 section 4.1.1: `alg` is required). Longer parts than this are
# none (and would cost their decoding).
_MOST_JWT_PART = 16_384

# Slack's bot and user tokens carry the workspace's and the user's ids: 8 to 14 digits each in
# the tokens Slack issues, as gitleaks' default rules (MIT) bound them (bot tokens 10-13, legacy
# bot tokens 8-14, user tokens 10-13), or a version digit where the ids are encoded in what
# follows (`xoxp-1-Mi0y…`).
_SLACK_PREFIXES = ("xoxb-", "xoxp-")
_SLACK_ID_DIGITS = range(8, 15)


def verdict(value: str) -> bool | None:
    """Whether the check of a value's format holds (True) or fails (False); None for a value of
    no format with a checksum or a structure to check."""
    if value.startswith(_CRC32_PREFIXES) and len(value) == _CRC32_TOKEN:
        return _crc32_holds(value[4:-6], value[-6:])
    if value.startswith(AGE_PREFIX) and len(value) == _AGE_KEY:
        return bech32_holds(value.lower())
    if value.startswith(PYPI_PREFIX):
        return _macaroon(value[len("pypi-") :])
    return None


def checksum_holds(value: str) -> bool:
    """Whether `value` is of a checked format and its check holds: a credential the service
    made, not one typed for a test."""
    return verdict(value) is True


def checksum_fails(value: str) -> bool:
    """Whether `value` is of a format with a checksum or a structure and fails it: a stand-in;
    False for every format without one. A JWT's structure counts here (one that does not decode
    was made up), but one that decodes is no proof a service made it (tests make them)."""
    if value.startswith("eyJ") and ".eyJ" in value:
        return not jwt_well_formed(value)
    if value.startswith(_SLACK_PREFIXES):
        return not slack_ids_hold(value)
    return verdict(value) is False


def slack_ids_hold(value: str) -> bool:
    """Whether a Slack bot's or user's token carries ids as Slack issues them (made-up ones,
    `xoxp-1234-1234-1234-…`, do not); its structure, not proof a service made it."""
    ids = list(itertools.takewhile(_digits, value.split("-")[1:]))
    if len(ids) == 1 and len(ids[0]) == 1:
        return True  # the version of a token whose ids follow encoded
    return bool(ids) and all(len(part) in _SLACK_ID_DIGITS for part in ids)


def _digits(part: str) -> bool:
    return part.isascii() and part.isdigit()


def _crc32_holds(body: str, checksum: str) -> bool:
    number = 0
    for character in checksum:
        digit = _BASE62.find(character)
        if digit < 0:
            return False
        number = number * 62 + digit
    return number == binascii.crc32(body.encode("ascii", "replace"))


def bech32_holds(value: str) -> bool:
    """Whether a lower-case Bech32 string's checksum (BIP-173) holds over its human-readable
    part and its data."""
    hrp, _, data = value.rpartition("1")
    values = [_BECH32.find(character) for character in data]
    if not hrp or min(values, default=-1) < 0:
        return False
    check = 1
    for digit in [*(ord(c) >> 5 for c in hrp), 0, *(ord(c) & 31 for c in hrp), *values]:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ digit
        for bit, generator in enumerate(_BECH32_GENERATOR):
            if top >> bit & 1:
                check ^= generator
    return check == 1


def base64url(encoded: str) -> bytes | None:
    """`encoded` decoded as unpadded base64url, as JWTs, macaroons and Discord ids are written;
    None when it is not."""
    try:
        return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except (ValueError, binascii.Error):
        return None


def _macaroon(encoded: str) -> bool:
    """Whether `encoded` is a version-2 macaroon: sections of fields, then a signature."""
    if len(encoded) > _MOST_MACAROON:
        return False
    data = base64url(encoded)
    if data is None or data[:1] != b"\x02":
        return False
    at = _section(data, 1)  # the header: location and identifier
    while 0 <= at < len(data) and data[at] != 0:
        at = _section(data, at)  # a caveat
    if at < 0:
        return False
    at += 1  # the end of the caveats
    field = _field(data, at)
    return field is not None and field[0] == _MACAROON_SIGNATURE and field[1] == len(data)


def _section(data: bytes, at: int) -> int:
    """Where a macaroon's section of fields starting at `at` ends (past its zero byte); -1 when
    it is not one."""
    while at < len(data) and data[at] != 0:
        field = _field(data, at)
        if field is None or field[0] not in (
            _MACAROON_LOCATION,
            _MACAROON_IDENTIFIER,
            _MACAROON_VERIFIER,
        ):
            return -1
        at = field[1]
    return at + 1 if at < len(data) else -1


def _field(data: bytes, at: int) -> tuple[int, int] | None:
    """(type, end) of the macaroon field at `at`: a type byte, a LEB128 length, the data."""
    if at >= len(data):
        return None
    kind, at = data[at], at + 1
    length = shift = 0
    while at < len(data) and shift < 28:
        byte = data[at]
        at += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if kind == _MACAROON_SIGNATURE and length != _SIGNATURE_BYTES:
                return None
            return (kind, at + length) if at + length <= len(data) else None
    return None


def jwt_well_formed(value: str) -> bool:
    """Whether a JWT-shaped value's header and claims decode to JSON objects, as every token a
    JWT library made does (an unsigned one, `alg: none`, has no third part)."""
    return _jwt_header(value) is not None


def jwt_names_algorithm(value: str) -> bool:
    """Whether a well-formed JWT's header names its algorithm, as RFC 7515 requires of every
    token a library signs or encrypts: one without is a hand-made example of a header field."""
    header = _jwt_header(value)
    return header is not None and "alg" in header


def _jwt_header(value: str) -> dict[str, object] | None:
    """A JWT's header, when it and the claims decode to JSON objects; None otherwise."""
    parts = value.split(".")
    if len(parts) not in (2, 3):
        return None
    decoded = []
    for part in parts[:2]:
        if len(part) > _MOST_JWT_PART:
            return None
        data = base64url(part)
        if data is None:
            return None
        try:
            decoded.append(json.loads(data))
        except (ValueError, RecursionError):
            return None
    header, claims = decoded
    return header if isinstance(header, dict) and isinstance(claims, dict) else None
