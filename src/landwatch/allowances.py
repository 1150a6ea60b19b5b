"""Where the findings allowed in a repository are kept (`landwatch allow`): one file per finding or
commit allowed in `<common-dir>/landwatch/allowed`, so that two decisions made at once lose
neither, and allowing one thing again replaces what was said of it.

The push gate asks `covering` what lets a commit's findings through; a file that cannot be read
is left out and said in one line, never a crash: an allowance not read blocks, it never allows.
"""

from __future__ import annotations

import json
import os

from landwatch import layout
from landwatch.files import list_entries, read_file, write_atomic
from landwatch.review import allowed
from landwatch.review.allowed import Allowance
from landwatch.review.report import Report
from landwatch.text import plural

# One allowance is a few hundred bytes; a larger file is no allowance of ours.
MOST_BYTES = 16 << 10


def file_name(allowance: Allowance) -> str:
    """The file of what `allowance` covers: a finding's fingerprint, or a commit."""
    if allowance.fingerprint is not None:
        return f"fingerprint-{allowance.fingerprint}.json"
    return f"commit-{allowance.commit}.json"


def record(git_dir: os.PathLike[str] | str, allowance: Allowance) -> None:
    """`allowance` kept durably in the repository of `git_dir`, replacing what was allowed of
    the same finding or commit before."""
    place = layout.ALLOWED.path(git_dir) / file_name(allowance)
    text = json.dumps(allowance.as_dict(), sort_keys=True) + "\n"
    write_atomic(place, text, trusted=layout.common_dir(git_dir))


def read(git_dir: os.PathLike[str] | str) -> tuple[list[Allowance], str | None]:
    """Every allowance recorded here, the oldest first; and one line saying what could not be
    read (None when everything could), those left out."""
    common = layout.common_dir(git_dir)
    place = layout.ALLOWED.path(git_dir)
    try:
        entries = list_entries(place, trusted=common)
    except OSError as error:
        return (
            [],
            f"the allowances in {place} cannot be read ({error.strerror or error}): none used",
        )
    found, unreadable = [], 0
    for name, _ in entries:
        if name.startswith("."):
            continue  # a file being written (files.write_atomic's temp file)
        try:
            data = json.loads(read_file(place / name, trusted=common, limit=MOST_BYTES))
        except (OSError, ValueError):
            data = None
        one = Allowance.from_dict(data)
        if one is None or file_name(one) != name:
            unreadable += 1
            continue
        found.append(one)
    found.sort(key=lambda one: (one.when, file_name(one)))
    if not unreadable:
        return found, None
    return found, (
        f"{plural(unreadable, 'file')} in {place} cannot be read as allowances (corrupt): "
        "left out, those findings not allowed; `landwatch allow` them again"
    )


def recorded(git_dir: os.PathLike[str] | str) -> list[Allowance]:
    """Every allowance recorded in this repository, the oldest first; none that cannot be
    read (`read` says which)."""
    return read(git_dir)[0]


def covering(
    git_dir: os.PathLike[str] | str, report: Report, here: list[Allowance] | None = None
) -> list[Allowance]:
    """The allowances that cover some finding of `report`: those recorded here (`here`, when
    read already), and those the report carries (`report.allowed`: from a teammate's note)."""
    held = recorded(git_dir) if here is None else here
    return allowed.covering([*held, *report.allowed], report.commit, report.findings)
