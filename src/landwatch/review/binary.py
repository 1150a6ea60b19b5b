"""Whether content is binary rather than text: git's own test (a NUL in the first 8000 bytes),
the magic numbers of compressed and container formats, and text no person wrote.

No line-level rule reads what this calls binary: its "lines" are noise, and findings on them
would be too.
"""

from __future__ import annotations

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


def as_text(data: bytes) -> bytes | None:
    """`data` as the lines of text the rules read, whatever git's attributes say of it; None
    where it is binary."""
    return None if looks_binary(data) else data
