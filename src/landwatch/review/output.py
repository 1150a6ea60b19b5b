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
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import redact_secrets
from landwatch.text import plural, safe

if TYPE_CHECKING:
    from rich.console import Console

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MESSAGE = "(the commit message, by its line numbers)"


def render(report: Report, console: Console | None = None) -> None:
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False, soft_wrap=True)
    head = Text()
    head.append(f"landwatch review of {report.label}", style="bold")
    head.append(f" ({report.shape}): ")
    head.append(report.summary(), style=STYLES.get(report.worst(), "green"))
    head.append(
        f" · {plural(len(report.rules), 'rule')}"
        f" · {plural(report.lines_checked, 'added line')} checked"
        f" · {report.duration * 1000:.0f} ms",
        style="dim",
    )
    console.print(head)
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
            line = Text("  ")
            line.append(f"{finding.line or '':>{width}} ", style="dim")
            line.append(f"{finding.severity.name.lower():<7} ", style=STYLES[finding.severity])
            line.append(f"{safe(finding.rule)} {safe(finding.name)}: ", style="bold")
            line.append(safe(finding.message))
            console.print(line)
            # A snippet is the line found; a project hook's, what the hook said, a line each.
            for said in finding.snippet.split("\n") if finding.snippet else ():
                console.print(Text(f"  {'':>{width}} │ {safe(said)[:200]}", style="dim"))
    for note in report.notes:
        console.print(Text(f"note: {safe(note)}", style="dim"))
    problems = [run for run in report.linters if run.get("status") != "ok"]
    for run in problems:
        console.print(
            Text(
                f"note: linter {safe(run['linter'])} on {safe(run['path'])}: "
                f"{safe(run['status'])} {safe(run.get('detail', ''))}",
                style="dim",
            )
        )


def render_line(report: Report, subject: str, console: Console | None = None) -> None:
    """One line for a list of reviews: the commit, what was found, the subject (its secrets
    redacted before it is cut short, so no token is cut to where it is no longer found)."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False, soft_wrap=True)
    line = Text()
    line.append(f"{safe(report.label)[:12]}  ", style="bold")
    line.append(report.summary(), style=STYLES.get(report.worst(), "green"))
    if subject:
        line.append(f"  {safe(redact_secrets(subject))[:100]}", style="dim")
    console.print(line)


def as_json(reports: list[Report]) -> str:
    data: Any = reports[0].as_dict() if len(reports) == 1 else [r.as_dict() for r in reports]
    return json.dumps(data, indent=2)


def as_sarif(reports: list[Report], repository: Path) -> dict[str, Any]:
    """One SARIF run per report; results carry line-move-proof partial fingerprints."""
    runs = []
    for report in reports:
        rules: dict[str, dict[str, Any]] = {}
        results = []
        for finding in report.findings:
            if finding.rule not in rules:
                rules[finding.rule] = {
                    "id": finding.rule,
                    "name": finding.name,
                    "shortDescription": {"text": finding.name},
                    "defaultConfiguration": {"level": SARIF_LEVELS[finding.severity]},
                }
            result: dict[str, Any] = {
                "ruleId": finding.rule,
                "ruleIndex": list(rules).index(finding.rule),
                "level": SARIF_LEVELS[finding.severity],
                "message": {"text": finding.message},
                "partialFingerprints": {"landwatch/v1": finding.fingerprint},
            }
            if finding.path is not None:
                location: dict[str, Any] = {
                    # The path's own bytes, as pygit2 surrogate-escapes what is not UTF-8.
                    "artifactLocation": {
                        "uri": urllib.parse.quote(finding.path, errors="surrogateescape")
                    }
                }
                if finding.line:
                    region: dict[str, Any] = {"startLine": finding.line}
                    if finding.end_line and finding.end_line >= finding.line:
                        region["endLine"] = finding.end_line
                    location["region"] = region
                result["locations"] = [{"physicalLocation": location}]
            results.append(result)
        runs.append(
            {
                "tool": {
                    "driver": {
                        "name": "landwatch",
                        "version": __version__,
                        "informationUri": "https://github.com/landwatch/landwatch",
                        "rules": list(rules.values()),
                    }
                },
                "results": results,
                "versionControlProvenance": [
                    {
                        "repositoryUri": repository.resolve().as_uri(),
                        "revisionId": report.commit,
                    }
                ],
                "properties": {
                    "truncated": report.truncated,
                    "notes": report.notes,
                    "range": report.label,
                },
            }
        )
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": runs}
