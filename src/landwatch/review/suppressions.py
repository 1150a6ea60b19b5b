"""What the person said not to report: `landwatch: ignore[...]` on a line, a `Landwatch-Ignore:`
trailer for a whole commit, and for secret rules what the project declared to its secret
scanners: their allow markers on the line, and the files review.declarations reads.

Suppressions name rules by id or name (a linter's findings by its name too), so they keep
working however a rule is configured. Secret findings left out by a scanner's declaration are
counted in the report's notes, one note for each declaration that left some out. A commit's
trailer waves no secret through, whoever's review it is: it is the word of whoever wrote the
commit (a stranger's, fetched and pushed on), and the push gate obeys only what `landwatch allow`
recorded; such a finding is kept, marked as the trailer names it. The markers on a secret's own
line still leave it out, in sight of whoever reviews the change.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import Change, FileChange
from landwatch.review.declarations import INLINE, Declarations, Spot
from landwatch.review.findings import Finding
from landwatch.review.message import Message
from landwatch.review.rules.base import RuleSet

IGNORE_TRAILER = "landwatch-ignore"
_INLINE = lazy_compile(rb"landwatch:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_SECRET_ALLOW = (b"gitleaks:allow", b"pragma: allowlist secret")
_NEXTLINE_ALLOW = b"pragma: allowlist nextline secret"
# What a secret finding a commit's trailer names says besides (a trailer waives none).
NAMED_BY_TRAILER = " (named by its commit's Landwatch-Ignore trailer, which waives no secret)"


def unsuppressed(
    findings: Iterable[Finding],
    files: dict[str, FileChange],
    change: Change,
    rules: RuleSet,
    declarations: Declarations | None = None,
    notes: list[str] | None = None,
    *,
    own_rules: bool = True,
) -> list[Finding]:
    """The findings nobody asked to leave out: not named by the commit's trailer, nor on their
    line (which is read from the committed file when the change did not add it), nor, for a
    secret, allowed by the project's `declarations`; how many of those each declaration left
    out goes into `notes`, with what in the declarations could not be used. Its trailer leaves
    out no secret (kept, marked NAMED_BY_TRAILER), nor, in a review by rules from elsewhere than
    the commit's own (not `own_rules`: `landwatch ci`), what a rule about the rules found."""
    trailer = _trailer_ignores(change.message)
    secret_rules = {rule.id for rule in rules.rules if rule.secret}
    binding = _binding(rules, own_rules)
    names = {rule.id: rule.name for rule in rules.rules}
    kept = []
    left_out: Counter[str] = Counter()
    line_cache: dict[str, dict[int, bytes]] = {}
    for finding in findings:
        family = finding.rule.split(":", 1)[0]
        aliases = {finding.rule, finding.name, family, names.get(finding.rule, "")}
        if aliases & trailer:
            if finding.rule not in binding:
                continue
            if finding.rule in secret_rules:
                finding.message += NAMED_BY_TRAILER
        lines: dict[int, bytes] = {}
        if finding.path is not None and finding.line is not None and finding.path in files:
            if finding.path not in line_cache:  # read once: a file's findings are many
                line_cache[finding.path] = _lines_of(files[finding.path])
            lines = line_cache[finding.path]
            if _inline_ignores(lines.get(finding.line, b""), aliases):
                continue
        if finding.rule in secret_rules:
            why = _declared(finding, lines, declarations)
            if why is not None:
                left_out[why] += 1
                continue
        kept.append(finding)
    if notes is not None:
        notes += _notes(left_out, declarations)
    return kept


def _binding(rules: RuleSet, own_rules: bool) -> set[str]:
    """The rules whose findings a commit's own trailer cannot leave out: the secret rules, and in
    a review by rules from elsewhere (not `own_rules`) those about the rules themselves."""
    return {
        rule.id for rule in rules.rules if rule.secret or (rule.watches_the_rules and not own_rules)
    }


def _declared(
    finding: Finding, lines: dict[int, bytes], declarations: Declarations | None
) -> str | None:
    """Which declaration lets a secret finding through (its words for the notes), if one does:
    a scanner's marker on its line (or the line before, for the next line), then the files."""
    raw = lines.get(finding.line) if finding.line is not None else None
    if raw is not None and any(marker in raw for marker in _SECRET_ALLOW):
        return INLINE
    if finding.line is not None and _NEXTLINE_ALLOW in lines.get(finding.line - 1, b""):
        return INLINE
    if declarations is None or finding.path is None:
        return None
    text = raw.decode("utf-8", errors="replace") if raw is not None else None
    span = finding.span
    value = text[span[0] : span[1]] if text is not None and span is not None else None
    spot = Spot(finding.rule, finding.message, finding.path, finding.line, text, value)
    return declarations.dropping(spot)


def _notes(left_out: Counter[str], declarations: Declarations | None) -> list[str]:
    """What could not be used of the declarations (read whenever the change lands one of their
    files), then how many secret findings each declaration left out."""
    notes = []
    if declarations is not None:
        if declarations.touched():
            declarations.load()
        notes += declarations.problems
    for why, count in left_out.items():
        one = count == 1
        words = why.format(them="it" if one else "them")
        notes.append(f"{count} secret finding{'' if one else 's'} left out {words}")
    return notes


def _trailer_ignores(message: Message) -> set[str]:
    """The rules a `Landwatch-Ignore:` trailer names, by id or name, separated by commas."""
    ignored: set[str] = set()
    for key, value in message.trailers:
        if key.lower() == IGNORE_TRAILER:
            ignored |= {part.strip() for part in value.split(",") if part.strip()}
    return ignored


def _lines_of(file: FileChange) -> dict[int, bytes]:
    lines = {line.number: line.raw for line in file.secret_lines}  # a binary file's text too
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
