"""Kubernetes manifests, where the kind of a document says what its values are: a `Secret`'s
`data` and `stringData` hold credentials (base64 is an encoding, not a protection), and a
`SealedSecret` holds only values encrypted for the cluster, safe to commit.
"""

from __future__ import annotations

from landwatch.lazy_re import lazy_compile

# `kind: Secret` (any case, quoted or not) on a line of its own, at any indentation.
_KIND = lazy_compile(r"\s*+kind\s*+:\s*+[\"']?(?P<kind>[A-Za-z]++)[\"']?\s*+(?:#.*)?$")
_MAP = lazy_compile(r"(?P<indent>\s*+)(?:data|stringData)\s*+:\s*+$")
_ENTRY = lazy_compile(
    r"(?P<indent>\s*+)[\"']?[\w.-]++[\"']?\s*+:\s*+[\"']?(?P<value>[^\s\"'#|>][^\s\"']*+)?[\"']?"
    r"(?P<block>\s*+[|>][-+]?)?\s*+$"
)
_TEMPLATE = ("{{", "${", "<%")
# Shorter than this, a value is an empty or a sample one (`YmFyCg==` is "bar").
_SHORTEST = 12
NEEDLE = b"kind"


def _documents(lines: list[str]) -> list[range]:
    """The line ranges of a YAML stream's documents (split at `---`)."""
    ranges, start = [], 0
    for number, line in enumerate(lines):
        if line.startswith("---"):
            ranges.append(range(start, number))
            start = number + 1
    ranges.append(range(start, len(lines)))
    return ranges


def _kind(lines: list[str], document: range) -> str:
    for number in document:
        match = _KIND.match(lines[number])
        if match is not None:
            return match["kind"].lower()
    return ""


def sealed(content: bytes) -> bool:
    """Whether a YAML file is a Bitnami SealedSecret: every value in it is encrypted."""
    if b"SealedSecret" not in content:
        return False
    lines = content.decode("utf-8", "replace").split("\n")
    return any(_kind(lines, document) == "sealedsecret" for document in _documents(lines))


def secret_data(content: bytes) -> dict[int, tuple[int, int]]:
    """Where the values of every Kubernetes `Secret` document's `data` and `stringData` are:
    line number (from 1) to the value's columns. A block value (`key: |`) is its first line."""
    if NEEDLE not in content or b"ecret" not in content:
        return {}
    lines = content.decode("utf-8", "replace").split("\n")
    found: dict[int, tuple[int, int]] = {}
    for document in _documents(lines):
        if _kind(lines, document) == "secret":
            found.update(_data_values(lines, document))
    return found


def _data_values(lines: list[str], document: range) -> dict[int, tuple[int, int]]:
    """The values of the `data` and `stringData` maps of one document, by line number."""
    found: dict[int, tuple[int, int]] = {}
    indent = -1  # the indentation of the map being read, or -1 outside one
    block = False  # the line is a block value's first
    for number in document:
        text = lines[number]
        line = text.expandtabs(4)
        if (mapping := _MAP.match(line)) is not None:
            indent, block = len(mapping["indent"]), False
            continue
        if indent < 0 or not line.strip() or line.lstrip().startswith("#"):
            continue
        if len(line) - len(line.lstrip()) <= indent:
            indent = -1  # the map ended
            continue
        if block:
            value, block = text.strip(), False
            if len(value) >= _SHORTEST:
                found[number + 1] = (text.find(value), text.find(value) + len(value))
            continue
        entry = _ENTRY.match(text)
        if entry is None:
            continue
        block = bool(entry["block"])
        value = entry["value"] or ""
        if len(value) >= _SHORTEST and not value.startswith(_TEMPLATE):
            found[number + 1] = entry.span("value")
    return found
