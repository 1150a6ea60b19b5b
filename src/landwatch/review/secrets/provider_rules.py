"""Credentials of the hundreds of provider formats in a maintained rule set: kingfisher's
(the `kingfisher-secret-scanner` package, Apache-2.0), matched in-process and never validated.

Its engine (Vectorscan, then Rust's regex) runs in time linear in what it scans, and the
package's scanner never touches the network; its compiled rules are kept in landwatch's own
directory and checked there (rule_cache: 0.4 s to load, about 5 s to compile the first time),
never in kingfisher's per-user cache. Beside them is what any match must hold (rule_anchors),
derived when they are compiled: a text holding none of it is scanned without loading them.
Where the package cannot be imported, the hand-written formats of token_formats stand alone.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from bisect import bisect_right
from typing import Any, Final, NamedTuple

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets import rule_anchors, rule_cache

# A scan of one file's added lines that takes longer than this stops (the engine's own bound).
SCAN_TIMEOUT = 10.0
# kingfisher prefixes its rules by where they come from; the rest is the provider's format.
_SOURCES = ("kingfisher.", "betterleaks.", "custom.", "veles.secrets/")
# Private keys are the private-key rule's: it knows their blocks line by line, to find and to
# redact them.
_LEFT_TO_LANDWATCH = frozenset({"betterleaks.private-key"})
# So their headers are blanked before the set's scan (offsets kept): its rule (gitleaks') looks
# for an end from every header it meets, and a line of headers without one took it time
# quadratic in the line (an audit: 0.9 s at 300 KB, past its timeout at a few MB).
_PRIVATE_KEY_HEADER = lazy_compile(
    rb"-----BEGIN[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----", re.I
)
# A terminal's colour code (`ESC[93m`) in a log: read as spaces of its length, so a token it
# colours starts at a boundary and every offset stays where it was.
_COLOUR = lazy_compile(rb"\x1b\[[0-9;]*+m")
CONFIDENCE: Final = "medium"
# Testing texts against the anchors costs about 1 ms per kilobyte; past this many bytes in a
# process, loading the rules (0.4 s) is cheaper than testing more.
GATED_BYTES = 256 << 10
_gated = [0]


class ProviderToken(NamedTuple):
    """A credential the rule set found: its line (0-based, in the lines scanned), its byte
    columns in that line, which rule, and whether the rule is sure (a checksum, a strict
    prefix) or only likely."""

    line: int
    start: int
    end: int
    rule: str
    confident: bool

    @property
    def label(self) -> str:
        """The provider's format as a person reads it: `github-pat`, `slack-webhook-url`."""
        for source in _SOURCES:
            if self.rule.startswith(source):
                return self.rule[len(source) :]
        return self.rule


def described(token: ProviderToken) -> str:
    """What a finding of the rule set says it is: its format, and whose rules found it."""
    return f"{token.label} (kingfisher's rules)"


@functools.cache
def _scanner() -> Any:
    """The rule set, loaded (or compiled) once per process from landwatch's own directory; None
    when the package is missing or broken."""
    try:
        from kingfisher_sdk import Rules, Scanner
    except ImportError:
        return None

    def build(cache_dir: str | None) -> Any:
        return Rules(confidence=CONFIDENCE, cache=cache_dir is not None, cache_dir=cache_dir)

    try:
        rules = rule_cache.load(build, rule_cache.directory(), (_annex_name(), _annex))
        return Scanner(rules, base64=True, dedup=False, redact=False)
    except Exception as error:  # a broken install: the hand-written formats stand alone
        import logging  # only when the rules cannot load: 3 ms of every review otherwise

        logging.getLogger(__name__).warning("kingfisher's rules could not be loaded: %s", error)
        return None


def _annex(rules: Any, digests: dict[str, str]) -> bytes:
    """The anchors of `rules` and the digests of the database they were derived beside."""
    # A finding not visible is a part of another, whose own pattern matches too.
    visible = [rule["id"] for rule in rules.metadata() if rule["visible"]]
    patterns = (rules.detail(rule)["detection_regex"] for rule in visible)
    anchors = rule_anchors.derive(patterns)
    described = None if anchors is None else json.loads(anchors.dumps())
    return json.dumps({"database": digests, "anchors": described}, sort_keys=True).encode()


@functools.cache
def _annex_name() -> str:
    """The anchors' file name, which changes with whatever they are derived from: kingfisher's
    library (its files' sizes and times: hashing 36 MB at every review would cost more than the
    anchors save), the confidence asked for, and the code deriving them (this module's too)."""
    import hashlib  # 3 ms, only where a digest is made

    identity = hashlib.sha256(CONFIDENCE.encode())
    spec = importlib.util.find_spec("kingfisher_sdk")  # found, not imported
    for place in (spec.submodule_search_locations or []) if spec is not None else []:
        for entry in sorted(os.scandir(place), key=lambda entry: entry.name):
            if entry.is_file():
                found = entry.stat()
                identity.update(f"{entry.name} {found.st_size} {found.st_mtime_ns}\0".encode())
    for deriving in (rule_anchors.__file__, __file__):
        with open(deriving, "rb") as source:
            identity.update(source.read())
    return f"anchors-{identity.hexdigest()[:32]}.json"


