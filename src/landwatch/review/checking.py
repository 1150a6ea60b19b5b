"""Every rule on its scope (the message, the change and its tree, each file a rule can read), each
call kept apart and within the review's budget.

A rule that raises (a parser's RecursionError or MemoryError on a hostile file, a plug-in's bug)
costs only its own findings on that scope: a note says so and every other rule's stand. Past the
budget, the files not reached are named in a note and the review ends with what it found.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from landwatch.lazy_re import lazy_compile
from landwatch.review.binary import looks_binary
from landwatch.review.budget import Budget
from landwatch.review.change import Change, ChangeShape, FileChange
from landwatch.review.config import ReviewConfig
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding
from landwatch.review.generated import GeneratedFiles, ToolOutput
from landwatch.review.globs import LOCKFILES_OF_MANIFEST, matches_any
from landwatch.review.message import Message
from landwatch.review.release_task import release_task_files
from landwatch.review.rules.base import (
    ChangeRule,
    FileRule,
    LineRule,
    MessageRule,
    Rule,
    RuleSet,
    TreeRule,
)
from landwatch.review.rules.secret_rule import SecretRule
from landwatch.review.whose import CODING_AGENTS, app_login
from landwatch.text import listed

_REVERT = lazy_compile(r'^(Revert|Reapply) "')
# What a bot's release or update commit rewrites: build outputs, changelogs, manifests.
RELEASED = (
    "dist/**",
    "build/**",
    "CHANGELOG*",
    "CHANGES*",
    "HISTORY*",
    "RELEASE*",
    *LOCKFILES_OF_MANIFEST,
)
# Files named in the note of a review that ran out of time; the rest are counted.
_NAMED_UNREACHED = 5


def checked(
    change: Change, config: ReviewConfig, rules: RuleSet, notes: list[str], budget: Budget
) -> tuple[dict[str, FileChange], list[Finding]]:
    """Every rule on its scope, and the files read, which the linters are given too; what the
    budget did not reach, or a rule could not finish, is said in `notes`."""
    findings = _message_findings(change, config, rules, notes)
    findings += message_secrets(change.message, rules, notes)
    included = [file for file in change.files if not matches_any(file.path, config.exclude)]
    readable = {file.path: file for file in included if not file.deleted and not file.is_submodule}
    tools_output = _tools_output(change, config, list(readable.values()), notes)
    kept_whole = {path for path, output in tools_output.items() if output.kept_whole}
    findings += _change_findings(change, included, rules, notes, kept_whole)
    unreached: list[str] = []
    for file in readable.values():
        if budget.spent:
            unreached.append(file.path)
            continue
        only_secrets = file.path in tools_output
        findings += _file_findings(file, rules, notes, budget, only_secrets=only_secrets)
    if unreached:
        budget.stop(f"line and file checks did not reach {_files(unreached)}")
    return readable, findings


class Unfinished(str):
    """A note that `rule` (None: every line rule) could not read what it was given: where it is
    one a push is refused for, the review did not read its change whole (`unfinished`)."""

    rule: str | None

    def __new__(cls, note: str, rule: str | None) -> Unfinished:
        made = super().__new__(cls, note)
        made.rule = rule
        return made


def unfinished(notes: Iterable[str]) -> str | None:
    """The first of `notes` saying a rule a push is refused for could not finish, else None: the
    gate reads such a change on the spot, and says so where it cannot either."""
    from landwatch.review.blocking import refusing_rules

    for note in notes:
        if isinstance(note, Unfinished) and (note.rule is None or note.rule in refusing_rules()):
            return str(note)
    return None


def guarded(
    rule: Rule,
    where: str | None,
    notes: list[str],
    work: Callable[..., Iterable[Finding]],
    *args: Any,
) -> list[Finding]:
    """The findings of `work(*args)`, one rule on one scope; if it raises, none of them and a
    note instead."""
    try:
        return list(work(*args))
    except Exception as error:  # RecursionError and MemoryError too: hostile content
        import logging  # only when a rule fails: 3 ms of every review otherwise

        logging.getLogger(__name__).debug(
            "rule %s failed on %s", rule.id, where or "the change", exc_info=True
        )
        detail = str(error).splitlines()[0][:160] if str(error) else ""
        on = f" on {where}" if where else ""
        said = f"{type(error).__name__}{': ' + detail if detail else ''}"
        notes.append(
            Unfinished(
                f"{rule.id} {rule.name} could not finish{on} ({said}); the other rules' "
                "findings stand",
                rule.id,
            )
        )
        return []


def _files(paths: list[str]) -> str:
    named = ", ".join(paths[:_NAMED_UNREACHED])
    more = len(paths) - _NAMED_UNREACHED
    return f"{len(paths)} file{'s' if len(paths) != 1 else ''} ({named}" + (
        f" and {more} more)" if more > 0 else ")"
    )


def _change_findings(
    change: Change,
    included: list[FileChange],
    rules: RuleSet,
    notes: list[str],
    kept_whole: set[str],
) -> list[Finding]:
    findings: list[Finding] = []
    authored = [file for file in included if file.path not in kept_whole]
    for tree_rule in rules.of(TreeRule):
        files = authored if tree_rule.skips_tool_output else included
        findings += guarded(tree_rule, None, notes, tree_rule.check_tree, change, files)
    for change_rule in rules.of(ChangeRule):
        findings += guarded(change_rule, None, notes, change_rule.check_change, change)
    return findings


def _message_findings(
    change: Change, config: ReviewConfig, rules: RuleSet, notes: list[str]
) -> list[Finding]:
    message = change.message
    if change.shape is ChangeShape.MERGE or len(change.commit.parents) > 1:
        notes.append("message rules skipped: a merge commit")
        return []
    if _REVERT.match(message.subject):
        notes.append("message rules skipped: a revert")
        return []
    if (bot := _bot_author(change, config)) is not None:
        notes.append(f"message rules skipped: {bot} is a bot author")
        return []
    fixup = message.autosquash is not None
    findings: list[Finding] = []
    for rule in rules.of(MessageRule):
        if fixup and not rule.runs_on_fixups:
            continue
        findings += guarded(rule, "the message", notes, rule.check_message, message)
    return findings


def message_secrets(message: Message, rules: RuleSet, notes: list[str]) -> list[Finding]:
    """Credentials pasted into a message (a commit's, whatever kind of commit it is, or an
    annotated tag's)."""
    lines = message_lines(message)
    findings: list[Finding] = []
    for rule in rules.of(SecretRule):
        findings += guarded(rule, "the message", notes, rule.scan, None, lines)
    return findings


def message_lines(message: Message) -> list[Line]:
    """A message's lines as the secret rules read them, numbered from 1 (its findings' lines)."""
    return [
        Line(number, text.encode("utf-8", "surrogatepass"), b"\n")
        for number, text in enumerate(message.lines, 1)
    ]


def _bot_author(change: Change, config: ReviewConfig) -> str | None:
    """The name of the commit's author when it is a bot (`skip_authors`, or any app but a
    coding agent, whose commits are a person's work), else None."""
    message = change.message
    if message.author_name in config.skip_authors or message.author_email in config.skip_authors:
        return message.author_name
    app = app_login(message.author_name, message.author_email)
    return message.author_name if app is not None and app not in CODING_AGENTS else None


def _tools_output(
    change: Change, config: ReviewConfig, files: list[FileChange], notes: list[str]
) -> dict[str, ToolOutput]:
    """The files a tool wrote, not the author, and why: generated, vendored, binary or not
    diffed, and in a bot's commit its build outputs, changelogs and manifests; said in `notes`."""
    generated = GeneratedFiles(change, files)
    notes.extend(generated.problems)
    found = {f.path: why for f in files if (why := generated.why(f)) is not None}
    for path, why in release_task_files(change, files).items():
        found.setdefault(path, why)
    bot = _bot_author(change, config)
    if bot is not None:
        released = ToolOutput(f"written by {bot}, a bot", kept_whole=True)
        for file in files:
            if file.path not in found and matches_any(file.path, RELEASED):
                found[file.path] = released
    if found:
        shown = listed([f"{path} ({why.reason})" for path, why in found.items()], _NAMED_UNREACHED)
        notes.append(
            f"patch rules skipped on {len(found)} file{'s' if len(found) != 1 else ''} no "
            f"person wrote line by line: {shown} (secrets are still looked for)"
        )
    return found


def _file_findings(
    file: FileChange, rules: RuleSet, notes: list[str], budget: Budget, *, only_secrets: bool
) -> list[Finding]:
    """The line rules on the file's added lines, then the file rules on its new content, each
    rule while the budget lasts; only the secret rules on a tool's output."""
    findings: list[Finding] = []
    line_rules = [
        rule
        for rule in rules.of(LineRule)
        if rule.wants(file.path) and (rule.secret or not only_secrets)
    ]
    file_rules = [
        rule
        for rule in rules.of(FileRule)
        if rule.wants(file.path) and (rule.secret or not only_secrets)
    ]
    lines = _added_lines(file, notes) if line_rules else []
    if file.binary:  # found so by reading its lines: its text, if any, the secret rules' alone
        line_rules = [rule for rule in line_rules if rule.secret]
    if line_rules and file.unread_text and rules.at_push and file.change.reader:
        findings += _large_file_findings(file, line_rules, notes, budget)
    elif lines or file.lacks_final_newline:
        for line_rule in line_rules:
            if budget.spent:
                budget.stop(f"line checks stopped in {file.path}")
                return findings
            findings += guarded(line_rule, file.path, notes, line_rule.check_lines, file, lines)
    if file_rules and file.new_id != file.old_id and not file.is_symlink:
        content = file.new_content()
        if content is not None and not looks_binary(content):
            for file_rule in file_rules:
                if budget.spent:
                    budget.stop(f"file checks stopped in {file.path}")
                    return findings
                findings += guarded(
                    file_rule, file.path, notes, file_rule.check_file, file, content
                )
    return findings


def _large_file_findings(
    file: FileChange, rules: list[LineRule], notes: list[str], budget: Budget
) -> list[Finding]:
    """The line rules on a text file too large to hold, read a piece at a time (the push gate's
    scan: review.large_files), while the budget lasts."""
    from landwatch.review import large_files  # only for such a file, at a push

    findings: list[Finding] = []
    with contextlib.closing(large_files.pieces(file, budget.remaining())) as read:
        for piece in read:
            if budget.spent:
                break
            for rule in rules:
                findings += guarded(rule, file.path, notes, rule.check_lines, file, piece)
    if file.unread_text and budget.spent:
        budget.stop(f"line checks stopped in {file.path}")
    return findings


def _added_lines(file: FileChange, notes: list[str]) -> list[Line]:
    """The file's added lines as the secret rules read them (`secret_lines`: a binary file's
    text too); none, and a note, when its patch cannot be made."""
    try:
        return file.secret_lines
    except Exception as error:  # a patch pygit2 cannot make, or no memory for it
        notes.append(Unfinished(f"no line checks for {file.path}: {type(error).__name__}", None))
        return []
