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
