"""A commit cannot loosen the secret rules for itself: where it changes landwatch's configuration
or the secret scanners' declarations so that they let through what they reported (what
`landwatch ci` tells as an error of review-rules-changed), its secrets are judged by the rules it
came to as well (its parent's, a landed range's base's, landwatch's defaults for a root), as
`landwatch ci` judges them, and of each secret the more severe finding stands: in its review,
its blocking marker and the push gate's scan alike. The rest of the review is by the rules it
brings, and the commits after it come to them, as in CI once the change is on the base.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from landwatch.review.change import Change
from landwatch.review.config import RulesAt
from landwatch.review.declared_changes import brought
from landwatch.review.findings import Severity, in_order
from landwatch.review.report import Report
from landwatch.review.rules.base import Rule

# What a finding the rules the commit brings let through (or told lower) says of itself.
BY_THE_RULES_IT_CAME_TO = " (by the rules it came to: those this commit brings let it through)"


def loosening(change: Change, rules: Sequence[type[Rule]]) -> list[str]:
    """What `change` itself does to `rules` that lets through what they reported, in words;
    none for most commits, which leave the configuration and the declarations alone."""
    return [difference.said for difference in brought(change, rules) if difference.relaxes]


def came_to(change: Change) -> RulesAt:
    """The rules `change` came to: a landed range's base's, else its first parent's, and
    landwatch's defaults for a root commit."""
    if change.base is not None:
        return RulesAt(str(change.base.id))
    parents = change.commit.parent_ids
    return RulesAt(str(parents[0]) if parents else None)


def judged(report: Report, change: Change, again: Callable[..., Report]) -> Report:
    """`report` (by the rules `change` brings) as it stands where the change loosens the secret
    rules: with each secret finding the review `again` by the rules it came to finds that the
    report lacks or tells less severely, said so; as it is where the change loosens nothing."""
    from landwatch.review.rules import all_rules  # the rules it judges, plug-ins too

    rules, _ = all_rules()
    loosened = loosening(change, rules)
    if not loosened:
        return report
    at = came_to(change)
    other = again(rules_at=at, secrets_only=True)
    secret = {rule.id for rule in rules if rule.secret}
    mine = {finding.fingerprint: finding for finding in report.findings}
    findings = list(report.findings)
    told = 0
    for finding in other.findings:
        if finding.rule not in secret:
            continue  # its configuration's problems, its cut, a conflict marker: not secrets
        known = mine.get(finding.fingerprint)
        if finding.severity <= (known.severity if known is not None else Severity.INFO):
            continue
        if known is not None:
            findings.remove(known)
        finding.message += BY_THE_RULES_IT_CAME_TO
        findings.append(finding)
        told += 1
    notes = list(report.notes)
    if told:
        where = f"those of {at.revision[:12]}" if at.revision else "landwatch's defaults"
        notes.append(
            f"{told} secret finding{'s' if told != 1 else ''} judged by the rules it came to "
            f"({where}): the ones it brings would let {'them' if told != 1 else 'it'} through "
            f"({'; '.join(loosened)}), which apply from the commits after it"
        )
    return dataclasses.replace(
        report,
        rules=report.rules + [rule for rule in other.rules if rule in secret - set(report.rules)],
        findings=sorted(findings, key=in_order),
        truncated=report.truncated or other.truncated,
        notes=notes,
        duration=report.duration + other.duration,
    )
