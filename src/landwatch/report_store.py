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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from landwatch import layout, line_markers, one_line
from landwatch.files import read_file, remove, write_atomic
from landwatch.review import blocking
from landwatch.review.findings import Finding, Severity, identity
from landwatch.review.report import Report
from landwatch.telling import (
    Found,
    bring_back,
    not_in,
    not_seen,
    set_aside_gone,
    to_tell,
    told_of,
    worth_telling,
)

if TYPE_CHECKING:  # read only where a result is kept: most commits have none (show, the gate)
    from landwatch.review.project_hooks.results import HooksResult


def write(
    git_dir: os.PathLike[str] | str,
    report: Report,
    *,
    replaces: Sequence[Report] = (),
    brought: Sequence[Report] = (),
    least: Severity = Severity.WARNING,
    durable: bool = True,
    hold: bool = False,
    tell: bool = True,
) -> Path:
    """Durably (synced before it returns; not `durable`: by the caller's one sync of many);
    marked unread when it has something to say: a finding at `least` or above (error for a
    teammate's commits arriving by pull, and for a review a teammate shared).

    `replaces` are the reviews of the commits a rebase or amend replaced by this one (several,
    a squash's): what their reader already saw is not said again, and what was not seen yet is
    said once, for this one (so are the commits whose markers were set aside for it:
    set_aside). `brought`: the kept reviews of the commits a landed range brings (a merge of
    the person's own branch): what one holds is its own line's to tell, not the range's again.
    `hold`: the project's hooks run next on this commit, and the line waits to tell
    both as one (write_hooks, release_held). Not `tell`: its commit was replaced before its
    review was kept (what it took over is told again where the person has it again).
    """
    target = layout.report_file(git_dir, report.commit)
    text = json.dumps(report.as_dict(), indent=1)
    # Kept already (its item run again after a crash between the two, or reviewed again): what
    # its reader saw of it then is not said again.
    again = read_review(git_dir, report.commit)
    hooks = read_hooks(git_dir, report.commit)
    joined = _joined(report, hooks)
    level = blocking.marker_of(git_dir, joined)
    _mark_blocking(git_dir, report.commit, level, before=True)
    if hold and hooks is None:
        _marker(layout.AWAITING, git_dir, report.commit, "")
    write_atomic(target, text, trusted=layout.common_dir(git_dir), durable=durable)
    _mark_blocking(git_dir, report.commit, level, before=False)
    pairs = line_markers.set_aside_pairs(git_dir)  # listed once: (new, old) of each
    aside = [old for new, old in pairs if new == report.commit]
    olds = {old for _, old in pairs}
    # Kept after it was replaced: nothing of it was told.
    aside += [old.commit for old in replaces if old.commit in olds and old.commit not in aside]
    worth, before = _untold(git_dir, report, replaces, least, aside)
    worth = not_in(not_seen(git_dir, worth, [again] if again is not None else []), brought)
    _line(git_dir, report, worth, before, hold=hold, aside=not tell or report.commit in olds)
    for old in replaces:  # what of each still waited is this line's to tell
        if old.commit != report.commit:
            line_markers.set_aside(git_dir, old.commit, report.commit)
    line_markers.take_over(git_dir, report.commit, aside)
    if not tell:  # dropped: what it took over is told again where it is the person's again
        bring_back(git_dir, [report.commit])
    # With nothing of them to tell (the rewrite fixed it), what it took over stays set aside:
    # brought back if the rewrite is undone (telling.back_again), else pruned with done items.
    return target


def _line(
    git_dir: os.PathLike[str] | str,
    report: Report,
    worth: list[Finding],
    before: list[Found],
    *,
    hold: bool,
    aside: bool,
) -> None:
    """The line of `report` telling `worth`: set aside (`aside`: its commit was replaced or
    dropped already, the line is the replacing commit's), held, or unread."""
    if aside:
        if worth:
            line_markers.set_aside(git_dir, report.commit, None)
    elif hold and worth:
        fingerprints = (finding.fingerprint for finding in worth)
        line_markers.hold(git_dir, report.commit, fingerprints, [old.commit for old in before])
    elif (told := told_of(report, worth, before)) is not None:
        line_markers.mark_unread(git_dir, report.commit, told)


def _mark_blocking(
    git_dir: os.PathLike[str] | str, commit: str, level: str | None, *, before: bool
) -> None:
    """The blocking marker of `commit` (layout.BLOCKING), kept so that the pre-push hook, which
    reads no report, never takes a review that refuses a push, or did not read its whole change,
    for a clean one: made before the report is written, removed only after (a crash between
    leaves a marker too many, which only costs the hook a look at the review)."""
    if level is not None and before:
        _marker(layout.BLOCKING, git_dir, commit, f"{level}\n")
    elif level is None and not before:
        _marker(layout.BLOCKING, git_dir, commit, None)


