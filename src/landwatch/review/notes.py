"""Optional git notes: with `git config landwatch.notes true`, a one-line summary of each review
is written as a note on the reviewed commit under refs/notes/landwatch.
"""

from __future__ import annotations

import os

import pygit2

from landwatch.review.change import open_repository
from landwatch.review.report import Report
from landwatch.text import safe

NOTES_REF = "refs/notes/landwatch"


def enabled(repo: pygit2.Repository) -> bool:
    try:
        return bool(repo.config.get_bool("landwatch.notes"))
    except (KeyError, pygit2.GitError, ValueError):
        return False


def summary(report: Report) -> str:
    """The note's text: `git log --notes` prints it raw, so what came from the repository (paths,
    messages, a linter's rule names) is made printable first."""
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


def write_note_if_enabled(git_dir: os.PathLike[str] | str, report: Report) -> bool:
    repo = open_repository(git_dir)
    if not enabled(repo):
        return False
    try:
        signature = repo.default_signature
    except (KeyError, pygit2.GitError):
        signature = pygit2.Signature("landwatch", "landwatch@localhost")
    repo.create_note(summary(report), signature, signature, report.commit, NOTES_REF, True)
    return True
