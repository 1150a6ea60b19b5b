"""Showing reports: a styled view grouped by file, JSON, and SARIF 2.1.0 for editors and CI.

Everything taken from a repository (paths, lines, messages) is shown as text, never as markup,
with control characters escaped. A report arrives redacted (the review's one redaction step);
what is read from the repository here, a commit's subject, is redacted before it is shown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import __version__
from landwatch.json_out import percent_encoded, strict_json
from landwatch.review.allowed import allowing
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import printable
from landwatch.text import plural, safe

if TYPE_CHECKING:
    from landwatch.styled import Out, Span

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MESSAGE = "(the commit message, by its line numbers)"


def render(report: Report, out: Out | None = None, *, subject: str = "") -> None:
    """The whole report grouped by file; `subject`, the commit's, under its heading."""
    from landwatch.styled import Out

    out = out or Out()
    out.wrapped([], _heading(report))
    if subject:
        out.wrapped([], [(_subject(subject), "dim")])
    grouped: dict[str | None, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        # A finding with a line but no path is on a line of the commit message.
        key = finding.path if finding.path is not None else (MESSAGE if finding.line else None)
        grouped[key].append(finding)
    for path in sorted(grouped, key=lambda p: (p is not None, p != MESSAGE, p or "")):
        shown = "(the change as a whole)" if path is None else path
        out.wrapped([], [(shown if path in (None, MESSAGE) else safe(shown), "bold underline")])
        width = max(len(str(f.line or "")) for f in grouped[path])
        for finding in grouped[path]:
            lead = [
                ("  ", ""),
                (f"{finding.line or '':>{width}} ", "dim"),
                (f"{finding.severity.name.lower():<7} ", STYLES[finding.severity]),
            ]
            out.wrapped(lead, _body(report, finding))
            # A snippet is the line found; a project hook's, what the hook said, a line each:
            # lines, so a tab is shown as the spaces it stands for, not as an escape.
            bar = [(f"  {'':>{width}} │ ", "dim")]
            for said in finding.snippet.split("\n") if finding.snippet else ():
                out.wrapped(bar, [(safe(said, tabs=True)[:200], "dim")], bar)
    for note in report.notes:
        out.wrapped([("note: ", "dim")], [(safe(note), "dim")])
    problems = [run for run in report.linters if run.get("status") != "ok"]
    for run in problems:
        said = (
            f"linter {safe(run['linter'])} on {safe(run['path'])}: "
            f"{safe(run['status'])} {safe(run.get('detail', ''))}"
        )
        out.wrapped([("note: ", "dim")], [(said, "dim")])


def _body(report: Report, finding: Finding) -> list[Span]:
    """What a finding says after its line and severity: its rule, its message, whose standard
    it is, and whether it was found here alone or allowed."""
    body = [(f"{safe(finding.rule)} {safe(finding.name)}: ", "bold"), (safe(finding.message), "")]
    if finding.basis is not None:
        # Whose standard it is: what the project declared, what its history showed, or
        # landwatch's default (docs/review.md, "Whose standards?").
        body.append((f" [{safe(str(finding.basis))}]", "dim"))
    if report.reviewed_by is not None and finding.fingerprint in report.found_here:
        body.append((" (found here, not in the shared review)", "magenta"))
    allowance = allowing(report.allowed, report.commit, finding)
    if allowance is not None:  # `landwatch allow`: why, by whom, when
        body.append((f" (allowed: {allowance.described()})", "green"))
    return body


def _heading(report: Report) -> list[Span]:
    """What was reviewed, whence the review came (carried over, a teammate's), what it found."""
    carried = f", carried over from {safe(report.carried_from[:12])}" if report.carried_from else ""
    head = [
        (f"landwatch review of {safe(report.label)}", "bold"),
        (f" ({safe(report.shape)}{carried})", ""),
    ]
    if report.reviewed_by is not None:
        # A teammate's review, taken from their git note: whose it is, as their note says.
        head.append((f", shared by {safe(report.reviewed_by)[:254] or 'someone'}", "magenta"))
    head += [
        (": ", ""),
        (report.summary(), STYLES.get(report.worst(), "green")),
        (
            f" · {plural(len(report.rules), 'rule')}"
            f" · {plural(report.lines_checked, 'added line')} checked"
            f" · {report.duration * 1000:.0f} ms",
            "dim",
        ),
    ]
    return head


def render_line(report: Report, subject: str, out: Out | None = None) -> None:
    """One line for a list of reviews: the commit, what was found, the subject."""
    from landwatch.styled import Out

    line = [
        (f"{safe(report.label)[:12]}  ", "bold"),
        (report.summary(), STYLES.get(report.worst(), "green")),
    ]
    if subject:
        line.append((f"  {_subject(subject)}", "dim"))
    (out or Out()).print(*line)


def _subject(subject: str) -> str:
    # Its secrets redacted before it is cut short, so no token is cut to where it is no longer
    # found.
    return printable(subject)[:100]


def as_json(reports: list[Report]) -> str:
    data: Any = reports[0].as_dict() if len(reports) == 1 else [r.as_dict() for r in reports]
    return strict_json(data, indent=2)


def _sarif_result(finding: Finding, rule_index: int) -> dict[str, Any]:
    """One finding as a SARIF result: where it is, and whose standard decided it."""
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": SARIF_LEVELS[finding.severity],
        "message": {"text": finding.message},
        "partialFingerprints": {"landwatch/v1": finding.fingerprint},
    }
    if finding.basis is not None:
        result["properties"] = {"decidedBy": finding.basis.as_dict()}
    if finding.path is not None:
        location: dict[str, Any] = {
            # A URI (RFC 3986): the path's own bytes, percent-encoded.
            "artifactLocation": {"uri": percent_encoded(finding.path)}
        }
        if finding.line:
            region: dict[str, Any] = {"startLine": finding.line}
            if finding.end_line and finding.end_line >= finding.line:
                region["endLine"] = finding.end_line
            location["region"] = region
        result["locations"] = [{"physicalLocation": location}]
    return result


