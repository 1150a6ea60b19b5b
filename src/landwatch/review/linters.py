"""The project's own linters, run on the committed content of each changed file and kept to
the lines the change added (reviewdog's `added` filter), to what is new against the file
before the change (`baseline`, graylint's method), or to the whole file on request.

Commands run only as the caller's LinterPolicy allows: the person's own linters, and a
repository's committed ones once the person trusted exactly them and the configuration files
they are given (review.pinned). Each run gets the content on stdin, a directory of its own with
those files and the linted one (review.workspace), a sandbox where the machine has one, a
timeout, what is left of the review's budget (review.budget) and a cap on its output.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from landwatch.review import sandbox
from landwatch.review.binary import looks_binary
from landwatch.review.budget import Budget
from landwatch.review.change import Change, FileChange
from landwatch.review.config import LinterConfig
from landwatch.review.findings import DECLARED, Basis, Finding, Severity, fingerprint, line_text
from landwatch.review.globs import matches_any
from landwatch.review.pinned import Pinned, pin
from landwatch.review.workspace import Workspace, workspace

MAX_OUTPUT = 4 * 1024 * 1024
NOT_TRUSTED = (
    "linters not run: nothing allowed this configuration's commands "
    "(`landwatch trust` shows them and allows them)"
)


@dataclass
class LinterRun:
    """What happened when a linter ran on one file."""

    linter: str
    path: str
    status: str  # "ok", "failed", "timeout", "unparsable", "missing"
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class RawFinding:
    line: int | None
    end_line: int | None
    code: str
    message: str
    level: str | None = None


def _never(digest: str) -> str:
    return NOT_TRUSTED


@dataclass(frozen=True)
class LinterPolicy:
    """Which linters a review may run, and how. `own` are the person's (trusted by definition);
    the repository's committed linters run, and its configuration files are given to linters,
    when `vet`, given the digest of what review.pinned pins, answers None; otherwise its answer
    says why not. It is asked again before every run, so a trust withdrawn mid-review stops the
    next command."""

    own: tuple[LinterConfig, ...] = ()
    vet: Callable[[str], str | None] = _never
    problems: tuple[str, ...] = ()  # the person's own configuration could not be read
    scratch: Path | None = None  # where workspaces are made (None: the temporary directory)
    sandboxed: bool = True  # under bubblewrap where the machine has it


NO_LINTERS = LinterPolicy()


@dataclass
class Linted:
    findings: list[Finding] = field(default_factory=list)
    runs: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    held_back: str | None = None  # the digest of committed linters not run for want of trust


def run_all(
    change: Change,
    files: dict[str, FileChange],
    committed: list[LinterConfig],
    policy: LinterPolicy,
    budget: Budget,
    tree: pygit2.Tree | None = None,
) -> Linted:
    """Every allowed linter on each file it wants, each run in a workspace of its own, while
    the review's `budget` lasts; given the configuration files of `tree`, where the review read
    its own (by default the landed commit's: `landwatch ci` reads the range's base)."""
    outcome = Linted()
    if not (committed or policy.own):
        return outcome
    pinned = pin(change.repo, change.commit.tree if tree is None else tree, committed)
    verdict = policy.vet(pinned.digest)
    trusted = verdict is None
    if committed and verdict is not None:
        outcome.notes.append(verdict)
        outcome.held_back = pinned.digest
    allowed = [*policy.own, *(committed if trusted else [])]
    if not allowed:
        return outcome
    if not trusted and pinned.given():
        outcome.notes.append(_without_configuration(pinned))
    jail = sandbox.find(os.environ.get("PATH"))[0] if policy.sandboxed else None
    with workspace(pinned.given() if trusted else {}, jail, policy.scratch) as place:
        _run_each(
            allowed, files, place, policy, pinned.digest if trusted else None, outcome, budget
        )
    return outcome


def _without_configuration(pinned: Pinned) -> str:
    names = ", ".join(sorted(pinned.given()))
    return (
        f"your own linters ran without this repository's configuration ({names}): it is not "
        "trusted here; `landwatch trust` shows it and allows it"
    )


def _run_each(
    allowed: list[LinterConfig],
    files: dict[str, FileChange],
    place: Workspace,
    policy: LinterPolicy,
    trusted: str | None,
    outcome: Linted,
    budget: Budget,
) -> None:
    """Each linter on each file it wants, within the review's budget; `trusted`, the digest
    the repository's configuration was trusted by, is asked again before each run."""
    for linter in allowed:
        for file in files.values():
            if not wants(linter, file.path) or file.binary:
                continue
            content = file.new_content()
            if content is None or looks_binary(content):
                continue
            if trusted is not None and (verdict := policy.vet(trusted)) is not None:
                outcome.notes.append(verdict)  # withdrawn while the review ran
                return
            if budget.spent:
                budget.stop(f"linters stopped before {linter.name} on {file.path}")
                return
            if linter.filter == "baseline":
                found, ran = baseline(linter, file, content, place, budget)
            else:
                found, ran = run(linter, file, content, place, _timeout(linter, budget))
            outcome.findings += found
            outcome.runs.append(ran.as_dict())


