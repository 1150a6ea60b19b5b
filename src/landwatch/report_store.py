"""Where reviews are kept: each report written durably into the repository's landwatch dir before
its item is settled (a repeat run overwrites it), read back by `show`, and the unread markers
through which the hooks' one line announces a review with findings once (each holding what the
line will say of its review: landwatch.one_line).

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
from typing import Any, Protocol, TypeVar

from landwatch import layout, one_line
from landwatch.files import read_file, remove, write_atomic
from landwatch.review import blocking
from landwatch.review.findings import CUT, Finding, Severity
from landwatch.review.project_hooks.results import HooksResult, joined
from landwatch.review.report import Report, summary_of


def write(
    git_dir: os.PathLike[str] | str,
    report: Report,
    *,
    replaces: Report | None = None,
    least: Severity = Severity.WARNING,
    durable: bool = True,
) -> Path:
    """Durably (synced before it returns; not `durable`: by the caller's one sync of many);
    marked unread when it has something to say: a finding at `least` or above (error for a
    teammate's commits arriving by pull, and for a review a teammate shared).

    `replaces` is the review of the commit a rebase or amend replaced by this one: what its
    reader already saw is not said again, and what was not seen yet is said once, for this one.
    """
    target = layout.report_file(git_dir, report.commit)
    text = json.dumps(report.as_dict(), indent=1)
    level = blocking.level(joined(report, read_hooks(git_dir, report.commit)).findings)
    _mark_blocking(git_dir, report.commit, level, before=True)
    write_atomic(target, text, trusted=layout.common_dir(git_dir), durable=durable)
    _mark_blocking(git_dir, report.commit, level, before=False)
    told = _to_tell(git_dir, report, replaces, least)
    if told is not None:
        mark_unread(git_dir, report.commit, told)
    if replaces is not None and replaces.commit != report.commit:
        mark_read(git_dir, replaces.commit)
    return target


def _mark_blocking(
    git_dir: os.PathLike[str] | str, commit: str, level: str | None, *, before: bool
) -> None:
    """The blocking marker of `commit` (layout.BLOCKING), kept so that the pre-push hook, which
    reads no report, never takes a review that refuses a push for a clean one: made before the
    report is written, removed only after (a crash between leaves a marker too many, which only
    costs the hook a look at the review)."""
    marker = layout.BLOCKING.path(git_dir) / commit
    if level is not None and before:
        write_atomic(marker, f"{level}\n", trusted=layout.common_dir(git_dir))
    elif level is None and not before:
        with contextlib.suppress(OSError):
            remove(marker, trusted=layout.common_dir(git_dir))


def mark_every_blocking(git_dir: os.PathLike[str] | str) -> int:
    """The blocking markers of every review kept (install makes them for reviews stored before
    markers were); how many reviews refuse a push under some policy."""
    marked = 0
    try:
        names = os.listdir(layout.REPORTS.path(git_dir))
    except OSError:
        return 0
    for name in names:
        commit, _, rest = name.partition(".")
        if rest != "json":
            continue
        found = read(git_dir, commit)
        level = blocking.level(found.findings) if found is not None else None
        if level is not None:
            _mark_blocking(git_dir, commit, level, before=True)
            marked += 1
    return marked


def _to_tell(
    git_dir: os.PathLike[str] | str,
    report: Report,
    replaces: Report | None = None,
    least: Severity = Severity.WARNING,
) -> one_line.Told | None:
    """What the one line is to say of `report`: its worst finding not told yet, and the rest
    counted; None when it has nothing worth telling (nothing at `least` or above, nothing the
    replaced review's reader has not seen)."""
    worth = _worth_telling(report, least)
    if replaces is not None and not is_unread(git_dir, replaces.commit):
        seen = {finding.fingerprint for finding in replaces.findings}
        worth = [finding for finding in worth if finding.fingerprint not in seen]
    return _told(report, worth)


def _worth_telling(review: Report, least: Severity) -> list[Finding]:
    """A review's findings at `least` or above, and its line checks stopped at the cap, which
    are told whoever's the commits: a review is never cut silently."""
    return [f for f in review.findings if f.severity >= least or f.rule == CUT]


def _told(report: Report, worth: list[Finding]) -> one_line.Told | None:
    """The line's words for `report`: the worst of `worth` named, the rest of it counted."""
    if not worth:
        return None
    named = max(worth, key=lambda finding: finding.severity)  # the first of the worst
    rest = summary_of([finding for finding in report.findings if finding is not named])
    return one_line.Told(
        report.commit,
        int(named.severity),
        named.rule,
        named.message,
        named.path,
        named.line,
        rest,
    )


def write_hooks(
    git_dir: os.PathLike[str] | str,
    result: HooksResult,
    *,
    replaces: str | None = None,
    least: Severity = Severity.WARNING,
) -> Path:
    """What the project's hooks said of a commit, durably, beside its review; the commit marked
    unread when they found something at `least` or above its reader was not told yet
    (`replaces`: the commit a rebase or amend replaced by this one, whose hooks' findings may
    have been seen), the line then naming the worst of that and of the review's untold."""
    target = layout.hooks_report_file(git_dir, result.commit)
    data = json.dumps(result.as_dict(), indent=1)
    review = read_review(git_dir, result.commit)
    level = blocking.level(joined(review, result).findings) if review is not None else None
    _mark_blocking(git_dir, result.commit, level, before=True)
    write_atomic(target, data, trusted=layout.common_dir(git_dir))
    _mark_blocking(git_dir, result.commit, level, before=False)
    told = _hooks_to_tell(git_dir, result, replaces, least)
    if told is not None:
        mark_unread(git_dir, result.commit, told)
    return target


def _hooks_to_tell(
    git_dir: os.PathLike[str] | str, result: HooksResult, replaces: str | None, least: Severity
) -> one_line.Told | None:
    review = read_review(git_dir, result.commit)
    if review is None:
        return None  # the hooks join a review: without one there is nothing to show yet
    worth = [finding for finding in result.findings if finding.severity >= least]
    earlier = read_hooks(git_dir, replaces) if replaces and replaces != result.commit else None
    if earlier is not None and not is_unread(git_dir, earlier.commit):
        seen = {finding.fingerprint for finding in earlier.findings}
        worth = [finding for finding in worth if finding.fingerprint not in seen]
    if worth and is_unread(git_dir, result.commit):
        worth += _worth_telling(review, least)
    return _told(joined(review, result), worth)


def read_hooks(git_dir: os.PathLike[str] | str, commit: str) -> HooksResult | None:
    """What the project's hooks said of `commit`; None when they have not run on it (or what
    is kept is not a result of that commit)."""
    return _read_kept(layout.hooks_report_file(git_dir, commit), git_dir, commit, HooksResult)


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
    return _read_kept(layout.report_file(git_dir, commit), git_dir, commit, Report)


class _Kept(Protocol):
    commit: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any: ...


_K = TypeVar("_K", bound=_Kept)


def _read_kept(
    path: Path, git_dir: os.PathLike[str] | str, commit: str, kind: type[_K]
) -> _K | None:
    """A kept file of `commit` read as `kind`; None when it is not there or not one of ours.
    One of another commit, or of none (a truncated or hand-edited file), is not its."""
    try:
        data = json.loads(read_file(path, trusted=layout.common_dir(git_dir)))
        kept = kind.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return kept if isinstance(kept, kind) and kept.commit == commit else None


def stored(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    """Whether a report of `commit` is kept (readable or not)."""
    return os.path.lexists(layout.report_file(git_dir, commit))


def mark_unread(
    git_dir: os.PathLike[str] | str, commit: str, told: one_line.Told | None = None
) -> None:
    """The marker holding what the one line is to say (one_line.Told); a fresh file, whose mtime
    orders the unread, newest first."""
    marker = layout.UNREAD.path(git_dir) / commit
    content = told.text() if told is not None else b""
    write_atomic(marker, content, trusted=layout.common_dir(git_dir), durable=False)


def is_unread(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    marker = layout.UNREAD.path(git_dir) / commit
    try:
        return stat.S_ISREG(marker.lstat().st_mode)
    except OSError:
        return False


def unread(git_dir: os.PathLike[str] | str) -> list[str]:
    """Commits whose reviews have findings nobody was told about, newest first."""
    return one_line.markers(layout.UNREAD.path(git_dir), trusted=layout.common_dir(git_dir))


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


def unread_told(git_dir: os.PathLike[str] | str) -> list[one_line.Told]:
    """What the one line is to say of each unread review, newest first. A marker that says
    nothing readable (an older landwatch's) is told from its review; markers of reviews gone,
    or with no findings, are dropped."""
    told = []
    markers = layout.UNREAD.path(git_dir)
    for commit, said in one_line.read(markers, trusted=layout.common_dir(git_dir)):
        if said is None or not stored(git_dir, commit):
            found = read(git_dir, commit)
            said = _to_tell(git_dir, found) if found is not None and found.findings else None
        if said is None:
            mark_read(git_dir, commit)
        else:
            told.append(said)
    return told
