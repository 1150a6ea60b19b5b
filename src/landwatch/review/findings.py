"""The review's shared vocabulary: how severe a finding is, what a finding says, and the identity
that lets a finding be recognised across runs and line moves.

Rules, linters, the configuration, reports and every output speak it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from landwatch.json_out import read_with_bytes, typed, with_bytes
from landwatch.review.secrets.redaction import NONE_FOUND, Found, redact_secrets


class Severity(enum.IntEnum):
    OFF = 0
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, value: str) -> Severity:
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"not a severity: {value!r} (off, info, warning, error)") from None


# Whose standard decided a finding, most authoritative first: what the project declared (its
# landwatch configuration, .editorconfig, pre-commit, commitlint...), what landwatch learned from
# its history, or landwatch's own default.
DECLARED, LEARNED, DEFAULT = "declared", "learned", "default"


class Basis(NamedTuple):
    """Which standard decided a finding and where it was read: `declared` with the file the
    project declared it in, `learned` with what the history sample held, or `default`."""

    standard: str
    source: str | None = None

    def __str__(self) -> str:
        return self.standard if self.source is None else f"{self.standard}: {self.source}"

    def as_dict(self) -> dict[str, str | None]:
        return {"standard": self.standard, "source": self.source}

    @classmethod
    def from_dict(cls, data: Any) -> Basis | None:
        """The basis a stored report recorded; None for a report from before they were."""
        if not isinstance(data, dict) or data.get("standard") not in (DECLARED, LEARNED, DEFAULT):
            return None
        source = data.get("source")
        return cls(data["standard"], source if isinstance(source, str) else None)


BY_DEFAULT = Basis(DEFAULT)

# The findings kept of what one tool said (a project hook's `path:line:` lines, a linter's of one
# file): a hook naming each of a generated file's 60,000 lines made a 28 MB result for every
# reader of it to load. A note says how many more there were.
MAX_PLACED = 1000

# The rule id of the finding a review adds when its line checks stopped at the cap: a review is
# never cut silently, and the one line tells of it whatever else it leaves unsaid.
CUT = "CUT"


@dataclass
class Finding:
    rule: str  # id
    name: str
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    end_line: int | None = None
    snippet: str | None = None  # the offending line (secrets redacted)
    fingerprint: str = ""
    # Where a secret rule's value sits in the line's text (start, end), for the suppression
    # step to test what a secret scanner's declarations say of it; never shown, never written.
    span: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    # Whose standard decided it (None: a report stored before reports said so).
    basis: Basis | None = field(default=BY_DEFAULT, compare=False)
    # The files a finding says do not belong in the commit at all: no other finding in them is
    # reported but a secret's (bursts.unclaimed); never written.
    covers: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # Which secret a secret rule found (secret_digest): the fingerprint is the redacted line's,
    # alike for every token written on it; an allowance holds to the secrets it was given for.
    secret_digest: str = ""

    def as_dict(self) -> dict[str, Any]:
        digest = {"secret_digest": self.secret_digest} if self.secret_digest else {}
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.name.lower(),
            "message": self.message,
            # A path that is not UTF-8: readable in `path`, its own bytes in `path_bytes`.
            **with_bytes("path", self.path),
            "line": self.line,
            "end_line": self.end_line,
            "snippet": self.snippet,
            "fingerprint": self.fingerprint,
            "decided_by": self.basis.as_dict() if self.basis is not None else None,
            **digest,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """A finding kept (a report's), each field of its type; ValueError (or KeyError) for
        anything else, a severity of no finding (off) among them: what is kept is data."""
        severity = Severity.parse(typed(data["severity"], str, "severity"))
        if not severity:
            raise ValueError("malformed severity")
        return cls(
            typed(data["rule"], str, "rule"),
            typed(data["name"], str, "name"),
            severity,
            typed(data["message"], str, "message"),
            read_with_bytes(data, "path"),
            typed(data.get("line"), int | None, "line"),
            typed(data.get("end_line"), int | None, "end_line"),
            typed(data.get("snippet"), str | None, "snippet"),
            typed(data.get("fingerprint", ""), str, "fingerprint"),
            basis=Basis.from_dict(data.get("decided_by")),
            secret_digest=stored_digest(data.get("secret_digest")),
        )


# The fields two findings are equal by, as the dataclass compares them.
_COMPARED = tuple(each.name for each in fields(Finding) if each.compare)


def identity(finding: Finding) -> tuple[Any, ...]:
    """What makes two findings equal, hashable: a set of these answers `in` at once, where a
    list of a hook's 20,000 findings took seconds for each of them."""
    return tuple(getattr(finding, name) for name in _COMPARED)


def in_order(finding: Finding) -> tuple[str, int, int, str]:
    """Where a finding goes in a report: by path and line, the most severe first, by rule."""
    return (finding.path or "", finding.line or 0, -finding.severity, finding.rule)


def fingerprint(
    rule: str,
    path: str | None,
    content: bytes | str,
    occurrence: int = 0,
    found: Found = NONE_FOUND,
) -> str:
    """Identity of a finding that survives line moves: rule, path, the line's normalised text.

    The text and the path are hashed with their secrets redacted (and the values the secret
    rules `found`), so a fingerprint (in SARIF, say) can never be used to confirm a guessed
    secret, in a line or in a file name; a path without secrets hashes as it is, whatever its
    bytes.
    """
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    normal = " ".join(redact_secrets(text, found=found).split())
    identity = f"{rule}\0{redact_secrets(path) if path else ''}\0{normal}\0{occurrence}"
    import hashlib  # here: `show` and `status` read findings, they never make one (3 ms)

    return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:20]


# A secret digest: 16 hex digits (64 bits of SHA-256), enough to tell two secrets apart.
DIGEST_SIZE = 16


def secret_digest(*parts: str) -> str:
    """What tells one secret from another where the fingerprint cannot (a token replaced on its
    line): a hash of its value, or of the digests a merged finding holds, in any order. Kept
    only beside the commit holding the secret (its review, its note), never in SARIF."""
    import hashlib

    joined = "\0".join(sorted(parts))
    return hashlib.sha256(
        b"landwatch secret\0" + joined.encode("utf-8", "surrogatepass")
    ).hexdigest()[:DIGEST_SIZE]


def stored_digest(value: Any) -> str:
    """A stored finding's secret digest; "" for none, or for anything else (a report is data)."""
    if isinstance(value, str) and len(value) == DIGEST_SIZE and _is_hex(value):
        return value
    return ""


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def content_lines(content: bytes) -> list[bytes]:
    """A file's content as line_text reads it, split once per file: split again for each of a
    file's findings, 20,000 findings of one file took 8 s (quadratic)."""
    return content.split(b"\n")


def line_text(lines: Sequence[bytes], number: int | None) -> str | None:
    """Line `number` of a file's `lines` (content_lines) as a finding shows it (None past its
    end)."""
    if number is None or number <= 0 or number > len(lines):
        return None
    return lines[number - 1].rstrip(b"\r").decode("utf-8", errors="replace")
