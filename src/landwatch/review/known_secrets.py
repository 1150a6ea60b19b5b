"""The values the secret rules find in what is shown beside a review's findings: a landed change
(what the project's hooks say of it); for the redaction to hide them as it hides what a detector
knows.
"""

from __future__ import annotations

from landwatch.review.budget import DEFAULT_REVIEW_BUDGET, Budget
from landwatch.review.change import Change
from landwatch.review.checking import checked
from landwatch.review.engine import configuration, rules_of
from landwatch.review.redacting import LinesRead, found_secrets
from landwatch.review.secrets.redaction import Found


def found_in_change(change: Change) -> Found:
    """The values the secret rules find in `change` (its files' added lines, its message), set
    as its committed configuration sets them: a review's report keeps none."""
    config, _ = configuration(change.repo, change.commit.tree)
    rules, _ = rules_of(config, secrets_only=True)
    readable, found = checked(change, config, rules, [], Budget(DEFAULT_REVIEW_BUDGET))
    return found_secrets(found, LinesRead(readable, change.message))
