"""`landwatch show [REV | --unread]`: the findings of a commit's stored review, or of the reviews
nobody has seen yet, in the terminal, as JSON or as SARIF; what is shown whole is marked read.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from landwatch import allowances, layout, line_markers, registry, report_store
from landwatch.errors import UsageError
from landwatch.git import git, git_dir_and_commit, git_dir_of, toplevel
from landwatch.json_out import strict_json
from landwatch.one_line import SHOW_UNREAD
from landwatch.review import output
from landwatch.review.report import Report, severity_counts
from landwatch.text import plural, safe

OUTPUTS = ("text", "json", "sarif")
# Reviews `show --unread` prints whole in the terminal at once; more would scroll the worst away.
IN_FULL = 5


def show(cwd: Path, *, revision: str | None, unread: bool, form: str) -> int:
    if unread:
        if revision is not None or form == "patch":
            raise UsageError("REV or --unread, not both")
        git_dir = git_dir_of(cwd)
        return 1 if _not_made_here(git_dir) else _show_unread(cwd, git_dir, form=form)
    if form == "patch":
        return show_patch(cwd, revision=revision)
    git_dir, oid = _commit_named(revision, cwd)
    if oid is None or _not_made_here(git_dir):
        return 1
    found = report_store.read(git_dir, oid)
    if found is None and report_store.stored(git_dir, oid):
        _corrupt(oid)
        return 1
    if found is None and (shared := shared_review(git_dir, oid)) is not None:
        # A teammate's commit that arrived by fetch and never landed here: what they shared.
        report, others = shared
        print(
            f"landwatch: {oid[:12]} has no review made here; this is the one "
            f"{safe(report.reviewed_by or '?')} shared (landwatch review {oid[:12]} makes one)",
            file=sys.stderr,
        )
        if others:
            print(
                f"landwatch: the {others + 1} shared reviews of {oid[:12]} disagree: this is the "
                "one that found the most",
                file=sys.stderr,
            )
        output.print_reports([report], form=form, repository=lambda: toplevel(cwd) or git_dir)
        return 0
    if found is None:
        print(
            f"landwatch: no review of {oid[:12]} yet (the reviewer has not reached it, or it "
            f"landed before landwatch was installed): landwatch review {oid[:12]}",
            file=sys.stderr,
        )
        return 1
    shown = _with_allowed(git_dir, [found])
    output.print_reports(shown, form=form, repository=lambda: toplevel(cwd) or git_dir)
    line_markers.shown(git_dir, oid)
    return 0


def shared_review(git_dir: Path, commit: str) -> tuple[Report, int] | None:
    """The review of `commit` a teammate shared in the notes here (the local ref, and the
    sharing remote's fetched one) that found the most, the newest of those alike, as its report
    saying whose it is; and, where the others contradict it (sharing.disagree: the rule by which
    a reviewer takes none of them), how many others there are, else 0. None when nobody shared
    one. Never the newest as such: a forged clean review dated ahead hid one that found a key."""
    from landwatch import sharing
    from landwatch.review.change import open_repository
    from landwatch.review.linters import NO_LINTERS
    from landwatch.review.notes import NOTES_REF

    remote = layout.read_git_settings(git_dir)[layout.SHARE_REMOTE]
    refs = (NOTES_REF, *((sharing.tracking_ref(remote),) if remote else ()))
    finder = sharing.Finder(git_dir, open_repository(git_dir), NO_LINTERS, refs)
    reviews = finder.reviews(commit)
    if not reviews:
        return None
    shown = max(reviews, key=lambda review: (_worst_first(review.report), review.reviewed_at))
    report = dataclasses.replace(shown.report, reviewed_by=shown.reviewed_by)
    return report, len(reviews) - 1 if sharing.disagree(shown, reviews) else 0


def _worst_first(report: Report) -> tuple[int, ...]:
    """How many findings `report` has of each severity, the worst first, to be compared."""
    return tuple(reversed(severity_counts(report.findings).values()))


def _show_unread(cwd: Path, git_dir: Path, *, form: str) -> int:
    """The unread reviews whole, the worst first, each marked read once shown whole; in the
    terminal at most IN_FULL of them, the rest listed a line each and left unread."""
    kept, unreadable = report_store.unread_reports(git_dir)  # newest first
    reports = _with_allowed(git_dir, kept)
    for commit in unreadable:  # left unread: the one line goes on telling it until reviewed
        _corrupt(commit)
    if form != "text":
        if form == "json":
            print(strict_json([report.as_dict() for report in reports], indent=2))
        else:
            output.print_reports(reports, form=form, repository=lambda: toplevel(cwd) or git_dir)
        for report in reports:
            line_markers.shown(git_dir, report.commit)
        return 1 if unreadable else 0
    if not reports:
        print("landwatch: no other unread review" if unreadable else "landwatch: no unread reviews")
        return 1 if unreadable else 0
    # The worst first; a stable sort keeps the newest first among reviews as bad as each other.
    ordered = sorted(reports, key=lambda report: report.worst(), reverse=True)
    for number, report in enumerate(ordered[:IN_FULL]):
        if number:
            print()
        output.render(report, subject=_subject(git_dir, report))
        line_markers.shown(git_dir, report.commit)
    rest = ordered[IN_FULL:]
    if rest:
        more = plural(len(rest), "more review")
        print(f"\nlandwatch: {more} unread, not shown yet ({SHOW_UNREAD} again):")
        for report in rest:
            output.render_line(report, _subject(git_dir, report))
    return 1 if unreadable else 0


def _corrupt(commit: str) -> None:
    print(
        f"landwatch: the stored review of {commit[:12]} cannot be read (corrupt); review it "
        f"again: landwatch review {commit[:12]}",
        file=sys.stderr,
    )


def _with_allowed(git_dir: Path, reports: list[Report]) -> list[Report]:
    """`reports`, each with the allowances that cover its findings (`landwatch allow`, here or
    carried by a teammate's note); a store that cannot be read wholly said in one line."""
    here, problem = allowances.read(git_dir)
    if problem is not None:
        print(f"landwatch: {safe(problem)}", file=sys.stderr)
    return [
        dataclasses.replace(report, allowed=allowances.covering(git_dir, report, here))
        for report in reports
    ]


def _subject(git_dir: Path, report: Report) -> str:
    return git("log", "-1", "--format=%s", report.commit, "--", cwd=git_dir, check=False)


def show_patch(cwd: Path, *, revision: str | None) -> int:
    """`landwatch show REV --patch`: what the project's hooks would change in the commit (a
    fixing hook's work), as a patch `git apply` takes; on a terminal, its escapes shown as
    text, never obeyed."""
    git_dir, oid = _commit_named(revision, cwd)
    if oid is None or _not_made_here(git_dir):
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


def _commit_named(revision: str | None, cwd: Path) -> tuple[Path, str | None]:
    """The git dir, and the commit `revision` (HEAD by default) names; None, and one line
    saying so, when the repository has no such commit."""
    revision = revision or "HEAD"
    git_dir, oid = git_dir_and_commit(revision, cwd=cwd)
    if oid is None:
        print(f"landwatch: no commit {revision!r} in this repository", file=sys.stderr)
    return git_dir, oid


def _not_made_here(git_dir: Path) -> bool:
    """Whether the repository holds reviews landwatch did not keep here (a copy's, an unpacked
    archive's, whose author wrote them): shown as landwatch's they would speak for it. Said."""
    if not layout.repository_dir(git_dir).is_dir() or registry.ours(git_dir):
        return False
    print(
        "landwatch: the reviews in this repository were not kept by landwatch here (a copy, or "
        "an unpacked archive); landwatch install sets them aside and reviews what lands next",
        file=sys.stderr,
    )
    return True
