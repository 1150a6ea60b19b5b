"""Showing reports: a rich view grouped by file, JSON, and SARIF 2.1.0 for editors and CI.

Everything taken from a repository (paths, lines, messages) is shown as text, never as markup,
with control characters escaped. A report arrives redacted (the review's one redaction step);
what is read from the repository here, a commit's subject, is redacted before it is shown.
"""

from __future__ import annotations

import json
import urllib.parse
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import __version__
from landwatch.review.allowed import allowing
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import redact_secrets
from landwatch.text import plural, safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MESSAGE = "(the commit message, by its line numbers)"


def _console() -> Console:
    """rich's console for stdout: on a terminal, lines wrapped at words to its width; into a
    file or a pipe, each line whole (for grep, and for a reader that wraps it itself)."""
    from rich.console import Console

    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal
    return console


def print_wrapped(console: Console, lead: Text, body: Text, then: Text | str | None = None) -> None:
    """`lead` then `body`, wrapped at words to the console's width (a terminal would break
    words), every later line led by `then` (by default, spaces under the body's start)."""
    from rich.text import Text

    if console.soft_wrap:
        console.print(Text.assemble(lead, body))
        return
    later = " " * lead.cell_len if then is None else then
    width = max(lead.cell_len, len(later) if isinstance(later, str) else later.cell_len)
    parts = body.wrap(console, max(console.width - width, 20))
    for at, part in enumerate(parts):
        if at < len(parts) - 1:
            part.rstrip()  # the space a line was broken at; the last line's own end stays
        console.print(Text.assemble(lead if at == 0 else later, part))


def render(report: Report, console: Console | None = None, *, subject: str = "") -> None:
    """The whole report grouped by file; `subject`, the commit's, under its heading."""
    from rich.text import Text

    console = console or _console()
    console.print(_heading(report))
    if subject:
        console.print(Text(_subject(subject), style="dim"))
    grouped: dict[str | None, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        # A finding with a line but no path is on a line of the commit message.
        key = finding.path if finding.path is not None else (MESSAGE if finding.line else None)
        grouped[key].append(finding)
    for path in sorted(grouped, key=lambda p: (p is not None, p != MESSAGE, p or "")):
        console.print(
            Text(
                "(the change as a whole)"
                if path is None
                else (path if path == MESSAGE else safe(path)),
                style="bold underline",
            )
        )
        width = max(len(str(f.line or "")) for f in grouped[path])
        for finding in grouped[path]:
            lead = Text("  ")
            lead.append(f"{finding.line or '':>{width}} ", style="dim")
            lead.append(f"{finding.severity.name.lower():<7} ", style=STYLES[finding.severity])
            body = Text(f"{safe(finding.rule)} {safe(finding.name)}: ", style="bold")
            body.append(safe(finding.message))
            if finding.basis is not None:
                # Whose standard it is: what the project declared, what its history showed, or
                # landwatch's default (docs/review.md, "Whose standards?").
                body.append(f" [{safe(str(finding.basis))}]", style="dim")
            if report.reviewed_by is not None and finding.fingerprint in report.found_here:
                body.append(" (found here, not in the shared review)", style="magenta")
            allowance = allowing(report.allowed, report.commit, finding)
            if allowance is not None:  # `landwatch allow`: why, by whom, when
                body.append(f" (allowed: {allowance.described()})", style="green")
            print_wrapped(console, lead, body)
            # A snippet is the line found; a project hook's, what the hook said, a line each:
            # lines, so a tab is shown as the spaces it stands for, not as an escape.
            for said in finding.snippet.split("\n") if finding.snippet else ():
                snippet = Text(safe(said, tabs=True)[:200], style="dim")
                bar = Text(f"  {'':>{width}} │ ", style="dim")
                print_wrapped(console, bar, snippet, bar)
    for note in report.notes:
        print_wrapped(console, Text("note: ", style="dim"), Text(safe(note), style="dim"))
    problems = [run for run in report.linters if run.get("status") != "ok"]
    for run in problems:
        said = (
            f"linter {safe(run['linter'])} on {safe(run['path'])}: "
            f"{safe(run['status'])} {safe(run.get('detail', ''))}"
        )
        print_wrapped(console, Text("note: ", style="dim"), Text(said, style="dim"))


def _heading(report: Report) -> Text:
    """What was reviewed, whence the review came (carried over, a teammate's), what it found."""
    from rich.text import Text

    head = Text()
    head.append(f"landwatch review of {safe(report.label)}", style="bold")
    carried = f", carried over from {safe(report.carried_from[:12])}" if report.carried_from else ""
    head.append(f" ({report.shape}{carried})")
    if report.reviewed_by is not None:
        # A teammate's review, taken from their git note: whose it is, as their note says.
        head.append(f", shared by {safe(report.reviewed_by)[:254] or 'someone'}", style="magenta")
    head.append(": ")
    head.append(report.summary(), style=STYLES.get(report.worst(), "green"))
    head.append(
        f" · {plural(len(report.rules), 'rule')}"
        f" · {plural(report.lines_checked, 'added line')} checked"
        f" · {report.duration * 1000:.0f} ms",
        style="dim",
    )
    return head


def render_line(report: Report, subject: str, console: Console | None = None) -> None:
    """One line for a list of reviews: the commit, what was found, the subject."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False, soft_wrap=True)
    line = Text()
    line.append(f"{safe(report.label)[:12]}  ", style="bold")
    line.append(report.summary(), style=STYLES.get(report.worst(), "green"))
    if subject:
        line.append(f"  {_subject(subject)}", style="dim")
    console.print(line)


def _subject(subject: str) -> str:
    # Its secrets redacted before it is cut short, so no token is cut to where it is no longer
    # found.
    return safe(redact_secrets(subject))[:100]


def as_json(reports: list[Report]) -> str:
    data: Any = reports[0].as_dict() if len(reports) == 1 else [r.as_dict() for r in reports]
    return json.dumps(data, indent=2)


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
            # The path's own bytes, as pygit2 surrogate-escapes what is not UTF-8.
            "artifactLocation": {"uri": urllib.parse.quote(finding.path, errors="surrogateescape")}
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