def _marker(
    place: layout.Place, git_dir: os.PathLike[str] | str, commit: str, text: str | None
) -> None:
    """A marker the pre-push hook reads in place of a report (in `place`): `text` written, or
    (None) the marker removed where it is. layout.AWAITING: the project hooks have not said yet,
    which a gate refusing any error waits for; made before the review is kept, removed after."""
    marker = place.path(git_dir) / commit
    if text is not None:
        write_atomic(marker, text, trusted=layout.common_dir(git_dir))
    else:
        with contextlib.suppress(OSError):
            remove(marker, trusted=layout.common_dir(git_dir))


def mark_every_blocking(git_dir: os.PathLike[str] | str) -> int:
    """The blocking markers of every review kept (install makes them for reviews stored before
    markers were, or before a cut review had one); how many reviews have one."""
    marked = 0
    try:
        names = os.listdir(layout.REPORTS.path(git_dir))
    except OSError:
        return 0
    for name in names:
        commit, _, rest = name.partition(".")
        found = read(git_dir, commit) if rest == "json" else None
        if found is None:
            continue
        level = blocking.marker_of(git_dir, found)
        if level is not None:
            _mark_blocking(git_dir, commit, level, before=True)
            marked += 1
    return marked


def _untold(
    git_dir: os.PathLike[str] | str,
    report: Report,
    replaces: Sequence[Report],
    least: Severity,
    aside: Sequence[str] = (),
) -> tuple[list[Finding], list[Found]]:
    """What the line is to tell of `report`: its findings at `least` or above that its reader
    has not seen (what the replaced reviews told is seen), and the reviews of the commits it
    replaced, which say whether a finding was carried over from one of them."""
    before: list[Found] = [old for old in replaces if old.commit != report.commit]
    worth = not_seen(git_dir, worth_telling(report, least), before, aside)
    named = {old.commit for old in replaces}
    for old in aside:
        if old not in named:
            found = read_review(git_dir, old)
            before += [found] if found is not None else []
    return worth, before


def write_hooks(
    git_dir: os.PathLike[str] | str,
    result: HooksResult,
    *,
    replaces: tuple[str, ...] = (),
    least: Severity = Severity.WARNING,
) -> Path:
    """What the project's hooks said of a commit, durably, beside its review; the commit marked
    unread when they found something at `least` or above its reader was not told yet
    (`replaces`: the commits a rebase or amend replaced by this one, whose hooks' findings may
    have been seen), the line then naming the worst of that and of the review's untold, or of
    its held line (one line for both); set aside instead once its commit is dropped (_tell).
    The gate waits for them no more, unless they wait for their environments."""
    target = layout.hooks_report_file(git_dir, result.commit)
    data = json.dumps(result.as_dict(), indent=1)
    again = read_hooks(git_dir, result.commit)  # what its reader saw of it is not said again
    review = read_review(git_dir, result.commit)
    level, told = None, None  # the hooks join a review: without one there is nothing to show yet
    if review is not None:
        both = _joined(review, result)
        level = blocking.marker_of(git_dir, both)
        told = _hooks_to_tell(git_dir, review, both, result, replaces, least, again)
    _mark_blocking(git_dir, result.commit, level, before=True)
    waiting = result.waiting  # their environments wait: they run once built
    if waiting:
        _marker(layout.AWAITING, git_dir, result.commit, "")
    write_atomic(target, data, trusted=layout.common_dir(git_dir))
    _mark_blocking(git_dir, result.commit, level, before=False)
    if not waiting:
        _marker(layout.AWAITING, git_dir, result.commit, None)
    _tell(git_dir, result.commit, told)
    line_markers.forget_held(git_dir, result.commit)
    return target


def _tell(git_dir: os.PathLike[str] | str, commit: str, told: one_line.Told | None) -> None:
    """`told` marked unread for `commit` unless set aside; set aside once the person no longer has
    the commit (git.dropped while its hooks ran): the review of what replaced it tells it, and
    what it took over is told again where that is back (telling.set_aside_gone)."""
    if told is None or line_markers.is_set_aside(git_dir, commit):
        return
    from landwatch.git import is_dropped

    if is_dropped(git_dir, commit):
        set_aside_gone(git_dir, [commit])
    else:
        line_markers.mark_unread(git_dir, commit, told)


