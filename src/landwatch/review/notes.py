"""Git notes of reviews: a summary of each review written as a note on the reviewed commit under
refs/notes/landwatch (the review kind writes one when `landwatch.notes` asks for it).
"""

from __future__ import annotations

import os

import pygit2

from landwatch.review.change import open_repository
from landwatch.review.report import Report
from landwatch.text import safe

NOTES_REF = "refs/notes/landwatch"


def summary(report: Report) -> str:
    """The note's text: `git log --notes` prints it raw, so what came from the repository (paths,
    messages, a linter's rule names) is made printable first. Its secrets, a token in a file
    name too, were redacted by the review that made the report."""
    lines = [f"landwatch: {report.summary()}"]
    for finding in report.findings[:20]:
        where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "change")
        said = f"{finding.severity.name.lower()} {finding.rule} {where} {finding.message}"
        lines.append(safe(said))
    if len(report.findings) > 20:
        lines.append(
            f"... and {len(report.findings) - 20} more: landwatch show {report.commit[:12]}"
        )
    return "\n".join(lines) + "\n"


def write_note(git_dir: os.PathLike[str] | str, report: Report) -> None:
    """The review's summary as the note of its commit, replacing any note landwatch left."""
    repo = open_repository(git_dir)
    try:
        signature = repo.default_signature
    except (KeyError, pygit2.GitError):
        signature = pygit2.Signature("landwatch", "landwatch@localhost")
    repo.create_note(summary(report), signature, signature, report.commit, NOTES_REF, True)
