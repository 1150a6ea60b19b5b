"""Whether content is binary rather than text: git's own test (a NUL in the first 8000 bytes),
the magic numbers of compressed and container formats, and text no person wrote; and content as
the text the secret rules read of a file git calls binary (`as_text`: UTF-16 decoded).

No line-level rule reads what this calls binary: its "lines" are noise, and findings on them
would be too.
"""

from __future__ import annotations

from typing import NamedTuple

# How much of a blob the binary sniff reads, as git's own buffer_is_binary does.
SNIFF_BYTES = 8000
# Compressed and container formats start with these; their bytes may hold no NUL for a while
# (a zlib-compressed git object, a gzip stream), so git's NUL test alone calls them text.
_BINARY_MAGIC = (
    b"\x1f\x8b",  # gzip
    b"\x78\x01",  # zlib (git objects); not x^ (0x78 0x5e), which text may start with
    b"\x78\x9c",
    b"\x78\xda",
    b"PK\x03\x04",  # zip, jar, docx
    b"\xfd7zXZ\x00",  # xz
    b"BZh",
    b"\x28\xb5\x2f\xfd",  # zstd
    b"\x89PNG",
    b"\xff\xd8\xff",  # jpeg
    b"GIF8",
    b"%PDF",
    b"\x7fELF",
)
# Past this share of bytes that are neither printable nor text whitespace (bytes of broken UTF-8
# counted too), content is binary.
_BINARY_SHARE = 0.3
_TEXT_BYTES = bytes([*b"\t\n\r\f\b\x1b", *range(32, 127), *range(128, 256)])
# The byte order marks UTF-16 text starts with (Windows PowerShell 5's `>` and Out-File write LE
# with one); UTF-32 LE's is UTF-16 LE's and two NULs.
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_LE_MARK = b"\xff\xfe\x00\x00"
# What text is in that is read as it is (UTF-8, or bytes shown so: Line.text).
AS_IT_IS = "utf-8"


def looks_binary(data: bytes, *, at_start: bool = True) -> bool:
    """Whether content is binary rather than text: a NUL early on (as git judges it), a known
    compressed or binary format's magic number (when `data` is where a file starts), or mostly
    bytes no text is made of."""
    head = data[:SNIFF_BYTES]
    if not head:
        return False
    if b"\0" in head:
        return True
    if at_start and head.startswith(_BINARY_MAGIC):
        return head[:2] != b"BZ" or head[3:4].isdigit()  # "BZh" then the block size digit
    odd = len(head.translate(None, _TEXT_BYTES))  # control characters, counted in C
    if odd > len(head) * _BINARY_SHARE:
        return True
    if head.isascii():
        return False
    try:
        head.decode("utf-8")
        return False
    except UnicodeDecodeError as error:
        if error.start >= len(head) - 3:
            return False  # a character cut by the sniff's end
    broken = head.decode("utf-8", errors="replace").count("\ufffd")
    return odd + broken > len(head) * _BINARY_SHARE


class Text(NamedTuple):
    """Content as the lines of text the rules read, and what it was in (AS_IT_IS, or a UTF-16
    codec: decoded to UTF-8)."""

    data: bytes
    encoding: str


def utf16(head: bytes) -> str | None:
    """The codec of content that is UTF-16 by its first bytes, else None: `utf-16` after a byte
    order mark (the codec reads it), `utf-16-le` or `-be` where a NUL is most of one parity's
    bytes and none of the other's (ASCII text with no mark)."""
    if head.startswith(_UTF16_MARKS):
        return None if head.startswith(_UTF32_LE_MARK) else "utf-16"
    even, odd = head[0::2], head[1::2]
    if b"\0" not in even and odd.count(0) * 2 > len(odd):
        return "utf-16-le"
    if b"\0" not in odd and even.count(0) * 2 > len(even):
        return "utf-16-be"
    return None


def as_text(data: bytes) -> Text | None:
    """`data` as the lines of text the rules read, whatever git's attributes say of it: as it is,
    or decoded where it is UTF-16 (git's NUL test calls that binary); None where it is binary.
    Linear in its size: one decoding, the sniff of its head."""
    encoding = utf16(data[:SNIFF_BYTES]) or AS_IT_IS
    if encoding != AS_IT_IS:
        data = data.decode(encoding, "replace").encode("utf-8")
    return None if looks_binary(data) else Text(data, encoding)
