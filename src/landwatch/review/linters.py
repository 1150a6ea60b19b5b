"""The project's own linters as the review sees them: which may run (the caller's LinterPolicy:
the person's own, and a repository's committed ones once the person trusted exactly them and the
configuration files they are given, review.pinned), and what they said read into findings, kept
to the lines the change added (reviewdog's `added` filter), to what is new against the file
before the change (`baseline`, graylint's method), or to the whole file on request.

Running them is not the review's: the policy's `runner` does it (landwatch.wall.linters, behind
the wall); without one, nothing runs.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import pygit2

from landwatch.review.budget import Budget
from landwatch.review.change import Change, FileChange
from landwatch.review.config import LinterConfig
from landwatch.review.findings import (
    DECLARED,
    Basis,
    Finding,
    Severity,
    content_lines,
    fingerprint,
    line_text,
)
from landwatch.review.globs import matches_any
from landwatch.review.regexes import SafePattern, compile_safe

if TYPE_CHECKING:
    from landwatch.review.pinned import Pinned

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


class RawFinding(NamedTuple):
    line: int | None
    end_line: int | None
    code: str
    message: str
    level: str | None = None


def _never(digest: str) -> str:
    return NOT_TRUSTED


@dataclass
class Linted:
    findings: list[Finding] = field(default_factory=list)
    runs: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    held_back: str | None = None  # the digest of committed linters not run for want of trust


class Allowed(NamedTuple):
    """What a review lets run: the linters, the files they may want, the repository's
    configuration files given to them, and the digest they were trusted by (asked again before
    each run; None: nothing of the repository's is given)."""

    linters: list[LinterConfig]
    files: dict[str, FileChange]
    given: dict[str, bytes]
    trusted: str | None


class LinterRunner(Protocol):
    """What runs the allowed linters, their findings and runs added to `outcome`."""

    def __call__(
        self, allowed: Allowed, policy: LinterPolicy, outcome: Linted, budget: Budget
    ) -> None: ...


class LinterPolicy(NamedTuple):
    """Which linters a review may run, and how. `own` are the person's (trusted by definition);
    the repository's committed linters run, and its configuration files are given to linters,
    when `vet`, given the digest of what review.pinned pins, answers None; otherwise its answer
    says why not. It is asked again before every run, so a trust withdrawn mid-review stops the
    next command. `walled_off` says why nothing of a repository may run at all (no wall)."""

    own: tuple[LinterConfig, ...] = ()
    vet: Callable[[str], str | None] = _never
    problems: tuple[str, ...] = ()  # the person's own configuration could not be read
    scratch: Path | None = None  # where workspaces are made (None: the temporary directory)
    sandboxed: bool = True  # behind the wall (False: the person said landwatch.sandbox false)
    runner: LinterRunner | None = None  # None: nothing runs (the review's own tests)
    walled_off: str | None = None
    # The wall, its runner and the scratch place, when the caller leaves them to be chosen
    # only once a linter is to run: choosing costs imports a review without linters skips.
    decide: Callable[[], LinterPolicy] | None = None

    def decided(self) -> LinterPolicy:
        """The whole policy, its wall chosen now where that was left until it was needed."""
        return self if self.decide is None else self.decide()


NO_LINTERS = LinterPolicy()


def run_all(
    change: Change,
    files: dict[str, FileChange],
    committed: list[LinterConfig],
    policy: LinterPolicy,
    budget: Budget,
    tree: pygit2.Tree | None = None,
) -> Linted:
    """What the policy allows of the linters, handed to its runner with the configuration files
    of `tree`, where the review read its own (by default the landed commit's: `landwatch ci`
    reads the range's base), within the review's `budget`."""
    outcome = Linted()
    if not (committed or policy.own):
        return outcome
    policy = policy.decided()
    from landwatch.review.pinned import pin  # only where a linter is to run

    pinned = pin(change.repo, change.commit.tree if tree is None else tree, committed)
    if policy.walled_off is not None:
        trusted = False
        if committed or pinned.given():
            outcome.notes.append(policy.walled_off)
    else:
        verdict = policy.vet(pinned.digest)
        trusted = verdict is None
        if committed and verdict is not None:
            outcome.notes.append(verdict)
            outcome.held_back = pinned.digest
        if not trusted and pinned.given():
            outcome.notes.append(_without_configuration(pinned))
    allowed = [*policy.own, *(committed if trusted else [])]
    if not allowed or policy.runner is None:
        return outcome
    given = pinned.given() if trusted else {}
    order = Allowed(allowed, files, given, pinned.digest if trusted else None)
    policy.runner(order, policy, outcome, budget)
    return outcome


def _without_configuration(pinned: Pinned) -> str:
    names = ", ".join(sorted(pinned.given()))
    return (
        f"your own linters ran without this repository's configuration ({names}): it is not "
        "trusted here; `landwatch trust` shows it and allows it"
    )


def findings_of(
    linter: LinterConfig, file: FileChange, content: bytes, raw: list[RawFinding]
) -> list[Finding]:
    """What a linter said of `file` as findings, kept as its filter says."""
    added = sorted({line.number for line in file.added_lines})
    lines = content_lines(content)
    findings = []
    for occurrence, item in enumerate(raw):
        if linter.filter == "added" and not _touches(item, added):
            continue
        text = line_text(lines, item.line)
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
    return findings


def unparsable(linter: LinterConfig, error: Exception, stderr: bytes) -> str:
    """Why a linter's output could not be read, in a line, with the cure where it is known."""
    said = stderr[:500].decode("utf-8", errors="replace").strip()
    if linter.format == "ruff-json" and said.startswith("["):
        # ruff with `fix = true` writes the fixed source on stdout, its JSON on stderr.
        return (
            "output not ruff-json: the JSON came on stderr, so ruff fixed the file instead "
            "(fix = true in its configuration?): add --no-fix to the command"
        )
    return f"output not {linter.format} ({error})" + (f": {said}" if said else "")


def baseline_key(finding: Finding) -> tuple[str, str]:
    # Line numbers move; the rule and the line's own text do not (whitespace aside).
    return finding.rule, " ".join((finding.snippet or finding.message).split())


def wants(linter: LinterConfig, path: str) -> bool:
    return matches_any(path, linter.files)


def _touches(item: RawFinding, added: list[int]) -> bool:
    """reviewdog's `added` mode: kept if any line of its range was added; file-level dropped.
    `added` sorted: found by bisection, never by walking a range a linter said, 10^15 long."""
    if item.line is None or item.line <= 0:
        return False
    end = item.end_line if item.end_line and item.end_line >= item.line else item.line
    first = bisect.bisect_left(added, item.line)
    return first < len(added) and added[first] <= end


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
    return _regex(compile_safe(linter.pattern), output)


def _ruff(output: str) -> list[RawFinding]:
    found = []
    for item in _listed(json.loads(output or "[]"), "a list"):
        item = _table(item)
        location, end = _table(item.get("location")), _table(item.get("end_location"))
        found.append(
            RawFinding(
                _number(location.get("row")),
                _number(end.get("row")),
                str(item.get("code") or ""),
                str(item["message"]),
            )
        )
    return found


def _sarif(output: str) -> list[RawFinding]:
    document = json.loads(output)
    if not isinstance(document, dict):
        raise ValueError("not a SARIF object")
    found = []
    for run_ in _listed(document.get("runs", []), "runs: a list"):
        for result in _listed(_table(run_).get("results", []), "results: a list"):
            result = _table(result)
            region: dict[str, Any] = {}
            for location in _listed(result.get("locations", []), "locations: a list")[:1]:
                region = _table(_table(_table(location).get("physicalLocation")).get("region"))
            message = _table(result.get("message"))
            level = result.get("level")
            found.append(
                RawFinding(
                    _number(region.get("startLine")),
                    _number(region.get("endLine")),
                    str(result.get("ruleId", "")),
                    str(message.get("text") or message.get("markdown") or ""),
                    level if isinstance(level, str) else None,
                )
            )
    return found


# What a linter printed is read outside the wall as the shape its format says, or not at all: a
# tool's `{"error": ...}` where a list belongs raised AttributeError through the whole review.
def _listed(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"not {what}")
    return value


def _table(value: Any) -> dict[str, Any]:
    """An object where one was written; anything else reads as an empty one."""
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> int | None:
    """A line number as written (an integer, not true or "1"); anything else: none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _regex(pattern: SafePattern, output: str) -> list[RawFinding]:
    found = []
    for line in output.splitlines():
        match = pattern.match_in(line)
        if match is None:
            continue
        groups = match.groupdict()
        end = groups.get("end_line")
        found.append(
            RawFinding(
                int(groups["line"]),
                int(end) if end else None,
                groups.get("code") or "",
                (groups.get("message") or "").strip(),
                groups.get("severity"),
            )
        )
    return found