def _sarif_rule(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.rule,
        "name": finding.name,
        "shortDescription": {"text": finding.name},
        "defaultConfiguration": {"level": SARIF_LEVELS[finding.severity]},
    }


def as_sarif_range(reports: list[Report], repository: Path, label: str, tip: str) -> dict[str, Any]:
    """One SARIF run for the reviews of a range's commits (`landwatch ci`), for GitHub code
    scanning: each result says its commit; a finding with no place in a file (the commit
    message, the change as a whole) is a tool notification, since code scanning takes only
    results with a location."""
    rules: dict[str, dict[str, Any]] = {}
    results, notifications = [], []
    for report in reports:
        for finding in report.findings:
            rules.setdefault(finding.rule, _sarif_rule(finding))
            if finding.path is None:
                notifications.append(
                    {
                        "level": SARIF_LEVELS[finding.severity],
                        "message": {"text": f"{report.commit[:12]}: {finding.message}"},
                        "descriptor": {"id": finding.rule},
                        "properties": {"commit": report.commit, "line": finding.line},
                    }
                )
                continue
            result = _sarif_result(finding, list(rules).index(finding.rule))
            result.setdefault("properties", {})["commit"] = report.commit
            results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {**_driver(), "rules": list(rules.values())}},
        "results": results,
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "versionControlProvenance": [
            {"repositoryUri": repository.resolve().as_uri(), "revisionId": tip}
        ],
        "properties": {
            "range": label,
            "commits": [report.commit for report in reports],
            "truncated": [report.commit for report in reports if report.truncated],
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _driver() -> dict[str, str]:
    return {
        "name": "landwatch",
        "version": __version__,
        "informationUri": "https://github.com/landwatch/landwatch",
    }


def as_sarif(reports: list[Report], repository: Path) -> dict[str, Any]:
    """One SARIF run per report; results carry line-move-proof partial fingerprints."""
    runs = []
    for report in reports:
        rules: dict[str, dict[str, Any]] = {}
        results = []
        for finding in report.findings:
            rules.setdefault(finding.rule, _sarif_rule(finding))
            result = _sarif_result(finding, list(rules).index(finding.rule))
            results.append(result)
        runs.append(
            {
                "tool": {"driver": {**_driver(), "rules": list(rules.values())}},
                "results": results,
                "versionControlProvenance": [
                    {
                        "repositoryUri": repository.resolve().as_uri(),
                        "revisionId": report.commit,
                    }
                ],
                "properties": _properties(report),
            }
        )
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": runs}


def _properties(report: Report) -> dict[str, Any]:
    """What SARIF has no field for: whether lines went unchecked, the notes, the range, and the
    commit whose review was carried over to this one."""
    properties: dict[str, Any] = {
        "truncated": report.truncated,
        "notes": report.notes,
        "range": report.label,
    }
    if report.carried_from:
        properties["carriedFrom"] = report.carried_from
    return properties


def print_reports(reports: list[Report], *, form: str, repository: Callable[[], Path]) -> None:
    """The reports on stdout as `form` says: styled text, JSON, or one SARIF log, which names
    the worktree `repository` finds (asked only then: it may cost a git process)."""
    if form == "json":
        print(as_json(reports))
    elif form == "sarif":
        print(strict_json(as_sarif(reports, repository()), indent=2))
    else:
        for report in reports:
            render(report)
