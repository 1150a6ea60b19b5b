"""The review of one landed change: configuration, rules by scope, linters, and what becomes of
their findings (suppressions, the project's fixtures, bursts, redaction) in that order.

The same engine runs for the queue's review items and for `landwatch review` by hand; it never
raises for a bad configuration (that becomes a finding) and never reads the working tree.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from typing import Any

import pygit2

from landwatch.review import linters as linter_runner
from landwatch.review import rules_came_to
from landwatch.review.budget import DEFAULT_REVIEW_BUDGET, Budget
from landwatch.review.bursts import (
    bursts,
    one_per_line,
    one_per_secret,
    unclaimed,
    unique_fingerprints,
)
from landwatch.review.change import Change, ChangeError, open_repository, resolve
from landwatch.review.checking import checked, unfinished
from landwatch.review.commit_conventions import declared_standards
from landwatch.review.config import ConfigError, ReviewConfig, RulesAt, read_config
from landwatch.review.copied_secrets import copied_told_at_info
from landwatch.review.declarations import Declarations
from landwatch.review.editor_config import FILE_NAME as EDITORCONFIG
from landwatch.review.editor_config import EditorConfig, RuleSwitches, declared_off
from landwatch.review.expected_output import outside_expected_output
from landwatch.review.findings import (
    CUT,
    DECLARED,
    LEARNED,
    Basis,
    Finding,
    Severity,
    fingerprint,
    in_order,
)
from landwatch.review.large_files import Reader
from landwatch.review.linters import NO_LINTERS, Linted, LinterPolicy
from landwatch.review.precedent import unprecedented
from landwatch.review.precommit_scopes import PreCommitScopes, scoped_out
from landwatch.review.redacting import LinesRead, found_secrets, redact, refingerprinted
from landwatch.review.report import Report
from landwatch.review.rules import all_rules
from landwatch.review.rules.base import Rule, RuleSet
from landwatch.review.secrets.redaction import Found
from landwatch.review.standards import Standards
from landwatch.review.suppressions import unsuppressed

CONFIG_RULE = "CFG"


def _as_declared(
    findings: list[Finding],
    change: Change,
    rules: RuleSet,
    scopes: PreCommitScopes,
    notes: list[str],
    secrets: Found,
) -> list[Finding]:
    """Nothing inside a file that does not belong in the commit (bursts.unclaimed); what the
    project declared (.editorconfig, its pre-commit hooks' `scopes`) and the data its tests
    compare byte for byte outrank what the tree before the change shows it lives with
    (fixtures' bytes, whitespace kept); then, no identity made over the `secrets` found, one
    finding per secret, per burst and per line."""
    findings = unclaimed(findings, rules, notes)
    editor = RuleSwitches(EditorConfig.of(change), rules)
    findings = declared_off(findings, editor, notes)
    findings = scoped_out(findings, scopes, notes)
    findings = outside_expected_output(findings, change, rules, notes)
    findings = unprecedented(
        findings,
        change,
        rules,
        notes,
        insisted=lambda finding: editor.insists(finding) or scopes.runs_on(finding),
    )
    for finding in findings:
        if finding.basis is not None and finding.basis.standard == DECLARED:
            continue  # the project's landwatch configuration said so for the rule as a whole
        if editor.insists(finding):
            finding.basis = Basis(DECLARED, EDITORCONFIG)
        elif scopes.runs_on(finding):
            finding.basis = Basis(DECLARED, scopes.source)
    refingerprinted(findings, secrets)  # before bursts, whose identities are made of theirs
    return one_per_line(bursts(one_per_secret(findings, rules), rules))


def review(
    git_dir: os.PathLike[str] | str,
    revision: str,
    base: str | None = None,
    *,
    linters: LinterPolicy = NO_LINTERS,
    standards: Standards | None = None,
    budget: Budget | None = None,
    rules_at: RulesAt | None = None,
    secrets_only: bool = False,
    at_push: bool = False,
    max_added_lines: int | None = None,
    merges: str | None = None,
    reader: Reader | None = None,
) -> Report:
    """Review what landed at `revision` (against `base` for a landed range; a merge as `merges`
    reads it) by the committed configuration (or `rules_at`'s): every rule (`secrets_only`: the
    secret ones; `at_push`: those a push is refused for), the linters `linters` allows; drop what
    is suppressed or practice (`standards`). What `budget` or `max_added_lines` left is noted."""
    started, clock = time.time(), time.perf_counter()
    budget = budget or Budget(DEFAULT_REVIEW_BUDGET)
    own = rules_at is None  # the rules the commit brings, or those it came to (CI)
    read = _read(git_dir, revision, base, rules_at, max_added_lines, merges, reader)
    change, config, declared, findings = read
    rules, problems = rules_of(config, own_rules=own, secrets_only=secrets_only, at_push=at_push)
    findings += [_config_finding(problem) for problem in (*config.problems, *problems)]
    notes = change.notes + ([rules_at.note()] if rules_at is not None else [])
    notes += _apply_standards(rules, config, standards)
    scopes = _apply_declared(rules, config, change, notes)
    readable, found = checked(change, config, rules, notes, budget)
    secrets = found_secrets(found, LinesRead(readable, change.message))
    linted = linter_runner.run_all(change, readable, config.linters, linters, budget, declared)
    findings += found + [_config_finding(problem) for problem in linters.problems]
    notes += linted.notes
    scanners = Declarations(change, config, rules, declared)
    findings = unsuppressed(
        findings + linted.findings, readable, change, rules, scanners, notes, own_rules=own
    )
    findings = copied_told_at_info(findings, readable, change, config, rules, notes)
    findings = _as_declared(findings, change, rules, scopes, notes, secrets)
    notes += budget.stopped + _coverage_notes(change)
    findings += _cut(change)
    redact(findings, notes, linted.runs, readable, secrets, change.message)
    unique_fingerprints(findings)
    report = _report(change, config, rules, findings, notes, linted, budget, started, clock)
    if not own:
        return report
    # Its secrets by the rules it came to as well, where it loosens them (review.rules_came_to).
    again = functools.partial(
        review,
        git_dir,
        revision,
        base,
        budget=budget,
        at_push=at_push,
        max_added_lines=max_added_lines,
        merges=merges,
        reader=reader,
    )
    return rules_came_to.judged(report, change, again)


def _report(
    change: Change,
    config: ReviewConfig,
    rules: RuleSet,
    findings: list[Finding],
    notes: list[str],
    linted: Linted,
    budget: Budget,
    started: float,
    clock: float,
) -> Report:
    """The report of a review of `change` begun at `started` (`clock`: perf_counter then); cut
    where the budget, the line cap or a rule a push is refused for left some of it unread."""
    return Report(
        commit=str(change.commit.id),
        base=str(change.base.id) if change.base else None,
        shape=change.shape,
        label=change.label,
        rules=[rule.id for rule in rules.rules if rule.active_severity > Severity.OFF],
        findings=sorted(findings, key=in_order),
        truncated=not change.read_whole or bool(budget.stopped) or unfinished(notes) is not None,
        lines_checked=change.lines_read,
        config=config.source,
        notes=notes,
        linters=linted.runs,
        linters_held_back=linted.held_back,
        started=started,
        duration=time.perf_counter() - clock,
    )


def _read(
    git_dir: os.PathLike[str] | str,
    revision: str,
    base: str | None,
    rules_at: RulesAt | None,
    cap: int | None,
    merges: str | None,
    reader: Reader | None,
) -> tuple[Change, ReviewConfig, pygit2.Tree | None, list[Finding]]:
    """The change (cut at `cap` added lines, else the configuration's cap; a merge read as
    `merges`, else as the configuration says), its configuration and the tree that was read from
    (the commit's own, or `rules_at`'s), with any finding about it."""
    repo = open_repository(git_dir)
    commit = resolve(repo, revision)
    base_commit = resolve(repo, base) if base else None
    try:
        declared = commit.tree if rules_at is None else rules_at.tree(repo)
        config, findings = configuration(repo, declared)
        cap = config.max_added_lines if cap is None else cap
        merges = config.merges if merges is None else merges
        change = Change(repo, commit, base_commit, merges=merges, max_added_lines=cap)
        change.reader = reader  # how git reads a file too large to hold (review.large_files)
    except pygit2.GitError as error:
        # A tree the commit names is missing or corrupt: nothing can be reviewed, and a
        # traceback would not say what git fsck will.
        said = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
        shown = str(commit.id)[:12]
        raise ChangeError(f"cannot read {shown} ({said}); git fsck names what is missing") from None
    return change, config, declared, findings


def configuration(
    repo: pygit2.Repository, tree: pygit2.Tree | None
) -> tuple[ReviewConfig, list[Finding]]:
    """The configuration committed in `tree` (None: the defaults); when it cannot be used, the
    defaults and a finding why."""
    if tree is None:
        return ReviewConfig(), []
    try:
        return read_config(tree, repo), []
    except ConfigError as error:
        return ReviewConfig(), [_config_finding(str(error))]


def standards_overridden(config: ReviewConfig) -> list[str]:
    """The rules whose learned standard the committed configuration overrides (set by id or by
    name): the option a rule learns, or anything of a rule the history would turn on."""
    classes, _ = all_rules()
    overridden = []
    for cls in classes:
        if cls.learned is None:
            continue
        settings = config.rules.get(cls.id) or config.rules.get(cls.name)
        option = cls.learned.option
        if settings is not None and (option is None or option in settings):
            overridden.append(cls.id)
    return overridden


def _apply_standards(
    rules: RuleSet, config: ReviewConfig, standards: Standards | None
) -> list[str]:
    """What the history teaches, where the committed configuration says nothing."""
    if standards is None:
        return []
    applied = []
    overridden = standards_overridden(config)
    history = Basis(LEARNED, f"{standards.commits} commits of history")
    for rule in rules.rules:
        learned = rule.learned
        if learned is None or rule.id in overridden:
            continue
        value = getattr(standards, learned.standard)
        if learned.option is None:
            if value:
                rule.active_severity = Severity.WARNING
                rule.basis = history
                applied.append(learned.note.format(id=rule.id) + _widened(rule, standards))
        elif value is not None and value != rule.option(learned.option):
            rule.settings[learned.option] = value
            rule.basis = history
            applied.append(learned.note.format(value=value, id=rule.id))
    if not applied:
        return []
    return [f"learned from {history.source}: " + "; ".join(applied)]


def _widened(rule: Rule, standards: Standards) -> str:
    """Take into the rule's list option the values its learned standard widens it with (the
    types the project routinely writes); what the note adds, said."""
    if rule.learned is None or rule.learned.widens is None:
        return ""
    standard, option = rule.learned.widens
    known = tuple(rule.option(option))
    more = tuple(value for value in getattr(standards, standard) if value not in known)
    if not more:
        return ""
    rule.settings[option] = (*known, *more)
    return f", with its own {option} {', '.join(more)}"


def _apply_declared(
    rules: RuleSet, config: ReviewConfig, change: Change, notes: list[str]
) -> PreCommitScopes:
    """What the project declared to its commit linters, over what the history taught, and what
    its pre-commit hooks' arguments set (their scopes, returned), where landwatch's committed
    configuration says nothing; said in `notes`."""
    declared = declared_standards(change)
    scopes = PreCommitScopes(change, rules, config.rules)
    applied = []
    overridden = standards_overridden(config)
    for rule in rules.rules:
        learned = rule.learned
        if learned is None or rule.id in overridden:
            continue
        said = declared.get(learned.standard)
        if said is None:
            continue
        rule.basis = Basis(DECLARED, said.source)
        if said.value is None:
            rule.active_severity = Severity.OFF
            applied.append(f"{said.source} turns off what {rule.id} checks")
            continue
        if learned.option is None:  # a rule the standard turns on
            rule.active_severity = max(rule.active_severity, Severity.WARNING)
            applied.append(f"{said.source} asks for what {rule.id} checks")
        else:
            rule.settings[learned.option] = said.value
            applied.append(f"{said.source} declares {learned.option} {said.value} for {rule.id}")
        known = {option.name: option for option in rule.options}
        for name, value in said.options.items():
            with contextlib.suppress(KeyError, ValueError):  # one it cannot take: as it was
                rule.settings[name] = known[name].coerce(value)
    notes += [f"declared by the project: {'; '.join(applied)}"] if applied else []
    return scopes


def _coverage_notes(change: Change) -> list[str]:
    """What the line checks did not reach: past the line cap, or files skipped and why."""
    notes = []
    if change.truncated:
        notes.append(
            f"line checks stopped after {change.max_added_lines} added lines (max_added_lines)"
        )
    notes += [
        f"no line checks for {file.path}: {file.unchecked_lines}"
        for file in change.files
        if file.unchecked_lines and file.unchecked_lines != "line cap reached"
    ]
    return notes


def _cut(change: Change) -> list[Finding]:
    """The finding that says the line checks stopped at the cap, with what checks the rest: a
    landed range commit by commit (`landwatch ci`), a commit with a higher cap."""
    if not change.truncated:
        return []
    tip = str(change.commit.id)[:12]
    stopped = f"line checks stopped after {change.max_added_lines:,} added lines (max_added_lines)"
    if change.base is not None:
        rest = f"landwatch ci {str(change.base.id)[:12]}..{tip} reviews this range commit by commit"
    else:
        rest = f"a higher max_added_lines in .landwatch.toml checks them (landwatch review {tip})"
    message = f"{stopped}: what lies past them is not checked; {rest}"
    identity = fingerprint(CUT, None, message)
    return [Finding(CUT, "lines-unchecked", Severity.WARNING, message, fingerprint=identity)]


def _config_finding(message: str) -> Finding:
    identity = fingerprint(CONFIG_RULE, None, message)
    return Finding(CONFIG_RULE, "configuration", Severity.ERROR, message, fingerprint=identity)


def rules_of(
    config: ReviewConfig,
    *,
    own_rules: bool = True,
    secrets_only: bool = False,
    at_push: bool = False,
) -> tuple[RuleSet, list[str]]:
    """Every rule as `config` sets it (`secrets_only`: only the secret rules, as a shared review
    taken is checked with); those about the rules themselves only where the review reads its
    rules from elsewhere than the commit it reviews (not `own_rules`)."""
    classes, problems = all_rules()
    known = {name for cls in classes for name in (cls.id, cls.name)}
    for key in config.rules:
        if key not in known:
            problems.append(f"{config.source}: rules.{key}: no rule has this id or name")
    rules = []
    if secrets_only or at_push:
        classes = [cls for cls in classes if cls.secret or (at_push and cls.refuses_push)]
    for cls in classes:
        settings: dict[str, Any] = dict(
            config.rules.get(cls.id) or config.rules.get(cls.name) or {}
        )
        severity = settings.pop("severity", None)
        try:
            rule = cls(severity, **settings)
        except (ValueError, TypeError) as error:
            problems.append(f"{config.source}: rules.{cls.id}: {error}")
            rule = cls(severity)
        if severity is not None or settings:
            rule.basis = Basis(DECLARED, config.source)
        if cls.watches_the_rules and own_rules:
            rule.active_severity = Severity.OFF
        rules.append(rule)
    return RuleSet(rules, at_push=at_push), problems
