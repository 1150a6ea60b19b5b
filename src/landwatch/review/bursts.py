"""Findings in bulk: a burst of one rule in one file made one finding with its lines, two of one
rule on one line made one, none inside a file that does not belong in the commit, and look-alike
findings that stay apart given identities of their own.

An ASCII-art block, a pasted table or a list of example keys is one thing to fix, not forty.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from landwatch.review.findings import Finding, fingerprint, secret_digest
from landwatch.text import listed

TYPE_CHECKING = False  # the rules are not imported to read a stored report (landwatch show)
if TYPE_CHECKING:
    from landwatch.review.rules.base import RuleSet


def bursts(findings: list[Finding], rules: RuleSet) -> list[Finding]:
    """Past a rule's `merged_past` findings in one file, one finding with the list of lines:
    a leak of many keys is still told, once, at its own severity."""
    most = {rule.id: rule.merged_past for rule in rules.rules if rule.merged_past is not None}
    groups: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        if finding.rule in most and finding.path is not None and finding.line is not None:
            groups.setdefault((finding.rule, finding.path), []).append(finding)
    merged: dict[int, Finding | None] = {}
    for (rule, path), group in groups.items():
        if len(group) <= most[rule]:
            continue
        group.sort(key=lambda f: f.line or 0)
        first = group[0]
        # Told as the most severe of them (an audit: a first line moved, so at info, carried
        # three new passwords past the push gate at info), at the first line.
        lead = max(group, key=lambda f: f.severity)
        numbers = [f.line or 0 for f in group]
        identity = fingerprint(rule, path, " ".join(sorted(f.fingerprint for f in group)))
        merged[id(first)] = dataclasses.replace(
            lead,
            line=first.line,
            snippet=first.snippet,
            span=first.span,
            message=f"{lead.message} on {len(group)} lines: {line_ranges(numbers)}",
            end_line=numbers[-1],
            fingerprint=identity,
            secret_digest=merged_digest(group),
        )
        for other in group[1:]:
            merged[id(other)] = None
    kept = []
    for finding in findings:
        replacement = merged.get(id(finding), finding)
        if replacement is not None:
            kept.append(replacement)
    return kept


def line_ranges(numbers: list[int]) -> str:
    """12-18, 40, 55-56: line numbers as runs."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    shown = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    return listed(shown, 8)


def one_per_secret(findings: list[Finding], rules: RuleSet) -> list[Finding]:
    """One finding per secret: where two secret rules found the same value on a line (a
    password in a curl command that a provider's rule knows too), the surer rule tells it, at
    the higher severity of the two: a known format or a place before a guess by name."""
    rank = {rule.id: (-rule.severity, at) for at, rule in enumerate(rules.rules) if rule.secret}
    told: dict[tuple[str, int], list[Finding]] = {}
    dropped: set[int] = set()
    located = [f for f in findings if f.rule in rank and f.span is not None and f.line]
    for finding in sorted(located, key=lambda f: rank[f.rule]):
        start, end = finding.span or (0, 0)
        same_line = told.setdefault((finding.path or "", finding.line or 0), [])
        holder = next((f for f in same_line if _overlap(f.span, start, end)), None)
        if holder is None:
            same_line.append(finding)
        else:
            holder.severity = max(holder.severity, finding.severity)
            dropped.add(id(finding))
    return [finding for finding in findings if id(finding) not in dropped]


def _overlap(span: tuple[int, int] | None, start: int, end: int) -> bool:
    return span is not None and span[0] < end and start < span[1]


def one_per_line(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and line: two tokens of one line are one thing to fix."""
    first: dict[tuple[str, str, int], int] = {}
    alike: dict[tuple[str, str, int], list[Finding]] = {}
    kept: list[Finding] = []
    for finding in findings:
        if finding.path is None or finding.line is None:
            kept.append(finding)
            continue
        key = (finding.rule, finding.path, finding.line)
        alike.setdefault(key, []).append(finding)
        if key in first:
            continue
        first[key] = len(kept)
        kept.append(finding)
    for key, at in first.items():
        if len(alike[key]) > 1:
            lead = max(alike[key], key=lambda f: f.severity)  # the most severe, as above
            kept[at] = dataclasses.replace(
                kept[at],
                severity=lead.severity,
                message=f"{lead.message} ({len(alike[key])} on this line)",
                secret_digest=merged_digest(alike[key]),
            )
    return kept


def merged_digest(findings: list[Finding]) -> str:
    """The secret digest of one finding made of `findings`: every secret of theirs, so that an
    allowance of some of them does not let another through; "" where none is a secret's."""
    parts = [finding.secret_digest for finding in findings]
    return secret_digest(*parts) if any(parts) else ""


def unclaimed(findings: list[Finding], rules: RuleSet, notes: list[str]) -> list[Finding]:
    """Without the findings inside files another finding says do not belong in the commit (a
    tool's working state): one thing to fix, the file's being there. A secret found in one is
    still told: removing the file in the next commit does not take it back."""
    covered = {path for finding in findings for path in finding.covers}
    if not covered:
        return findings
    secret = {rule.id for rule in rules.rules if rule.secret}
    kept = [
        finding
        for finding in findings
        if finding.covers or finding.path not in covered or finding.rule in secret
    ]
    if dropped := len(findings) - len(kept):
        notes.append(
            f"{dropped} finding(s) not reported in {len(covered)} file(s) that do not belong "
            "in the commit"
        )
    return kept


def unique_fingerprints(findings: list[Finding]) -> None:
    """Two identical lines flagged in one file get distinct, still line-move-proof, identities."""
    seen: Counter[str] = Counter()
    for finding in findings:
        occurrence = seen[finding.fingerprint]
        seen[finding.fingerprint] += 1
        if occurrence:
            finding.fingerprint = fingerprint(finding.fingerprint, finding.path, "", occurrence)
