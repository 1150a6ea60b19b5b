"""What a push is refused for (`landwatch.push.block`): which findings of a review block it under
each policy, and the one word a review's blocking marker holds so the hook need not read it (a
review that did not read its whole change has a marker too: the gate reads what it left). Of a
merge, only what none of its parents has: what it brought in, its own commits answer for.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from landwatch.review.findings import Finding, Severity

if TYPE_CHECKING:
    from landwatch.review.report import Report

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


def marker_of(git_dir: os.PathLike[str] | str, report: Report) -> str | None:
    """The word of `report`'s blocking marker, as the gate judges it (`judged`): UNCHECKED too
    where it did not read its commit's own change whole, or is not that change's (`own`)."""
    whole = not report.truncated and own(git_dir, report)
    return marker(judged(git_dir, report).findings, whole=whole)


def own(git_dir: os.PathLike[str] | str, report: Report) -> bool:
    """Whether `report` judges its commit as the commit's own review would: against its parents,
    or a range from below it (a merge as `git merge` lands it, a pull's fast-forward: what the
    tip adds that the range does not, its base held already, or the commits between, each
    judged on its own). A range from beside it (a branch moved sideways to a commit rebuilt
    without hooks) does not: the commit's whole change may be in no diff of it. Not readable
    here: not its own (the gate reads on)."""
    from landwatch.review.change import ChangeShape

    if report.shape != ChangeShape.RANGE:
        return True
    import pygit2

    from landwatch.review.change import ChangeError, open_repository, resolve

    try:
        repo = open_repository(git_dir)
        commit = resolve(repo, report.commit)
        base = resolve(repo, report.base or "")
        return repo.descendant_of(commit.id, base.id)  # its first parent too
    except (ChangeError, KeyError, ValueError, pygit2.GitError):
        return False


def judged(git_dir: os.PathLike[str] | str, report: Report) -> Report:
    """`report` as the push gate judges it: of a merge (or a landed range ending in one, as `git
    merge` lands it), only the findings on what none of its parents has (diffs.BroughtIn): the
    commits that brought the rest are judged on their own, or the remote holds them. Any other
    report, or one that refuses nothing, as it is."""
    if level(report.findings) is None:
        return report
    import pygit2

    from landwatch.review.change import ChangeError, ChangeShape, open_repository, resolve
    from landwatch.review.diffs import BroughtIn

    if report.shape not in (ChangeShape.MERGE, ChangeShape.RANGE):
        return report
    try:
        repo = open_repository(git_dir)
        brought = BroughtIn(repo, resolve(repo, report.commit))
        own = [f for f in report.findings if not brought.holds(f.path, f.line)]
    except (ChangeError, KeyError, ValueError, pygit2.GitError):
        # Not readable here (a parent or blob missing): judged whole, a refusal too many, never
        # one too few, and never a review or a push failed for it.
        return report
    return dataclasses.replace(report, findings=own)
