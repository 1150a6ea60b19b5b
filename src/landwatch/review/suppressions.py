"""What the person said not to report: `landwatch: ignore[...]` on a line, a `Landwatch-Ignore:`
trailer for a whole commit, and for secret rules a secret scanner's own allow markers.

Suppressions name rules by id or name (a linter's findings by its name too), so they keep
working however a rule is configured.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from landwatch.review.change import FileChange
from landwatch.review.findings import Finding
from landwatch.review.message import Message
from landwatch.review.rules.base import RuleSet

IGNORE_TRAILER = "landwatch-ignore"
_INLINE = re.compile(rb"landwatch:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_SECRET_ALLOW = (b"gitleaks:allow", b"pragma: allowlist secret")
_NEXTLINE_ALLOW = b"pragma: allowlist nextline secret"


def unsuppressed(
    findings: Iterable[Finding], files: dict[str, FileChange], message: Message, rules: RuleSet
) -> list[Finding]:
    """The findings nobody asked to leave out: not named by the commit's trailer, nor on their
    line (which is read from the committed file when the change did not add it)."""
    trailer = _trailer_ignores(message)
    secret_rules = {rule.id for rule in rules.rules if rule.secret}
    names = {rule.id: rule.name for rule in rules.rules}
    kept = []
    line_cache: dict[str, dict[int, bytes]] = {}
    for finding in findings:
        family = finding.rule.split(":", 1)[0]
        aliases = {finding.rule, finding.name, family, names.get(finding.rule, "")}
        if aliases & trailer:
            continue
        if finding.path is not None and finding.line is not None and finding.path in files:
            lines = line_cache.setdefault(finding.path, _lines_of(files[finding.path]))
            text = lines.get(finding.line, b"")
            if _inline_ignores(text, aliases):
                continue
            if finding.rule in secret_rules and (
                any(marker in text for marker in _SECRET_ALLOW)
                or _NEXTLINE_ALLOW in lines.get(finding.line - 1, b"")
            ):
                continue
        kept.append(finding)
    return kept


def _trailer_ignores(message: Message) -> set[str]:
    """The rules a `Landwatch-Ignore:` trailer names, by id or name, separated by commas."""
    ignored: set[str] = set()
    for key, value in message.trailers:
        if key.lower() == IGNORE_TRAILER:
            ignored |= {part.strip() for part in value.split(",") if part.strip()}
    return ignored


def _lines_of(file: FileChange) -> dict[int, bytes]:
    lines = {line.number: line.raw for line in file.added_lines}
    # A finding may sit on a line the change did not add (a syntax error, a linter in file mode).
    content = file.new_content() or b""
    for number, raw in enumerate(content.split(b"\n"), 1):
        lines.setdefault(number, raw.rstrip(b"\r"))
    return lines


def _inline_ignores(text: bytes, aliases: set[str]) -> bool:
    for match in _INLINE.finditer(text):
        if match[1] is None:
            return True
        listed = {part.strip().decode(errors="replace") for part in match[1].split(b",")}
        if listed & aliases:
            return True
    return False
