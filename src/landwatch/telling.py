"""What the one line is to tell of a kept review: its findings worth telling that its reader has
not seen yet, and the words the line says of them (landwatch.one_line); which lines are of
commits the person no longer has, and what those had taken over, told again when its commit is
back (a rewrite undone).

Kept apart from where reviews are stored (report_store), which asks it at each write.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from landwatch import line_markers, one_line, work_item
from landwatch.review.findings import CUT, Finding, Severity
from landwatch.review.report import Report, summary_of


class Found(Protocol):
    """A kept result the line may tell of: a review, or what the project's hooks said."""

    commit: str
    findings: list[Finding]


def not_seen(
    git_dir: os.PathLike[str] | str,
    worth: list[Finding],
    earlier: Sequence[Found],
    aside: Sequence[str] = (),
) -> list[Finding]:
    """`worth` but what its reader saw: the findings of each of `earlier` (what a rewrite
    replaced) once told, at least as severe; one still unread, held for its hooks, or set aside
    told nothing yet. A copy told at info, an error once its original is gone, is not seen."""
    untold = (line_markers.is_unread, line_markers.is_held)
    told = [
        old
        for old in earlier
        if old.commit not in aside and not any(marked(git_dir, old.commit) for marked in untold)
    ]
    return not_in(worth, told)


def not_in(worth: list[Finding], others: Sequence[Found]) -> list[Finding]:
    """`worth` but the findings one of `others` holds at least as severe: the same line of the
    same file, wherever it moved (fingerprint), and the same secret on it (secret_digest: the
    fingerprint is the redacted line's, alike for any token written there; an audit)."""
    never = Severity.OFF
    held: dict[tuple[str, str], Severity] = {}
    for other in others:
        for finding in other.findings:
            key = (finding.fingerprint, finding.secret_digest)
            held[key] = max(finding.severity, held.get(key, never))
    return [f for f in worth if held.get((f.fingerprint, f.secret_digest), never) < f.severity]


def to_tell(report: Report, least: Severity = Severity.WARNING) -> one_line.Told | None:
    """What the one line is to say of `report` (a marker unreadable, or of an older landwatch):
    its worst finding at `least` or above, the rest counted; None when it has nothing."""
    return told_of(report, worth_telling(report, least))


def worth_telling(review: Report, least: Severity) -> list[Finding]:
    """A review's findings at `least` or above, and its line checks stopped at the cap, which
    are told whoever's the commits: a review is never cut silently."""
    return [f for f in review.findings if f.severity >= least or f.rule == CUT]


def told_of(
    report: Found, worth: list[Finding], before: Sequence[Found] = ()
) -> one_line.Told | None:
    """The line's words for `report`: the worst of `worth` named, the rest of it counted, and
    the replaced commit whose review held the finding named too (it was carried over)."""
    if not worth:
        return None
    named = max(worth, key=lambda finding: finding.severity)  # the first of the worst
    rest = summary_of([finding for finding in report.findings if finding is not named])
    carried = (
        old.commit
        for old in before
        if any(finding.fingerprint == named.fingerprint for finding in old.findings)
    )
    return one_line.Told(
        report.commit,
        int(named.severity),
        named.rule,
        named.message,
        named.path,
        named.line,
        rest,
        next(carried, ""),
    )


def on_no_ref(git_dir: os.PathLike[str] | str, commits: Sequence[str]) -> set[str]:
    """Of `commits`, those the person no longer has (git.dropped: a rebase's `drop`, a `reset`
    back, a filter-branch), or gone (pruned since, asked of only when the walk fails). A commit
    on a remote's branch is still told (dropping it here does not take it back there), as is
    one on another worktree's HEAD."""
    from landwatch.git import dropped, run_git

    wanted = [commit for commit in commits if work_item.is_object_id(commit)]
    if not wanted:
        return set()
    walked = dropped(git_dir, wanted)
    if walked is not None:
        return walked
    asked = run_git("cat-file", "--batch-check", git_dir=git_dir, input="\n".join(wanted) + "\n")
    gone = {line.split()[0] for line in asked.stdout.splitlines() if line.endswith(" missing")}
    gone &= set(wanted) if asked.ok else set()
    here = [commit for commit in wanted if commit not in gone]
    return gone | ((dropped(git_dir, here) or set()) if gone and here else set())


def set_aside_gone(git_dir: os.PathLike[str] | str, commits: Collection[str]) -> None:
    """The lines of `commits`, which the person no longer has (on_no_ref), set aside: never
    told. What each had taken over is told again where it is back (bring_back)."""
    for commit in commits:
        line_markers.set_aside(git_dir, commit, None)
    bring_back(git_dir, commits)


def bring_back(git_dir: os.PathLike[str] | str, gone: Iterable[str]) -> None:
    """The lines the commits `gone` took over (line_markers.set_aside) unread again where their
    commit is the person's again (`git reset --hard HEAD@{1}` after an amend, ORIG_HEAD after a
    rebase); those gone too set aside alone, and what they took over looked at in turn."""
    walk, seen = list(gone), set()
    while walk:
        new = walk.pop()
        taken = line_markers.taken_by(git_dir, new)
        olds = [old for old in taken if work_item.is_object_id(old) and old not in seen]
        seen.update(olds)
        dropped = on_no_ref(git_dir, olds) if olds else set()
        for old in olds:
            line_markers.restore(git_dir, new, old)
            if old in dropped:  # alone, saying what it said: a review replacing it tells it
                line_markers.set_aside(git_dir, old, None)
                walk.append(old)


def back_again(git_dir: os.PathLike[str] | str, commits: Iterable[str]) -> None:
    """Where a ref moved to one of `commits` again (the sweep read it: `git reset --hard
    HEAD@{1}` after an amend) and it is the person's, the lines set aside for what replaced it
    brought back, if that is gone: a replacing commit with nothing to tell (the amend fixed it)
    left no line of its own for the one line's walk (set_aside_gone) to find gone."""
    moved = set(commits)
    pairs = [(new, old) for new, old in line_markers.set_aside_pairs(git_dir) if old in moved]
    olds = sorted({old for _, old in pairs})
    back = set(olds) - on_no_ref(git_dir, olds) if olds else set()
    for new, old in pairs:
        # Set aside alone (what replaced it gone too, two rewrites before the review): its own.
        if old in back and not work_item.is_object_id(new):
            line_markers.restore(git_dir, "", old)
    named = {new for new, old in pairs if old in back and work_item.is_object_id(new)}
    if replacing := sorted(named):
        bring_back(git_dir, on_no_ref(git_dir, replacing))