def _kept() -> dict[str, Any] | None:
    """The annex kept beside the rules for the rule set installed now, when it was derived
    beside the database recorded there; None otherwise (nothing compiled, or not for these)."""
    where = rule_cache.directory()
    if where is None or not installed():
        return None
    found = rule_cache.kept(where, _annex_name())
    if found is None:
        return None
    data, recorded = found
    try:
        annex = json.loads(data)
        database = annex["database"]
        if database and all(recorded.get(name) == digest for name, digest in database.items()):
            return dict(annex)
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def compiled() -> bool:
    """Whether the rules are compiled where this process keeps them, with their anchors: the
    next review reads them back, or loads nothing."""
    return _kept() is not None


@functools.cache
def _anchors() -> rule_anchors.Anchors | None:
    """What any match must hold, as kept beside the rules; None when it is not kept, or when
    the rules' patterns gave none."""
    annex = _kept()
    if annex is None or annex.get("anchors") is None:
        return None
    try:
        return rule_anchors.Anchors.loads(json.dumps(annex["anchors"]).encode())
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _may_find(data: bytes) -> bool:
    """Whether the rules could find anything in `data`: always once they are loaded; before,
    not when it holds none of their anchors (then nothing is loaded)."""
    if loaded() or _gated[0] + len(data) > GATED_BYTES:
        return True
    anchors = _anchors()
    if anchors is None:
        return True
    _gated[0] += len(data)
    return anchors.may_match(data)


def installed() -> bool:
    """Whether the rule set's package is here (found, not imported)."""
    return importlib.util.find_spec("kingfisher_sdk") is not None


def loaded() -> bool:
    """Whether this process has loaded the rule set (or tried to)."""
    return bool(_scanner.cache_info().currsize)


def available() -> bool:
    """Whether the maintained rule set is here to use."""
    return _scanner() is not None


def text_spans(raw: bytes, tokens: list[ProviderToken]) -> list[tuple[int, int]]:
    """Where `tokens` (of one line, in order) are in the line `raw` decoded as the review shows
    it (UTF-8, replaced): one pass over the line, however many there are."""
    if raw.isascii():
        return [(token.start, token.end) for token in tokens]
    spans = []
    at, offset = 0, 0  # a byte of the line, and where it is in the text
    for token in tokens:
        start = offset + len(raw[at : token.start].decode("utf-8", "replace"))
        end = start + len(raw[token.start : token.end].decode("utf-8", "replace"))
        at, offset = token.end, end
        spans.append((start, end))
    return spans


def provider_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every credential the rule set finds on a line, for redacting."""
    raw = text.encode("utf-8", "surrogatepass")
    return text_spans(raw, _outermost(provider_tokens([raw])))


def _outermost(tokens: list[ProviderToken]) -> list[ProviderToken]:
    """The tokens of one line that no earlier one overlaps (text_spans walks them in order)."""
    kept: list[ProviderToken] = []
    for token in tokens:
        if not kept or token.start >= kept[-1].end:
            kept.append(token)
    return kept


def by_line(tokens: list[ProviderToken]) -> dict[int, list[ProviderToken]]:
    """The tokens of each line, in order, overlaps dropped."""
    lines: dict[int, list[ProviderToken]] = {}
    for token in tokens:
        lines.setdefault(token.line, []).append(token)
    return {line: _outermost(found) for line, found in lines.items()}


def provider_tokens(lines: list[bytes]) -> list[ProviderToken]:
    """Every credential the rule set finds on `lines` (scanned as one text, joined by newlines),
    in order; none when the rule set is not here."""
    if not lines:
        return []
    data = b"\n".join(lines)
    if b"\x1b" in data:
        data = _COLOUR.sub(lambda code: b" " * len(code[0]), data)
    if b"-----" in data:
        data = _PRIVATE_KEY_HEADER.sub(lambda header: b" " * len(header[0]), data)
    if not _may_find(data):
        return []
    scanner = _scanner()
    if scanner is None:
        return []
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for finding in scanner.scan(data, timeout=SCAN_TIMEOUT):
        if not finding.visible or finding.rule_id in _LEFT_TO_LANDWATCH:
            continue  # a part another finding is made of, or a key
        where = finding.location
        begin, end = int(where["start_offset"]), int(where["end_offset"])
        index = bisect_right(starts, begin) - 1
        column = begin - starts[index]
        # A match running past its first line is kept to that line.
        stop = min(end - starts[index], len(lines[index]))
        if stop <= column:
            continue
        confident = str(finding.confidence).lower() == "high"
        found.append(ProviderToken(index, column, stop, str(finding.rule_id), confident))
    return sorted(found, key=lambda token: (token.line, token.start))
