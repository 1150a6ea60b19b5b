"""Credentials for the secret tests that look as real ones do: made up, never issued, but of
the right shape (a GitHub token's CRC32 checksum holds), and random rather than a repeated unit
(which the detectors take for a stand-in)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import random

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def random_text(seed: str, length: int, alphabet: str = _BASE62) -> str:
    """`length` characters of `alphabet`, the same for the same seed."""
    out = ""
    counter = 0
    while len(out) < length:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        out += "".join(alphabet[byte % len(alphabet)] for byte in digest)
        counter += 1
    return out[:length]


def base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = _BASE62[digit] + digits
    return digits.rjust(width, "0")


def github_token(seed: str = "landwatch", prefix: str = "ghp_", start: str = "") -> str:
    """A classic GitHub token whose checksum holds: 30 characters (`start`, then random ones)
    and their CRC32."""
    body = start + random_text(seed, 30 - len(start))
    return prefix + body + base62(binascii.crc32(body.encode()), 6)


GITHUB_TOKEN = github_token()


def hugging_face_token(seed: str = "landwatch") -> str:
    """A Hugging Face access token's shape (`hf_`, 34 letters): a provider format only the
    maintained rule set knows, so only a rule set that is whole finds it."""
    return "hf_" + random_text(seed, 34, _BASE62[10:])


def sealed_value(key_size: int, body: int) -> str:
    """A value shaped as kubeseal writes one: the wrapped session key's size (two bytes), then
    `body` random bytes standing for that key, the ciphertext and its tag."""
    data = key_size.to_bytes(2, "big") + random.Random(body).randbytes(body)
    return base64.b64encode(data).decode()


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_polymod(values: list[int]) -> int:
    """BIP-173's checksum function, as its reference implementation writes it."""
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            check ^= generator[i] if (top >> i) & 1 else 0
    return check


def age_secret_key(seed: str = "landwatch") -> str:
    """An age secret key whose bech32 checksum holds: 32 random bytes as 52 characters, then
    the six BIP-173 computes over the human-readable part and them."""
    data = hashlib.sha256(seed.encode()).digest()
    bits = int.from_bytes(data, "big") << 4  # 256 bits padded to 260, 52 groups of five
    groups = [(bits >> (5 * (51 - at))) & 31 for at in range(52)]
    hrp = "age-secret-key-"
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    polymod = _bech32_polymod([*expanded, *groups, 0, 0, 0, 0, 0, 0]) ^ 1
    checksum = [(polymod >> 5 * (5 - at)) & 31 for at in range(6)]
    return (hrp + "1" + "".join(_BECH32[g] for g in groups + checksum)).upper()


def _macaroon_field(kind: int, data: bytes) -> bytes:
    assert len(data) < 128  # one byte of LEB128 length
    return bytes([kind, len(data)]) + data


def pypi_token(seed: str = "landwatch") -> str:
    """A PyPI API token's shape: `pypi-` and a version-2 macaroon, base64url (location
    pypi.org, an identifier, one caveat, a 32-byte signature), the signature made up."""
    identifier = b'{"version": 1, "uuid": "' + random_text(seed, 32).encode() + b'"}'
    caveat = b'{"version": 1, "permissions": "user"}'
    signature = hashlib.sha256(f"{seed}:signature".encode()).digest()
    data = (
        b"\x02"
        + _macaroon_field(1, b"pypi.org")
        + _macaroon_field(2, identifier)
        + b"\x00"
        + _macaroon_field(2, caveat)
        + b"\x00\x00"
        + _macaroon_field(6, signature)
    )
    return "pypi-" + base64.urlsafe_b64encode(data).rstrip(b"=").decode()