def run(
    linter: LinterConfig, file: FileChange, content: bytes, place: Workspace, timeout: float
) -> tuple[list[Finding], LinterRun]:
    try:
        process = place.run(linter.command, file.path, content, timeout)
    except FileNotFoundError:
        return [], LinterRun(linter.name, file.path, "missing", f"{linter.command[0]} not found")
    except OSError as error:
        return [], LinterRun(linter.name, file.path, "failed", str(error))
    if process.timed_out:
        return [], LinterRun(linter.name, file.path, "timeout", f"no answer within {timeout:.0f} s")
    output = process.stdout[:MAX_OUTPUT].decode("utf-8", errors="replace")
    try:
        raw = parse(linter, output)
    except (ValueError, KeyError, TypeError) as error:
        stderr = process.stderr[:500].decode("utf-8", errors="replace").strip()
        detail = f"output not {linter.format} ({error})" + (f": {stderr}" if stderr else "")
        if linter.format == "ruff-json" and stderr.startswith("["):
            # ruff with `fix = true` writes the fixed source on stdout, its JSON on stderr.
            detail = (
                "output not ruff-json: the JSON came on stderr, so ruff fixed the file instead "
                "(fix = true in its configuration?): add --no-fix to the command"
            )
        return [], LinterRun(linter.name, file.path, "unparsable", detail)
    added = {line.number for line in file.added_lines}
    findings = []
    for occurrence, item in enumerate(raw):
        if linter.filter == "added" and not _touches(item, added):
            continue
        text = line_text(content, item.line)
        findings.append(
            Finding(
                rule=f"{linter.name}:{item.code}" if item.code else linter.name,
                name=linter.name,
                severity=_severity(item.level, linter.severity),
                message=item.message,
                path=file.path,
                line=item.line,
                end_line=item.end_line,
                snippet=text,
                fingerprint=fingerprint(
                    f"{linter.name}:{item.code}", file.path, text or item.message, occurrence
                ),
                # The project (or the person) declared the linter, and the linter its rules.
                basis=Basis(DECLARED, f"linter {linter.name}"),
            )
        )
    return findings, LinterRun(linter.name, file.path, "ok")


def baseline(
    linter: LinterConfig, file: FileChange, content: bytes, place: Workspace, budget: Budget
) -> tuple[list[Finding], LinterRun]:
    """graylint's method: the linter on the whole new file and on the file before the change,
    and only what the change brought kept: breakage on lines it did not touch is found, a line
    merely moved is not reported."""
    whole = dataclasses.replace(linter, filter="file")
    found, ran = run(whole, file, content, place, _timeout(linter, budget))
    old = file.old_content()
    if not found or old is None or ran.status != "ok" or looks_binary(old):
        return found, ran
    before, ran_before = run(whole, file, old, place, _timeout(linter, budget))
    if ran_before.status != "ok":
        return found, ran  # nothing to compare with: all of it is reported
    known = Counter(_baseline_key(finding) for finding in before)
    new = []
    for finding in found:
        key = _baseline_key(finding)
        if known[key]:
            known[key] -= 1
        else:
            new.append(finding)
    return new, ran


def _timeout(linter: LinterConfig, budget: Budget) -> float:
    """The linter's own timeout, or what is left of the review's budget if that is less."""
    return max(0.1, min(linter.timeout, budget.remaining()))


def _baseline_key(finding: Finding) -> tuple[str, str]:
    # Line numbers move; the rule and the line's own text do not (whitespace aside).
    return finding.rule, " ".join((finding.snippet or finding.message).split())


def wants(linter: LinterConfig, path: str) -> bool:
    return matches_any(path, linter.files)


def _touches(item: RawFinding, added: set[int]) -> bool:
    """reviewdog's `added` mode: kept if any line of its range was added; file-level dropped."""
    if item.line is None or item.line <= 0:
        return False
    end = item.end_line if item.end_line and item.end_line >= item.line else item.line
    return any(number in added for number in range(item.line, end + 1))


def _severity(level: str | None, default: Severity) -> Severity:
    return {
        "error": Severity.ERROR,
        "warning": Severity.WARNING,
        "note": Severity.INFO,
        "info": Severity.INFO,
    }.get((level or "").lower(), default)


def parse(linter: LinterConfig, output: str) -> list[RawFinding]:
    if linter.format == "ruff-json":
        return _ruff(output)
    if linter.format == "sarif":
        return _sarif(output)
    assert linter.pattern is not None
    return _regex(re.compile(linter.pattern), output)


def _ruff(output: str) -> list[RawFinding]:
    found = []
    for item in json.loads(output or "[]"):
        location, end = item.get("location") or {}, item.get("end_location") or {}
        found.append(
            RawFinding(
                location.get("row"),
                end.get("row"),
                str(item.get("code") or ""),
                str(item["message"]),
            )
        )
    return found


def _sarif(output: str) -> list[RawFinding]:
    document: dict[str, Any] = json.loads(output)
    found = []
    for run_ in document.get("runs", []):
        for result in run_.get("results", []):
            region: dict[str, Any] = {}
            for location in result.get("locations", [])[:1]:
                region = location.get("physicalLocation", {}).get("region", {})
            message = result.get("message", {})
            found.append(
                RawFinding(
                    region.get("startLine"),
                    region.get("endLine"),
                    str(result.get("ruleId", "")),
                    str(message.get("text") or message.get("markdown") or ""),
                    result.get("level"),
                )
            )
    return found


def _regex(pattern: re.Pattern[str], output: str) -> list[RawFinding]:
    found = []
    for line in output.splitlines():
        match = pattern.search(line)
        if match is None:
            continue
        groups = match.groupdict()
        end = groups.get("end_line")
        found.append(
            RawFinding(
                int(groups["line"]),
                int(end) if end else None,
                groups.get("code") or "",
                groups["message"].strip(),
                groups.get("severity"),
            )
        )
    return found
