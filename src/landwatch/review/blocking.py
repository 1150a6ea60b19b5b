"""What a push is refused for (`landwatch.push.block`): which findings of a review block it under
each policy, and the one word a review's blocking marker holds so the hook need not read it (a
review that did not read its whole change has a marker too: the gate reads what it left).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from landwatch.review.findings import Finding, Severity

# The policies, from the strictest: any error; a secret or a conflict marker at error; nothing.
ERRORS, SECRETS, OFF = "errors", "secrets", "off"
# The marker of a review that did not read its whole change (its line checks cut at
# max_added_lines, or its budget spent): what lies past may refuse a push, so the gate reads on.
UNCHECKED = "unchecked"


@cache
def refusing_rules() -> frozenset[str]:
    """The ids of the rules whose errors `secrets` refuses a push for (Rule.refuses_push)."""
    from landwatch.review.rules import builtin_rules

    return frozenset(rule.id for rule in builtin_rules() if rule.refuses_push)


def refuses(finding: Finding, policy: str) -> bool:
    """Whether `finding` refuses a push under `policy` (an allowance aside)."""
    if finding.severity < Severity.ERROR or policy == OFF:
        return False
    return policy == ERRORS or finding.rule in refusing_rules()


def refused_for(findings: Iterable[Finding], policy: str) -> list[Finding]:
    return [finding for finding in findings if refuses(finding, policy)]


def level(findings: Iterable[Finding]) -> str | None:
    """The strictest policy-word under which `findings` refuse a push: SECRETS when even the
    default refuses it, ERRORS when only `errors` does; None when no policy does."""
    found = None
    for finding in findings:
        if refuses(finding, SECRETS):
            return SECRETS
        if refuses(finding, ERRORS):
            found = ERRORS
    return found


def marker(findings: Iterable[Finding], *, whole: bool) -> str | None:
    """The word a review's blocking marker holds: the `level` of its `findings`, else UNCHECKED
    when it did not read the `whole` change; None when it needs no marker."""
    return level(findings) or (None if whole else UNCHECKED)