def _hooks_to_tell(
    git_dir: os.PathLike[str] | str,
    review: Report,
    both: Report,
    result: HooksResult,
    replaces: tuple[str, ...],
    least: Severity,
    again: HooksResult | None,
) -> one_line.Told | None:
    """What the line is to say once `result` joins `review` (`both`): what the hooks add that
    its reader did not see, with the review's held line where one waits for them."""
    # What the hooks add: their findings, and the review's that a hook reported too (told once,
    # at the more severe of the two).
    reviewed = {identity(finding) for finding in review.findings}
    added = [finding for finding in both.findings if identity(finding) not in reviewed]
    worth = [finding for finding in added if finding.severity >= least]
    earlier = (read_hooks(git_dir, old) for old in replaces if old != result.commit)
    before: list[Found] = [found for found in earlier if found is not None]
    worth = not_seen(git_dir, worth, [*before, *([again] if again is not None else [])])
    held = _held(git_dir, both)
    if held is not None:
        worth += held[0]
        before += held[1]
    elif worth and line_markers.is_unread(git_dir, result.commit):
        said = {identity(finding) for finding in worth}
        worth += [f for f in worth_telling(both, least) if identity(f) not in said]
    return told_of(both, worth, before)


def read_hooks(git_dir: os.PathLike[str] | str, commit: str) -> HooksResult | None:
    """What the project's hooks said of `commit`; None when they have not run on it (or what
    is kept is not a result of that commit)."""
    path = layout.hooks_report_file(git_dir, commit)
    if not os.path.lexists(path):
        return None  # as most commits: the results' module is not even imported
    from landwatch.review.project_hooks.results import HooksResult

    return _read_kept(path, git_dir, commit, HooksResult)


def _joined(review: Report, hooks: HooksResult | None) -> Report:
    """`review` with what its project hooks said joined to it (results.joined), if they said."""
    if hooks is None:
        return review
    from landwatch.review.project_hooks.results import joined

    return joined(review, hooks)


def read(git_dir: os.PathLike[str] | str, commit: str) -> Report | None:
    """The stored report of `commit` with what its project hooks said joined to it (one
    report); None when there is no review, or it is not a report of ours."""
    review = read_review(git_dir, commit)
    if review is None:
        return None
    return _joined(review, read_hooks(git_dir, commit))


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
    One of another commit, or of none (a truncated, hand-edited or planted file), is not its."""
    try:
        kept = kind.from_dict(json.loads(read_file(path, trusted=layout.common_dir(git_dir))))
    except (OSError, ValueError, LookupError, TypeError, AttributeError, RecursionError):
        return None
    return kept if isinstance(kept, kind) and kept.commit == commit else None


def stored(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    """Whether a report of `commit` is kept (readable or not)."""
    return os.path.lexists(layout.report_file(git_dir, commit))


def _held(
    git_dir: os.PathLike[str] | str, review: Report
) -> tuple[list[Finding], list[Found]] | None:
    """What the held line of `review` was to tell (its findings, the reviews of the commits it
    replaced); None when no line is held for it."""
    kept = line_markers.held(git_dir, review.commit)
    if kept is None:
        return None
    fingerprints, olds = kept
    before: list[Found] = [
        found for old in olds if (found := read_review(git_dir, old)) is not None
    ]
    return [finding for finding in review.findings if finding.fingerprint in fingerprints], before


def release_held(git_dir: os.PathLike[str] | str, commit: str) -> None:
    """The line held for `commit`'s project hooks told now without them, and the gate waiting
    for them no more: they will not run on it (turned off, none here, given up)."""
    _marker(layout.AWAITING, git_dir, commit, None)  # first: a line untold holds no push
    review = read_review(git_dir, commit)
    held = _held(git_dir, review) if review is not None else None
    _tell(git_dir, commit, None if review is None or held is None else told_of(review, *held))
    line_markers.forget_held(git_dir, commit)


def unread_reports(git_dir: os.PathLike[str] | str) -> tuple[list[Report], list[str]]:
    """The reviews with findings nobody saw yet, newest first, and the commits whose kept review
    cannot be read (corrupt), left unread to be told; markers of anything else dropped."""
    reports, unreadable = [], []
    for commit in line_markers.unread(git_dir):
        found = read(git_dir, commit)
        if found is None and stored(git_dir, commit):
            unreadable.append(commit)
        elif found is None or not found.findings:
            line_markers.mark_read(git_dir, commit)
        else:
            reports.append(found)
    return reports, unreadable


def unread_told(git_dir: os.PathLike[str] | str) -> list[one_line.Told]:
    """What the one line is to say of each unread review, newest first. A marker that says
    nothing readable (an older landwatch's) is told from its review; markers of reviews gone,
    or with no findings, are dropped."""
    told = []
    markers = layout.UNREAD.path(git_dir)
    for commit, said in one_line.read(markers, trusted=layout.common_dir(git_dir)):
        if said is None or not stored(git_dir, commit):
            found = read(git_dir, commit)
            said = to_tell(found) if found is not None and found.findings else None
        if said is None:
            line_markers.mark_read(git_dir, commit)
        else:
            told.append(said)
    return told
