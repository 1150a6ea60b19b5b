"""Credentials of the hundreds of provider formats in a maintained rule set: kingfisher's
(the `kingfisher-secret-scanner` package, Apache-2.0), matched in-process and never validated.

Its engine (Vectorscan, then Rust's regex) runs in time linear in what it scans, and the
package's scanner never touches the network; its compiled rules are kept in landwatch's own
directory and checked there (rule_cache: 0.4 s to load, about 5 s to compile the first time),
never in kingfisher's per-user cache. Where the package cannot be imported, the hand-written
formats of token_formats stand alone.
"""

from __future__ import annotations

import functools
import logging
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from landwatch.review.secrets import rule_cache

log = logging.getLogger(__name__)

# A scan of one file's added lines that takes longer than this stops (the engine's own bound).
SCAN_TIMEOUT = 10.0
# kingfisher prefixes its rules by where they come from; the rest is the provider's format.
_SOURCES = ("kingfisher.", "betterleaks.", "custom.", "veles.secrets/")
# Private keys are the private-key rule's: it knows their blocks line by line, to find and to
# redact them.
_LEFT_TO_LANDWATCH = frozenset({"betterleaks.private-key"})


@dataclass(frozen=True)
class ProviderToken:
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


@functools.cache
def _scanner() -> Any:
    """The rule set, loaded (or compiled) once per process from landwatch's own directory; None
    when the package is missing or broken."""
    try:
        from kingfisher_sdk import Rules, Scanner
    except ImportError:
        return None

    def build(cache_dir: str | None) -> Any:
        return Rules(confidence="medium", cache=cache_dir is not None, cache_dir=cache_dir)

    try:
        rules = rule_cache.load(build, rule_cache.directory())
        return Scanner(rules, base64=True, dedup=False, redact=False)
    except Exception as error:  # a broken install: the hand-written formats stand alone
        log.warning("kingfisher's rules could not be loaded: %s", error)
        return None


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
    scanner = _scanner()
    if scanner is None or not lines:
        return []
    data = b"\n".join(lines)
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
