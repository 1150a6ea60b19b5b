"""A landed commit reviewed as the reviewer reviews it: the standards learned from its history
(kept in the repository's landwatch directory), the linters the person's trust allows, the engine.

The review kind, `landwatch review` and `landwatch rules --explain` all start here, so what a
person runs by hand is what the reviewer did.
"""

from __future__ import annotations

import os

from landwatch import layout, standards_store, trust
from landwatch.git import git_output
from landwatch.review import engine
from landwatch.review.budget import Budget
from landwatch.review.change import open_repository, resolve
from landwatch.review.config import ConfigError, RulesAt, read_config
from landwatch.review.linters import LinterPolicy
from landwatch.review.report import Report
from landwatch.review.standards import Standards


def review_landing(
    git_dir: os.PathLike[str] | str,
    revision: str,
    base: str | None = None,
    *,
    linters: LinterPolicy | None = None,
    budget: float | None = None,
    rules_at: RulesAt | None = None,
    merges: str | None = None,
) -> Report:
    """The review of what landed at `revision` (on top of `base` for a landed range), under
    `linters` (by default what the person trusted in this repository), within `budget` seconds
    (by default the repository's `landwatch.review.budget`), counted from now; by the
    configuration the commit brings, or `rules_at`'s (`landwatch ci`: the rules it came to), a
    merge read as `merges` says (`landwatch ci`: for its own), else as that configuration does."""
    if budget is None:
        budget = layout.read_git_settings(git_dir)[layout.REVIEW_BUDGET]
    limit = Budget(budget)
    policy = trust.policy(git_dir) if linters is None else linters
    learned = learned_standards(git_dir, revision)
    return engine.review(
        git_dir,
        revision,
        base,
        linters=policy,
        standards=learned,
        budget=limit,
        rules_at=rules_at,
        merges=merges,
        reader=git_output,  # a file too large to hold: told text or binary by its first bytes
    )


def learned_standards(git_dir: os.PathLike[str] | str, revision: str) -> Standards:
    """What the history before `revision` teaches the rules, cached while it still holds."""
    repo = open_repository(git_dir)
    return standards_store.current(git_dir, repo, resolve(repo, revision))


def explain_standards(git_dir: os.PathLike[str] | str, revision: str = "HEAD") -> list[str]:
    """What the history taught and which of it the committed configuration overrides, as the
    review at `revision` would apply it (`landwatch rules --explain`)."""
    lines = learned_standards(git_dir, revision).explain()
    repo = open_repository(git_dir)
    try:
        configured = read_config(resolve(repo, revision).tree, repo)
    except ConfigError:
        return lines
    overridden = engine.standards_overridden(configured)
    if overridden:
        names = ", ".join(overridden)
        lines.append(f"  the committed configuration ({configured.source}) sets {names}: it wins")
    return lines
