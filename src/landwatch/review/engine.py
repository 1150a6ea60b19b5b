"""The review of one landed change: configuration, rules by scope, linters, suppressions.

The same engine runs for the queue's review items and for `landwatch review` by hand; it never
raises for a bad configuration (that becomes a finding) and never reads the working tree.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from landwatch.review import linters as linter_runner
from landwatch.review.change import (
    Change,
    ChangeShape,
    FileChange,
    Line,
    looks_binary,
    open_repository,
    resolve,
)
from landwatch.review.config import ConfigError, ReviewConfig, read_config
from landwatch.review.findings import Finding, Severity, fingerprint
from landwatch.review.globs import matches_any
from landwatch.review.linters import NO_LINTERS, LinterPolicy
from landwatch.review.precedent import TEST_PATHS, Precedent
from landwatch.review.report import Report
from landwatch.review.rules import all_rules
from landwatch.review.rules.base import (
    ChangeRule,
    FileRule,
    Fixtures,
    LineRule,
    MessageRule,
    RuleSet,
    TreeRule,
)
from landwatch.review.rules.secrets import SecretRule
from landwatch.review.secrets.redaction import redact_secrets
from landwatch.review.standards import Standards

CONFIG_RULE = "CFG"
IGNORE_TRAILER = "landwatch-ignore"
_INLINE = re.compile(rb"landwatch:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_SECRET_ALLOW = (b"gitleaks:allow", b"pragma: allowlist secret")
_NEXTLINE_ALLOW = b"pragma: allowlist nextline secret"
_REVERT = re.compile(r'^(Revert|Reapply) "')


def review(
    git_dir: os.PathLike[str] | str,
    revision: str,
    base: str | None = None,
    *,
    linters: LinterPolicy = NO_LINTERS,
    standards: Standards | None = None,
) -> Report:
    """Review what landed at `revision` (against `base` for a landed range): read the committed
    configuration, run every rule on its scope and, as `linters` allows, the linters on the
    added lines; drop what is suppressed, and what the history shows is the project's practice
    (fixtures). `standards`, learned from the history, tune what the configuration leaves
    unsaid. By default no linter runs."""
    started = time.time()
    clock = time.perf_counter()
    repo = open_repository(git_dir)
    commit = resolve(repo, revision)
    base_commit = resolve(repo, base) if base else None
    findings: list[Finding] = []
    try:
        config = read_config(commit.tree, repo)
    except ConfigError as error:
        config = ReviewConfig()
        findings.append(_config_finding(str(error)))
    change = Change(
        repo, commit, base_commit, merges=config.merges, max_added_lines=config.max_added_lines
    )
    rules, problems = _rules(config)
    findings += [_config_finding(problem) for problem in (*config.problems, *problems)]
    notes: list[str] = ['merge commit skipped (merges = "skip")'] if change.skipped else []
    if standards is not None:
        notes += _apply_standards(rules, config, standards)

    findings += _message_findings(change, config, rules, notes)
    findings += _message_secrets(change, rules)
    included = [file for file in change.files if not matches_any(file.path, config.exclude)]
    findings += _change_findings(change, included, rules)
    readable = {file.path: file for file in included if not file.deleted and not file.is_submodule}
    for file in readable.values():
        findings += _file_findings(file, rules)
    linted = linter_runner.run_all(change, readable, config.linters, linters)
    findings += [_config_finding(problem) for problem in linters.problems]
    notes += linted.notes
    findings = _unsuppressed(findings + linted.findings, readable, _trailer_ignores(change), rules)
    findings = _by_precedent(findings, change, rules, notes)
    findings = _one_per_line(_bursts(findings, rules))
    _redact(findings, notes, linted.runs)
    _unique_fingerprints(findings)
    findings.sort(key=lambda f: (f.path or "", f.line or 0, -f.severity, f.rule))
    return Report(
        commit=str(commit.id),
        base=str(base_commit.id) if base_commit else None,
        shape=change.shape,
        label=change.label,
        rules=[rule.id for rule in rules.rules if rule.active_severity > Severity.OFF],
        findings=findings,
        truncated=change.truncated,
        lines_checked=change.lines_read,
        config=config.source,
        notes=notes + _coverage_notes(change, config),
        linters=linted.runs,
        linters_held_back=linted.held_back,
        started=started,
        duration=time.perf_counter() - clock,
    )


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


def _apply_standards(rules: RuleSet, config: ReviewConfig, standards: Standards) -> list[str]:
    """What the history teaches, where the committed configuration says nothing."""
    applied = []
    overridden = standards_overridden(config)
    for rule in rules.rules:
        learned = rule.learned
        if learned is None or rule.id in overridden:
            continue
        value = getattr(standards, learned.standard)
        if learned.option is None:
            if value:
                rule.active_severity = Severity.WARNING
                applied.append(learned.note.format(id=rule.id))
        elif value is not None and value != rule.option(learned.option):
            rule.settings[learned.option] = value
            applied.append(learned.note.format(value=value, id=rule.id))
    if not applied:
        return []
    return [f"learned from {standards.commits} commits of history: " + "; ".join(applied)]


def _bursts(findings: list[Finding], rules: RuleSet) -> list[Finding]:
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
        numbers = [f.line or 0 for f in group]
        identity = fingerprint(rule, path, " ".join(sorted(f.fingerprint for f in group)))
        merged[id(first)] = dataclasses.replace(
            first,
            message=f"{first.message} on {len(group)} lines: {_ranges(numbers)}",
            end_line=numbers[-1],
            fingerprint=identity,
        )
        for other in group[1:]:
            merged[id(other)] = None
    kept = []
    for finding in findings:
        replacement = merged.get(id(finding), finding)
        if replacement is not None:
            kept.append(replacement)
    return kept


def _ranges(numbers: list[int]) -> str:
    """12-18, 40, 55-56: line numbers as runs."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    shown = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    return ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")


