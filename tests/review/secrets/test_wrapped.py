"""Credentials wrapped in base64 (review.secrets.wrapped): a PEM private key and a JSON Web
Token are found under their encoding; a certificate, or base64 of anything else, is not."""

from __future__ import annotations

import base64
import json

from landwatch.review.secrets.wrapped import wrapped_keys, wrapped_tokens
from support.tokens import random_text

BODY = random_text("key", 256, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{BODY}\n-----END RSA PRIVATE KEY-----\n"
CERTIFICATE = KEY.replace("RSA PRIVATE KEY", "CERTIFICATE")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def part(value: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


JWT = part({"alg": "HS256", "typ": "JWT"}) + "." + part({"sub": "1234"}) + ".c2lnbmF0dXJlX29mX2l0"


def test_a_base64_private_key_is_found() -> None:
    line = f'  tls.key: "{b64(KEY)}"'
    assert wrapped_keys(line) == [(line.index("LS0t"), line.index("LS0t") + len(b64(KEY)))]
    assert wrapped_keys(f"ca.crt: {b64(CERTIFICATE)}") == []


def test_a_base64_jwt_is_found() -> None:
    line = f"TOKEN={b64(JWT)}"
    assert wrapped_tokens(line) == [(6, 6 + len(b64(JWT)))]
    assert wrapped_tokens("TOKEN=" + b64("eyJ is how it starts, but no token")) == []
