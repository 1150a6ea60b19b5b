"""Private key material: PEM blocks, PuTTY key files and OpenVPN static keys, whole on their
lines, inside one quoted string, or regenerated in place under a header that did not change.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from landwatch.lazy_re import lazy_compile

if TYPE_CHECKING:
    from landwatch.review.diffs import Line

_KEY_HEADER = lazy_compile(
    r"-----BEGIN (?P<kind>(?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?P<block> BLOCK)?-----"
    r"|-----BEGIN (?P<openvpn>OpenVPN Static key V1)-----"
    r"|^\s*(?P<putty>PuTTY-User-Key-File-[23]): "
)
_KEY_END = lazy_compile(r"-----END |^\s*Private-MAC: ")
_KEY_FIELD = lazy_compile(r"[\s\"'`]*[A-Za-z][\w-]*: ")
# A body line as it sits in a PEM file, a YAML block, or a quoted string of code.
# Possessive: the body and what may close its line share `+`, and a line of `+` must not make
# the match try every split of it.
_KEY_LINE = lazy_compile(r"[\s\"'`]*+([A-Za-z0-9+/=]++)(?:\\n)?[\s\"'`,+\\]*+")
_KEY_CHUNK = lazy_compile(r"[A-Za-z0-9+/=]{16,}+")
# A body line wrapped in code or a log's prefix holds a run of base64 at least this long.
_SHORTEST_CHUNK = 32
_KEY_KINDS = {
    "": "private key (PKCS#8)",
    "ENCRYPTED": "encrypted private key (PKCS#8)",
    "OPENSSH": "OpenSSH private key",
    "PGP": "PGP private key block",
}
# Fewer characters of body than this is a mention of the format (a parser, docs), not a key.
MIN_KEY_MATERIAL = 64
_MAX_KEY_LINES = 2000


KEY_NEEDLES = (b"PRIVATE KEY", b"PuTTY-User-Key-File-", b"OpenVPN Static key")
_TEXT_NEEDLES = tuple(needle.decode() for needle in KEY_NEEDLES)
# What a snippet shows of a line of key material instead of the line.
KEY_MATERIAL = "(private key material)"


def key_headers(text: str) -> Iterator[tuple[str, int, int]]:
    """(what kind of key, where its header ends, where the next one starts or the line ends) of
    every key header on a line: a body on the line is read up to the next header at most, so a
    line of many headers is read once, not once from each."""
    headers = list(_KEY_HEADER.finditer(text))
    for number, match in enumerate(headers):
        stop = headers[number + 1].start() if number + 1 < len(headers) else len(text)
        yield _key_label(match), match.end(), stop


def _key_label(match: re.Match[str]) -> str:
    if match["putty"]:
        return "PuTTY private key"
    if match["openvpn"]:
        return "OpenVPN static key"
    kind = match["kind"].strip()
    return _KEY_KINDS.get(kind, f"{kind} private key")


def key_spans(text: str) -> list[tuple[int, int]]:
    """Where key bodies sit on a line that holds a header, for redacting other snippets."""
    if "PRIVATE KEY" not in text and "OpenVPN Static key" not in text:
        return []
    return [span for _, end, stop in key_headers(text) for span in key_on_line(text, end, stop)[0]]


def key_on_line(text: str, start: int, stop: int) -> tuple[list[tuple[int, int]], str]:
    """The key body on the header's own line (a key held in one JSON or code string), from
    `start` to its END line or `stop` (key_headers)."""
    end = text.find("-----END ", start, stop)
    # Escaped line ends become two spaces so offsets still point into the line.
    tail = text[start : end if end >= 0 else stop].replace("\\n", "  ")
    chunks = list(_KEY_CHUNK.finditer(tail))
    if not chunks:
        return [], ""
    span = (start + chunks[0].start(), start + chunks[-1].end())
    return [span], "".join(chunk[0] for chunk in chunks)


def rotated_key_lines(content: bytes, added: set[int]) -> list[tuple[str, int, str]]:
    """(kind, first added line, body) of each private key block of `content` whose body holds
    added lines while its header did not change: a key regenerated in place."""
    found = []
    lines = content.decode("utf-8", errors="replace").split("\n")
    at = 0
    while at < len(lines):
        header = _KEY_HEADER.search(lines[at])
        if header is None:
            at += 1
            continue
        label, start = _key_label(header), at
        end = start + 1
        while end < len(lines) and end - start < _MAX_KEY_LINES and not _KEY_END.search(lines[end]):
            end += 1
        body = [
            n + 1 for n in range(start + 1, end) if _KEY_LINE.fullmatch(lines[n].strip() or "-")
        ]
        touched = [n for n in body if n in added]
        if touched and (start + 1) not in added and len(body) * 48 >= MIN_KEY_MATERIAL:
            found.append((label, touched[0], "".join(lines[n - 1].strip() for n in body)))
        at = end + 1
    return found


def key_block_lines(content: bytes) -> set[int]:
    """The numbers (from 1) of the lines of `content` after a private key's header through its
    END line: where its body sits, whatever rule flags one of them. The header's own line is
    not among them; a body on it (a key in one string) is what key_spans finds.

    With no END line within reach of a header, the body is the run of lines after it that can
    be one (base64 or hex, PEM fields, blank lines). Linear in the content: each line is looked
    at once for a header, once for an END line, at most once as a body line.
    """
    if not any(needle in content for needle in KEY_NEEDLES):
        return set()
    lines = content.decode("utf-8", errors="replace").split("\n")
    inside: set[int] = set()
    at, next_end = 0, 0  # next_end: the first END line after `at` (or none), once looked for
    while at < len(lines):
        text = lines[at]
        header = _KEY_HEADER.search(text) if any(n in text for n in _TEXT_NEEDLES) else None
        if header is None or _KEY_END.search(text, header.end()):
            at += 1  # no header, or the whole key on its one line
            continue
        next_end = max(next_end, at + 1)
        while next_end < len(lines) and not _KEY_END.search(lines[next_end]):
            next_end += 1
        if next_end < len(lines) and next_end - at <= _MAX_KEY_LINES:
            last = next_end  # header through END
        else:
            last = at  # no END within reach: the lines after it that can be a body
            while last + 1 < min(len(lines), at + 1 + _MAX_KEY_LINES) and _may_be_body(
                lines[last + 1]
            ):
                last += 1
        inside.update(range(at + 2, last + 2))
        at = last + 1
    return inside


def _may_be_body(text: str) -> bool:
    return not text.strip() or bool(_KEY_FIELD.match(text) or _KEY_LINE.fullmatch(text))


def key_body(lines: Sequence[Line], index: int) -> str:
    """The base64 or hex body on the added lines right after a header, up to its end."""
    chunks: list[str] = []
    previous = lines[index].number
    for line in lines[index + 1 : index + 1 + _MAX_KEY_LINES]:
        if line.number != previous + 1:
            break  # another hunk: no longer the key's body
        previous = line.number
        text = line.text
        if _KEY_END.search(text):
            break
        if not text.strip() or _KEY_FIELD.match(text):
            continue  # PEM headers (Proc-Type:, Version:) and PuTTY fields
        body = _KEY_LINE.fullmatch(text)
        if body is not None:
            chunks.append(body[1])
            continue
        # A body line inside code (`+ "MIIB…\\n"`) or after a log's prefix (`#6 0.245 MIIB…`):
        # its one long run of base64 is the key's.
        longest = max((chunk[0] for chunk in _KEY_CHUNK.finditer(text)), key=len, default="")
        if len(longest) < _SHORTEST_CHUNK:
            break
        chunks.append(longest)
    return "".join(chunks)
