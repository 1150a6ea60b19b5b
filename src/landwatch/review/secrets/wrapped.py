"""Credentials wrapped in base64, which hides them from every pattern that reads text: a PEM
private key (`LS0tLS1CRUdJTi…` is `-----BEGIN`) and a JSON Web Token (`ZXlK…` is `eyJ`), as
Kubernetes manifests, CI variables and configuration files carry them.

Each is found from its fixed anchor, and only a bounded part of it is decoded.
"""

from __future__ import annotations

import base64
import binascii

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.checks import jwt_well_formed

PEM_ANCHOR = "LS0tLS1CRUdJTi"  # base64 of "-----BEGIN"
JWT_ANCHOR = "ZXlK"  # base64 of "eyJ"
NEEDLES = (PEM_ANCHOR.encode(), JWT_ANCHOR.encode())
_RUN = lazy_compile(r"[A-Za-z0-9+/_-]++={0,2}")
_PEM_HEADER = lazy_compile(rb"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_JWT = lazy_compile(r"eyJ[\w-]{8,}+\.eyJ[\w-]{8,}+(?:\.[\w-]*+)?")
# How much of a run is decoded to tell what it holds: a header, or a whole token.
_HEADER_CHARACTERS = 120
_LONGEST_TOKEN = 16_384
# Fewer characters than this after a key's header is a mention, not a key (see private_keys).
_SHORTEST_KEY = 120


def _decoded(run: str) -> bytes:
    """`run` decoded as base64 or base64url, or nothing when it is neither."""
    padded = run + "=" * (-len(run) % 4)
    try:
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (ValueError, binascii.Error):
        return b""


def _runs(text: str, anchor: str) -> list[tuple[int, int]]:
    """Where each base64 run starting with `anchor` is on a line."""
    found = []
    at = text.find(anchor)
    while at >= 0:
        run = _RUN.match(text, at)
        end = run.end() if run is not None else at + len(anchor)
        if run is not None:
            found.append((at, end))
        at = text.find(anchor, end)
    return found


def wrapped_keys(text: str) -> list[tuple[int, int]]:
    """(start, end) of each base64-encoded PEM private key on a line."""
    found = []
    for start, end in _runs(text, PEM_ANCHOR):
        if end - start < _SHORTEST_KEY:
            continue
        head = _decoded(text[start : start + _HEADER_CHARACTERS - _HEADER_CHARACTERS % 4])
        if _PEM_HEADER.search(head):
            found.append((start, end))
    return found


def unwrapped(value: str) -> str:
    """The JSON Web Token a base64 value found by wrapped_tokens holds, as text."""
    return _decoded(value).decode("ascii", "replace").strip()


def wrapped_tokens(text: str) -> list[tuple[int, int]]:
    """(start, end) of each base64-encoded JSON Web Token on a line."""
    found = []
    for start, end in _runs(text, JWT_ANCHOR):
        if end - start > _LONGEST_TOKEN:
            continue
        token = unwrapped(text[start:end])
        if _JWT.fullmatch(token) and jwt_well_formed(token):
            found.append((start, end))
    return found