def _one_per_line(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and line: two tokens of one line are one thing to fix."""
    first: dict[tuple[str, str, int], int] = {}
    counts: Counter[tuple[str, str, int]] = Counter()
    kept: list[Finding] = []
    for finding in findings:
        if finding.path is None or finding.line is None:
            kept.append(finding)
            continue
        key = (finding.rule, finding.path, finding.line)
        counts[key] += 1
        if key in first:
            continue
        first[key] = len(kept)
        kept.append(finding)
    for key, at in first.items():
        if counts[key] > 1:
            kept[at] = dataclasses.replace(
                kept[at], message=f"{kept[at].message} ({counts[key]} on this line)"
            )
    return kept


def _by_precedent(
    findings: list[Finding], change: Change, rules: RuleSet, notes: list[str]
) -> list[Finding]:
    """Drop what the history before the change shows is the project's own practice there, as
    each rule's `fixtures` says: secret-looking values in files (or test directories) that
    already held them, and missing final newlines in test fixture directories that end so."""
    practice = {rule.id: rule.fixtures for rule in rules.rules if rule.fixtures is not None}
    wanted = [f for f in findings if f.path and f.rule in practice]
    if not wanted:
        return findings
    precedent = Precedent(change.repo, change.tree_before)
    # A batch of fixtures landing together: secret-looking values in two or more files of one
    # test directory in this very change.
    batches: dict[str, set[str]] = {}
    for finding in wanted:
        secret = practice[finding.rule] is Fixtures.SECRETS
        if secret and finding.path and matches_any(finding.path, TEST_PATHS):
            batches.setdefault(posixpath.dirname(finding.path), set()).add(finding.path)
    kept, secrets, endings = [], 0, 0
    for finding in findings:
        path, kind = finding.path, practice.get(finding.rule)
        in_batch = path is not None and len(batches.get(posixpath.dirname(path), ())) >= 2
        if path and kind is Fixtures.SECRETS and (in_batch or precedent.holds_secrets(path)):
            secrets += 1
            continue
        if path and kind is Fixtures.BYTES and precedent.keeps_bytes(path):
            endings += 1
            continue
        kept.append(finding)
    if secrets:
        notes.append(
            f"{secrets} secret-looking value(s) not reported: they are in files (or test "
            "directories) that already held such values, the project's fixtures"
        )
    if endings:
        notes.append(
            f"{endings} missing final newline(s) not reported: test fixtures whose files end "
            "that way"
        )
    return kept


def _change_findings(change: Change, included: list[FileChange], rules: RuleSet) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules.of(TreeRule):
        findings += rule.check_tree(change, included)
    for rule in rules.of(ChangeRule):
        findings += rule.check_change(change)
    return findings


def _coverage_notes(change: Change, config: ReviewConfig) -> list[str]:
    """What the line checks did not reach: past the line cap, or files skipped and why."""
    notes = []
    if change.truncated:
        notes.append(
            f"line checks stopped after {config.max_added_lines} added lines (max_added_lines)"
        )
    notes += [
        f"no line checks for {file.path}: {file.skipped_lines}"
        for file in change.files
        if file.skipped_lines and file.skipped_lines != "line cap reached"
    ]
    return notes


def _config_finding(message: str) -> Finding:
    return Finding(
        CONFIG_RULE,
        "configuration",
        Severity.ERROR,
        message,
        None,
        None,
        None,
        None,
        fingerprint(CONFIG_RULE, None, message),
    )


def _rules(config: ReviewConfig) -> tuple[RuleSet, list[str]]:
    classes, problems = all_rules()
    known = {name for cls in classes for name in (cls.id, cls.name)}
    for key in config.rules:
        if key not in known:
            problems.append(f"{config.source}: rules.{key}: no rule has this id or name")
    rules = []
    for cls in classes:
        settings: dict[str, Any] = dict(
            config.rules.get(cls.id) or config.rules.get(cls.name) or {}
        )
        severity = settings.pop("severity", None)
        try:
            rules.append(cls(severity, **settings))
        except (ValueError, TypeError) as error:
            problems.append(f"{config.source}: rules.{cls.id}: {error}")
            rules.append(cls(severity))
    return RuleSet(rules), problems


def _message_findings(
    change: Change, config: ReviewConfig, rules: RuleSet, notes: list[str]
) -> list[Finding]:
    message = change.message
    subject = message.subject
    if change.shape is ChangeShape.MERGE or len(change.commit.parents) > 1:
        notes.append("message rules skipped: a merge commit")
        return []
    if _REVERT.match(subject):
        notes.append("message rules skipped: a revert")
        return []
    if message.author_name in config.skip_authors or message.author_email in config.skip_authors:
        notes.append(f"message rules skipped: {message.author_name} is a bot author")
        return []
    fixup = message.autosquash is not None
    findings: list[Finding] = []
    for rule in rules.of(MessageRule):
        if fixup and not rule.runs_on_fixups:
            continue
        findings += rule.check_message(message)
    return findings


def _message_secrets(change: Change, rules: RuleSet) -> list[Finding]:
    """Credentials pasted into the commit message, whatever kind of commit it is."""
    lines = [
        Line(number, text.encode("utf-8", "surrogatepass"), b"\n")
        for number, text in enumerate(change.message.lines, 1)
    ]
    findings: list[Finding] = []
    for rule in rules.of(SecretRule):
        findings += rule.scan(None, lines)
    return findings


def _redact(findings: list[Finding], notes: list[str], runs: list[dict[str, str]]) -> None:
    """The one redaction step: whatever rule, plug-in or linter made a finding, no snippet or
    message of it shows a secret a detector recognises; nor does a note or a linter's words."""
    for finding in findings:
        finding.message = redact_secrets(finding.message)
        if finding.snippet is not None:
            finding.snippet = redact_secrets(finding.snippet)
    notes[:] = [redact_secrets(note) for note in notes]
    for run in runs:
        run["detail"] = redact_secrets(run.get("detail", ""))


def _file_findings(file: FileChange, rules: RuleSet) -> list[Finding]:
    findings: list[Finding] = []
    line_rules = [rule for rule in rules.of(LineRule) if rule.wants(file.path)]
    if line_rules:
        lines = file.added_lines
        if lines or file.lacks_final_newline:
            for rule in line_rules:
                findings += rule.check_lines(file, lines)
    file_rules = [rule for rule in rules.of(FileRule) if rule.wants(file.path)]
    if file_rules and file.new_id != file.old_id and not file.is_symlink:
        content = file.new_content()
        if content is not None and not looks_binary(content):
            for rule in file_rules:
                findings += rule.check_file(file, content)
    return findings


def _trailer_ignores(change: Change) -> set[str]:
    ignored: set[str] = set()
    for key, value in change.message.trailers:
        if key.lower() == IGNORE_TRAILER:
            ignored |= {part.strip() for part in value.split(",") if part.strip()}
    return ignored


def _unsuppressed(
    findings: Iterable[Finding], files: dict[str, FileChange], trailer: set[str], rules: RuleSet
) -> list[Finding]:
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


def _unique_fingerprints(findings: list[Finding]) -> None:
    """Two identical lines flagged in one file get distinct, still line-move-proof, identities."""
    seen: Counter[str] = Counter()
    for finding in findings:
        occurrence = seen[finding.fingerprint]
        seen[finding.fingerprint] += 1
        if occurrence:
            finding.fingerprint = fingerprint(finding.fingerprint, finding.path, "", occurrence)
