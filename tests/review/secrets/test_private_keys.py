"""Private key material (review.secrets.private_keys): every kind of key header named, public keys
and certificates not; a key held in one string found on its header's line; a key regenerated in
place under a header that did not change found at its first added line; the lines of every key's
body known, whatever rule flags one."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.private_keys import (
    key_block_lines,
    key_headers,
    key_on_line,
    key_spans,
    rotated_key_lines,
)

BODY = "MIIEowIBAAKCAQEA" + "Zq8Wv7Tu6Rs5Qp4On3Ml2Kj1" * 3


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----", "RSA private key"),
        ("-----BEGIN EC PRIVATE KEY-----", "EC private key"),
        ("-----BEGIN PRIVATE KEY-----", "private key (PKCS#8)"),
        ("-----BEGIN ENCRYPTED PRIVATE KEY-----", "encrypted private key (PKCS#8)"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "OpenSSH private key"),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----", "PGP private key block"),
        ("PuTTY-User-Key-File-3: ssh-ed25519", "PuTTY private key"),
        ("-----BEGIN OpenVPN Static key V1-----", "OpenVPN static key"),
    ],
)
def test_every_kind_of_key_header_is_named(header: str, kind: str) -> None:
    ((found, end, _),) = key_headers(f"  {header}")
    assert found == kind and end > 2


def test_public_keys_and_certificates_are_no_private_keys() -> None:
    for header in ("-----BEGIN PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----"):
        assert list(key_headers(header)) == []


def test_a_key_in_one_string_is_found_on_its_header_s_line() -> None:
    line = f'"key": "-----BEGIN RSA PRIVATE KEY-----\\n{BODY}\\n-----END RSA PRIVATE KEY-----"'
    header_end = line.index("KEY-----") + len("KEY-----")
    spans, body = key_on_line(line, header_end, len(line))
    assert body == BODY and spans == [(line.index(BODY), line.index(BODY) + len(BODY))]
    assert key_spans(line) == spans
    assert key_on_line("-----BEGIN RSA PRIVATE KEY-----", 31, 31) == ([], "")  # a mention, no key
    assert key_spans(f"just {BODY}") == []


def test_a_key_regenerated_in_place_is_found_at_its_first_added_line() -> None:
    lines = ["config", "-----BEGIN OPENSSH PRIVATE KEY-----"]
    lines += [BODY[at : at + 24] for at in range(0, len(BODY), 24)]
    lines += ["-----END OPENSSH PRIVATE KEY-----", ""]
    content = "\n".join(lines).encode()
    assert rotated_key_lines(content, added={4, 5}) == [("OpenSSH private key", 4, BODY)]
    assert rotated_key_lines(content, added={2, 3, 4}) == []  # a new header: a new key
    assert rotated_key_lines(content, added={1}) == []  # the body untouched


def test_the_lines_of_a_key_block_are_after_its_header_through_its_end() -> None:
    lines = ["config", "  -----BEGIN OPENSSH PRIVATE KEY-----", "", BODY[:40], BODY[40:]]
    lines += ["  -----END OPENSSH PRIVATE KEY-----", "after"]
    assert key_block_lines("\n".join(lines).encode()) == {3, 4, 5, 6}
    putty = ["PuTTY-User-Key-File-3: ssh-ed25519", "Encryption: none", BODY, "Private-MAC: ab"]
    assert key_block_lines("\n".join([*putty, "x = 1"]).encode()) == {2, 3, 4}
    one_string = f'k = "-----BEGIN RSA PRIVATE KEY-----\\n{BODY}\\n-----END RSA PRIVATE KEY-----"'
    assert key_block_lines(f"{one_string}\n{BODY}\n".encode()) == set()  # key_spans' own
    assert key_block_lines(f"{BODY}\n-----END RSA PRIVATE KEY-----\n".encode()) == set()


def test_with_no_end_a_key_block_is_the_lines_that_can_be_its_body() -> None:
    lines = ["-----BEGIN EC PRIVATE KEY-----", BODY[:40], f'"{BODY[40:]}\\n"', "x = parse(k)"]
    lines += [BODY] * 3
    assert key_block_lines("\n".join(lines).encode()) == {2, 3}
    mention = ['HEADER = "-----BEGIN PRIVATE KEY-----"', "def parse(text):", "    ..."]
    assert key_block_lines("\n".join(mention).encode()) == set()
