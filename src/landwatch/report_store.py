"""Where reviews are kept: each report written durably into the repository's landwatch dir before
its item is settled (a repeat run overwrites it), read back by `show`, and the unread markers
through which the hooks' one line announces a review with findings once.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from landwatch import layout
from landwatch.files import list_entries, read_file, remove, write_atomic
from landwatch.review.findings import Severity
from landwatch.review.report import Report


def write(git_dir: os.PathLike[str] | str, report: Report) -> Path:
    """Durably (synced before it returns); marked unread when it has something to say."""
    target = layout.report_file(git_dir, report.commit)
    write_atomic(target, json.dumps(report.as_dict(), indent=1), trusted=layout.common_dir(git_dir))
    if report.worst() >= Severity.WARNING:
        mark_unread(git_dir, report.commit)
    return target


def read(git_dir: os.PathLike[str] | str, commit: str) -> Report | None:
    """The stored report of `commit`; None when there is none, or it is not a report of ours."""
    try:
        data = json.loads(
            read_file(layout.report_file(git_dir, commit), trusted=layout.common_dir(git_dir))
        )
        return Report.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def mark_unread(git_dir: os.PathLike[str] | str, commit: str) -> None:
    # A fresh file: its mtime orders the unread, newest first.
    marker = layout.unread_dir(git_dir) / commit
    write_atomic(marker, b"", trusted=layout.common_dir(git_dir), durable=False)


def unread(git_dir: os.PathLike[str] | str) -> list[str]:
    """Commits whose reviews have findings nobody was told about, newest first."""
    try:
        entries = list_entries(layout.unread_dir(git_dir), trusted=layout.common_dir(git_dir))
    except OSError:
        return []
    return [
        name for name, info in sorted(entries, key=lambda e: (e[1].st_mtime, e[0]), reverse=True)
    ]


def mark_read(git_dir: os.PathLike[str] | str, commit: str) -> None:
    with contextlib.suppress(OSError):
        remove(layout.unread_dir(git_dir) / commit, trusted=layout.common_dir(git_dir))
