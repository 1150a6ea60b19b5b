"""`landwatch show [REV | --unread]`: the findings of a commit's stored review, or every review
nobody has seen yet, in the terminal, as JSON or as SARIF; what is shown is marked read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from landwatch import report_store
from landwatch.git import commit_of, git, git_dir_of
from landwatch.review import output
from landwatch.review.report import Report
from landwatch.text import safe

OUTPUTS = ("text", "json", "sarif")


def print_reports(reports: list[Report], *, form: str, repository: Path) -> None:
    """The reports on stdout as `form` says: rich text, JSON, or one SARIF log."""
    if form == "json":
        print(output.as_json(reports))
    elif form == "sarif":
        print(json.dumps(output.as_sarif(reports, repository), indent=2))
    else:
        for report in reports:
            output.render(report)


def show(cwd: Path, *, revision: str | None, unread: bool, form: str) -> int:
    git_dir = git_dir_of(cwd)
    if unread:
        if revision is not None or form == "patch":
            print("landwatch: show either REV or --unread", file=sys.stderr)
            return 2
        return _show_unread(git_dir, form=form)
    if form == "patch":
        return show_patch(cwd, revision=revision)
    revision = revision or "HEAD"
    oid = commit_of(revision, cwd=cwd)
    if oid is None:
        print(f"landwatch: no commit {revision!r} in this repository", file=sys.stderr)
        return 1
    found = report_store.read(git_dir, oid)
    if found is None and report_store.stored(git_dir, oid):
        print(
            f"landwatch: the stored review of {oid[:12]} cannot be read (corrupt); review it "
            f"again: landwatch review {oid[:12]}",
            file=sys.stderr,
        )
        return 1
    if found is None:
        print(
            f"landwatch: no review of {oid[:12]} yet (the reviewer has not reached it, or it "
            f"landed before landwatch was installed): landwatch review {oid[:12]}",
            file=sys.stderr,
        )
        return 1
    print_reports([found], form=form, repository=git_dir.parent)
    report_store.mark_read(git_dir, oid)
    return 0


def _show_unread(git_dir: Path, *, form: str) -> int:
    reports = report_store.unread_reports(git_dir)
    if form == "json":
        print(json.dumps([report.as_dict() for report in reports], indent=2))
    elif form == "sarif":
        print_reports(reports, form=form, repository=git_dir.parent)
    elif not reports:
        print("landwatch: no unread reviews")
    for report in reports:
        if form == "text":
            subject = git("log", "-1", "--format=%s", report.commit, "--", cwd=git_dir, check=False)
            output.render_line(report, subject)
        report_store.mark_read(git_dir, report.commit)
    return 0


def show_patch(cwd: Path, *, revision: str | None) -> int:
    """`landwatch show REV --patch`: what the project's hooks would change in the commit (a
    fixing hook's work), as a patch `git apply` takes; on a terminal, its escapes shown as
    text, never obeyed."""
    git_dir = git_dir_of(cwd)
    revision = revision or "HEAD"
    oid = commit_of(revision, cwd=cwd)
    if oid is None:
        print(f"landwatch: no commit {revision!r} in this repository", file=sys.stderr)
        return 1
    hooks = report_store.read_hooks(git_dir, oid)
    if hooks is None:
        print(f"landwatch: the project's hooks have not run on {oid[:12]}", file=sys.stderr)
        return 1
    if not hooks.patch:
        print(f"landwatch: the project's hooks change nothing of {oid[:12]}", file=sys.stderr)
        return 1
    if sys.stdout.isatty():
        sys.stdout.write("".join(f"{safe(line)}\n" for line in hooks.patch.splitlines()))
    else:
        sys.stdout.write(hooks.patch)
    return 0
