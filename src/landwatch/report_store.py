"""Where reviews are kept: each report written durably into the repository's landwatch dir before
its item is settled (a repeat run overwrites it), read back by `show`, and the unread markers
through which the hooks' one line announces a review with findings once.

What the project's hooks said of a commit (the `project_hooks` kind) is kept beside its review,
in a file of its own, and joined to it when it is read: the two kinds never write one file, so
neither waits for the other, and neither overwrites what the other found.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Protocol

from landwatch import layout
from landwatch.files import list_entries, read_file, remove, write_atomic
from landwatch.review.findings import Finding, Severity
from landwatch.review.project_hooks.results import HooksResult, joined
from landwatch.review.report import Report


class Told(Protocol):
    """What is told of a commit: a review, or what the project's hooks said."""

    @property
    def commit(self) -> str: ...

    @property
    def findings(self) -> list[Finding]: ...


def write(
    git_dir: os.PathLike[str] | str, report: Report, *, replaces: Report | None = None
) -> Path:
    """Durably (synced before it returns); marked unread when it has something to say.

    `replaces` is the review of the commit a rebase or amend replaced by this one: what its
    reader already saw is not said again, and what was not seen yet is said once, for this one.
    """
    target = layout.report_file(git_dir, report.commit)
    write_atomic(target, json.dumps(report.as_dict(), indent=1), trusted=layout.common_dir(git_dir))
    if _worth_telling(git_dir, report, replaces):
        mark_unread(git_dir, report.commit)
    if replaces is not None and replaces.commit != report.commit:
        mark_read(git_dir, replaces.commit)
    return target


def _worth_telling(git_dir: os.PathLike[str] | str, report: Told, replaces: Told | None) -> bool:
    told = {f.fingerprint for f in report.findings if f.severity >= Severity.WARNING}
    if not told:
        return False
    if replaces is None or is_unread(git_dir, replaces.commit):
        return True
    return bool(told - {finding.fingerprint for finding in replaces.findings})


def read(git_dir: os.PathLike[str] | str, commit: str) -> Report | None:
    """The stored report of `commit` with what its project hooks said joined to it (one
    report); None when there is no review, or it is not a report of ours."""
    review = read_review(git_dir, commit)
    if review is None:
        return None
    return joined(review, read_hooks(git_dir, commit))


def read_review(git_dir: os.PathLike[str] | str, commit: str) -> Report | None:
    """The stored review of `commit` alone (what a rebase carries over); None when there is
    none, or it is not a report of ours."""
    try:
        data = json.loads(
            read_file(layout.report_file(git_dir, commit), trusted=layout.common_dir(git_dir))
        )
        report = Report.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    # A report of another commit, or of none (a truncated or hand-edited file), is not its.
    return report if report.commit == commit else None


def write_hooks(
    git_dir: os.PathLike[str] | str, result: HooksResult, *, replaces: str | None = None
) -> Path:
    """What the project's hooks said of a commit, durably, beside its review; the commit marked
    unread when they found something its reader was not told yet (`replaces`: the commit a
    rebase or amend replaced by this one, whose hooks' findings may have been seen)."""
    target = layout.hooks_report_file(git_dir, result.commit)
    data = json.dumps(result.as_dict(), indent=1)
    write_atomic(target, data, trusted=layout.common_dir(git_dir))
    earlier = read_hooks(git_dir, replaces) if replaces and replaces != result.commit else None
    if _worth_telling(git_dir, result, earlier):
        mark_unread(git_dir, result.commit)
    return target


def read_hooks(git_dir: os.PathLike[str] | str, commit: str) -> HooksResult | None:
    """What the project's hooks said of `commit`; None when they have not run on it (or what
    is kept is not a result of that commit)."""
    try:
        data = json.loads(
            read_file(layout.hooks_report_file(git_dir, commit), trusted=layout.common_dir(git_dir))
        )
        result = HooksResult.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return result if result.commit == commit else None


def stored(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    """Whether a report of `commit` is kept (readable or not)."""
    return os.path.lexists(layout.report_file(git_dir, commit))


def mark_unread(git_dir: os.PathLike[str] | str, commit: str) -> None:
    # A fresh file: its mtime orders the unread, newest first.
    marker = layout.UNREAD.path(git_dir) / commit
    write_atomic(marker, b"", trusted=layout.common_dir(git_dir), durable=False)


def is_unread(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    marker = layout.UNREAD.path(git_dir) / commit
    try:
        return stat.S_ISREG(marker.lstat().st_mode)
    except OSError:
        return False


def unread(git_dir: os.PathLike[str] | str) -> list[str]:
    """Commits whose reviews have findings nobody was told about, newest first."""
    try:
        entries = list_entries(layout.UNREAD.path(git_dir), trusted=layout.common_dir(git_dir))
    except OSError:
        return []
    return [
        name for name, info in sorted(entries, key=lambda e: (e[1].st_mtime, e[0]), reverse=True)
    ]


def mark_read(git_dir: os.PathLike[str] | str, commit: str) -> None:
    with contextlib.suppress(OSError):
        remove(layout.UNREAD.path(git_dir) / commit, trusted=layout.common_dir(git_dir))


def unread_reports(git_dir: os.PathLike[str] | str) -> list[Report]:
    """The reviews with findings nobody saw yet, newest first; markers of anything else dropped."""
    reports = []
    for commit in unread(git_dir):
        found = read(git_dir, commit)
        if found is None or not found.findings:
            mark_read(git_dir, commit)
        else:
            reports.append(found)
    return reports
