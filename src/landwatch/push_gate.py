"""The push gate's judgement, for the pre-push hook and for auto-push alike: the commits a push
sends that its remote lacks, where the review of each stands, and what refuses the push.

A review kept here of the commit's own change is the commit's review; a commit whose review waits
in a queue is the reviewer's to finish; any other (landed elsewhere, or not reached in time), one
whose review did not read its whole change (cut at max_added_lines), and one whose review is a
range's (a pull's, a branch moved sideways: blocking.own) is scanned on the spot by the rules a
push is refused for (`scan`). What refuses is review.blocking's policy; of a merge, only what
none of its parents has (what it brought in, the commits that brought it answer for).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from landwatch import allowances, layout, push_heard, registry, report_store
from landwatch.files import read_file, write_atomic
from landwatch.git import GitError, git, git_output, run_git
from landwatch.push_heard import Held, held_by_remote, marked_past, not_held, tracked_blocking
from landwatch.review import allowed, blocking
from landwatch.review.budget import Budget
from landwatch.review.findings import Finding
from landwatch.review.report import Report
from landwatch.text import safe
from landwatch.work_item import (
    CLAIMED,
    PENDING,
    READY,
    RECOVERING,
    WorkKind,
    entries,
    is_object_id,
)

# At most this many commits a push sends are read (then any a review flagged): a first push to a
# new remote can send a whole history (24,548 commits, one hook said: 30 min); past it, said.
MOST = 1000
# How the gate's refusal begins, on the person's terminal: auto-push, whose git push runs the
# pre-push hook, knows a refusal of the gate's by it.
REFUSAL = "landwatch: push refused:"
# How long the gate's own scan may run, whatever landwatch.push.wait says: the wait is for the
# reviewer, and a push that waits for none (0) must still be read. A minute holds a push at most
# that long past the wait; a commit takes about 2 s at LINES, so a push of many nobody reviewed
# (a fetched history sent to a new remote) is read that far and the rest named as unchecked.
SCAN_SECONDS = 60.0
# The added lines of a commit the gate's own scan reads at most: far past a review's cap
# (max_added_lines, 20,000 by default), where a secret may lie unread, yet bounded, since the
# lines read are held in memory (a million took 450 MB and 8 s; these about 2 s).
LINES = 250_000


class Pushed(NamedTuple):
    """One line of pre-push's stdin: a local ref and oid, the remote ref and what it holds."""

    local_ref: str
    local: str
    remote_ref: str
    remote: str

    @property
    def deletion(self) -> bool:
        return not self.local.strip("0")

    @property
    def notes(self) -> bool:
        """Notes (landwatch's shared reviews among them): git's data about commits, whose own
        commits are nobody's work and hold what reviews quote (redacted), so never judged. Only
        a notes ref pushed to one is notes: `git push origin HEAD:refs/notes/x` sends a commit."""
        return self.local_ref.startswith("refs/notes/") and self.remote_ref.startswith(
            "refs/notes/"
        )

    @property
    def new(self) -> bool:
        return not self.remote.strip("0")


def parse(lines: str) -> list[Pushed]:
    """pre-push's stdin, a `Pushed` a line, each read from the right: git writes the local ref as
    the person wrote it (`HEAD^{/fix it}`), spaces and all. A line that is not (no oids where
    git writes them) is a ValueError: never taken for a push that sends nothing."""
    pushed = []
    for line in lines.split("\n"):  # only a newline ends one: a ref name may hold U+2028
        fields = line.rsplit(" ", 3)
        if len(fields) == 4 and is_object_id(fields[1]) and is_object_id(fields[3]):
            pushed.append(Pushed(*fields))
        elif line:
            raise ValueError(f"not a line git writes on pre-push's stdin: {safe(line)[:120]}")
    return pushed


@dataclass(frozen=True)
class Outgoing:
    """The commits a push sends that the remote lacks, newest first: MOST, then any older a review
    flagged; `more`: there are others past those; `held`: what the remote was taken to hold."""

    commits: list[str]
    more: bool = False
    held: Held = field(default_factory=Held)


def outgoing(
    git_dir: Path | str, remote: str, url: str, pushed: Iterable[Pushed], where: Path | None = None
) -> Outgoing:
    """What `pushed` sends that the remote lacks: not reachable from what it holds at the refs
    pushed to (when here), nor from the rest it holds (push_heard.held_by_remote: what it says,
    asked from `where`, for a push creating a ref or one sending a commit with a blocking marker
    its tracking refs alone hold (tracked_blocking); else its tracking refs that stand)."""
    pushed = list(pushed)  # notes are no work, but where they send a commit a review flagged
    sending = [e for e in pushed if not e.deletion and not e.notes] + [
        e for e in pushed if e.notes and push_heard.sends_marked(git_dir, e.local, e.remote)
    ]
    if not sending:
        return Outgoing([])
    sent, held = [each.local for each in sending], [each.remote for each in pushed if not each.new]
    held_at = {each.remote_ref: each.remote for each in pushed}
    creating = any(each.new for each in sending)
    found = held_by_remote(git_dir, remote, url, held_at, ask=creating, where=where)
    listed = not_held(git_dir, sent, held, found, MOST)
    if found.tracking and not creating and tracked_blocking(git_dir, sent, held, listed, MOST):
        found = held_by_remote(git_dir, remote, url, held_at, ask=True, where=where)
        listed = not_held(git_dir, sent, held, found, MOST)
    judged = marked_past(git_dir, sent, held, found, listed, MOST)
    return Outgoing(judged, len(listed) > MOST, found)


def beside_commits(
    git_dir: os.PathLike[str] | str, pushed: Iterable[Pushed]
) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """What a push sends beside commits, which no review reads (review.tags.beside_commits): the
    annotated tags, with the tags they name, by the ref pushed from; the blobs and trees it sends
    as they are or as a tag names them, by kind and ref."""
    sending = {
        each.local: each.local_ref
        for each in pushed
        if not each.deletion and not each.notes and each.local != each.remote
    }
    listed = run_git(
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        cwd=git_dir,
        input="".join(f"{oid}\n" for oid in sending),
    )
    others = {
        oid: sending[oid]
        for oid, _, kind in (line.partition(" ") for line in listed.stdout.splitlines())
        if kind in ("tag", "tree", "blob") and oid in sending
    }
    if not others:
        return {}, {}
    from landwatch.review import tags  # the rules, only when something else than commits goes

    return tags.beside_commits(git_dir, others)


def tag_reports(
    git_dir: os.PathLike[str] | str, sent: Mapping[str, str]
) -> tuple[dict[str, Report], dict[str, str]]:
    """What the message secret rules find in each annotated tag `sent` (beside_commits), as reports
    by tag, to be judged beside the commits' reviews; and why each tag that could not be read
    (`unreadable`) was not, by tag."""
    from landwatch.review import tags

    reports, failed = {}, {}
    for tag, ref in sent.items():
        try:
            findings = tags.message_findings(git_dir, tag)
        except Exception as error:  # one object unreadable costs its own judgement alone
            failed[tag] = unreadable(error)
            continue
        reports[tag] = Report(tag, None, "tag", f"tag {ref}", findings=findings)
    return reports, failed


def unreadable(error: BaseException) -> str:
    """Why an object of a push could not be read (a blob missing from a partial clone, memory
    run out), in a few words: the gate names it unchecked and judges the rest."""
    return safe(f"{type(error).__name__}: {error}")[:120]


def waiting(
    git_dir: os.PathLike[str] | str, commits: Iterable[str], hooks: bool = False
) -> set[str]:
    """Of `commits`, those whose review waits in a queue of some worktree of the repository; with
    `hooks`, those whose project hooks have not said yet instead (report_store's marker)."""
    wanted = set(commits)
    if hooks:
        return {commit for commit in wanted if (layout.AWAITING.path(git_dir) / commit).is_file()}
    found: set[str] = set()
    for worktree in registry.worktree_git_dirs(Path(layout.common_dir(git_dir))):
        for state in (READY, PENDING, CLAIMED, RECOVERING):
            for name in entries(worktree, state):
                kind, _, rest = name.partition(".")[0].partition("-")
                if kind == WorkKind.REVIEW and rest in wanted:
                    found.add(rest)
    return found


def kept(git_dir: os.PathLike[str] | str, commits: Iterable[str]) -> dict[str, Report]:
    """The reviews kept of `commits` (with what the project's hooks said), by commit."""
    reports = {}
    for commit in commits:
        report = report_store.read(git_dir, commit)
        if report is not None:
            reports[commit] = report
    return reports


def scan(
    git_dir: os.PathLike[str] | str,
    commits: Iterable[str],
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[dict[str, Report], list[str], dict[str, str]]:
    """The rules a push is refused for, run here on each of `commits` (oldest first; a merge for
    what none of its parents has; a blob or tree sent, as a root commit of it: tags.as_commit),
    within `seconds` and LINES added lines each; the reports by commit, the commits the time did
    not let it read whole, and why each that could not be read at all was not (the scan goes on
    past it)."""
    from landwatch.review import engine, tags
    from landwatch.review.change import ITS_OWN
    from landwatch.review.checking import unfinished

    deadline = clock() + seconds
    scanned: dict[str, Report] = {}
    left = list(commits)
    unread = []
    failed: dict[str, str] = {}
    while left and (remaining := deadline - clock()) > 0:
        commit = left.pop(0)
        budget = Budget(remaining, clock)
        try:
            revision = tags.as_commit(git_dir, commit)  # a blob or tree: a root commit of it
            scanned[commit] = engine.review(
                git_dir,
                revision,
                budget=budget,
                at_push=True,
                max_added_lines=LINES,
                merges=ITS_OWN,
                reader=git_output,
            )
        except Exception as error:  # one object unreadable costs its own judgement alone
            failed[commit] = unreadable(error)
            continue
        if (why := unfinished(scanned[commit].notes)) is not None:
            failed[commit] = safe(why)  # a rule it is refused for could not read it whole
        elif budget.stopped:
            unread.append(commit)
    return scanned, unread + left, failed


# (commit, finding) -> the allowance that lets it through, or None when nothing does.
Allowing = Callable[[str, Finding], allowed.Allowance | None]


def allowing_in(git_dir: os.PathLike[str] | str) -> Allowing:
    """What allows a finding at this repository's gate: an allowance recorded here (`landwatch
    allow`). One a teammate's note carries is shown, not obeyed: a note is their claim."""
    here = allowances.recorded(git_dir)

    def allowing(commit: str, finding: Finding) -> allowed.Allowance | None:
        return allowed.allowing(here, commit, finding)

    return allowing


@dataclass
class Verdict:
    """What the commits sent hold: the findings that refuse the push (commit, finding, oldest
    commit first), those allowed, the commits nobody could judge in time, those judged only up
    to LINES added lines (`cut`), and those that could not be read at all, with why (`failed`)."""

    refused: list[tuple[str, Finding]] = field(default_factory=list)
    allowed: list[tuple[str, Finding, allowed.Allowance]] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def partly_read(self) -> str:
        """The first commit read only in part (cut at LINES, else not read at all), in a few
        words; empty when none. Auto-push holds it back: nobody is there to be told."""
        if self.cut:
            return f"{self.cut[0][:10]} was read only to {LINES:,} added lines, the rest unchecked"
        for commit, why in self.failed.items():
            return f"{commit[:10]} could not be read ({why}), unchecked"
        return ""


def judge(
    reports: Mapping[str, Report],
    policy: str,
    allowing: Allowing = lambda commit, finding: None,
    order: Iterable[str] = (),
) -> Verdict:
    """The verdict of `reports` under `policy` (review.blocking), in `order` (oldest commit
    first; by default the reports' own) with what `allowing` allows set apart."""
    verdict = Verdict()
    for commit in list(order) or list(reports):
        report = reports.get(commit)
        if report is None:
            verdict.unjudged.append(commit)
            continue
        for finding in blocking.refused_for(report.findings, policy):
            allowance = allowing(commit, finding)
            if allowance is None:
                verdict.refused.append((commit, finding))
            else:
                verdict.allowed.append((commit, finding, allowance))
    return verdict


def verdict_of(
    git_dir: os.PathLike[str] | str,
    commits: list[str],
    reports: Mapping[str, Report],
    policy: str,
    seconds: float = SCAN_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    failed: Mapping[str, str] | None = None,
) -> Verdict:
    """The verdict on `commits` (oldest first) under `policy`, as the pre-push hook and auto-push
    both judge: by their reviews kept (`reports`; a merge's for what none of its parents has:
    blocking.judged), the rest, and those reviews that did not read their whole change, scanned
    here within `seconds`, with what is allowed here set apart. What could not be read (`failed`
    already, or in the scan) is passed by, never the whole verdict."""
    # A review not of its commit's own change (a range's) is read on as one cut short is.
    whole = {
        c for c, report in reports.items() if not report.truncated and blocking.own(git_dir, report)
    }
    reports = {commit: blocking.judged(git_dir, report) for commit, report in reports.items()}
    broken = dict(failed or {})
    unread = [c for c in commits if c not in broken and c not in whole]
    scanned, late, more = scan(git_dir, unread, seconds, clock) if unread else ({}, [], {})
    broken |= more
    judged = {**reports, **{c: read_on(reports.get(c), found) for c, found in scanned.items()}}
    verdict = judge(judged, policy, allowing_in(git_dir), order=commits)
    partly = set(late)
    verdict.unjudged = [commit for commit in commits if commit in partly]
    verdict.failed = {commit: broken[commit] for commit in commits if commit in broken}
    # Read in time yet truncated: its line checks stopped at LINES.
    read = [c for c in commits if c in scanned and c not in partly and c not in broken]
    verdict.cut = [commit for commit in read if scanned[commit].truncated]
    return verdict


def read_on(kept: Report | None, scanned: Report) -> Report:
    """The review `kept` of a commit, which did not read its whole change, with what the gate's
    scan read past it (the findings it holds that the review does not); the scan, when none."""
    if kept is None:
        return scanned
    known = {finding.fingerprint for finding in kept.findings}
    more = [finding for finding in scanned.findings if finding.fingerprint not in known]
    return dataclasses.replace(kept, findings=kept.findings + more)


def parent_of(git_dir: os.PathLike[str] | str, commit: str) -> str | None:
    """The first parent of `commit` (where a rebase taking it out starts), None for a root."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{commit}^", cwd=git_dir) or None
    except GitError:
        return None


def remember_refused(git_dir: os.PathLike[str] | str, refused: list[tuple[str, Finding]]) -> None:
    """The findings a refused push named, kept (redacted, as they were shown) so that `landwatch
    allow` takes the fingerprint of one the hook's own scan found, of which no review is kept."""
    data = {"refused": [{"commit": commit, "finding": f.as_dict()} for commit, f in refused]}
    write_atomic(layout.REFUSED.path(git_dir), json.dumps(data), trusted=layout.common_dir(git_dir))


def last_refused(git_dir: os.PathLike[str] | str) -> list[tuple[str, Finding]]:
    """The findings the last refused push named, with the commit (or tag, blob, tree) of each;
    none when none were kept or they cannot be read."""
    try:
        data = json.loads(
            read_file(layout.REFUSED.path(git_dir), trusted=layout.common_dir(git_dir))
        )
        listed = [
            (entry["commit"], Finding.from_dict(entry["finding"])) for entry in data["refused"]
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return [(oid, finding) for oid, finding in listed if isinstance(oid, str) and is_object_id(oid)]


def refused_with(git_dir: os.PathLike[str] | str, fingerprint: str) -> dict[str, list[Finding]]:
    """The findings of fingerprint `fingerprint` the last refused push named, by commit."""
    found: dict[str, list[Finding]] = {}
    for commit, finding in last_refused(git_dir):
        if finding.fingerprint == fingerprint:
            found.setdefault(commit, []).append(finding)
    return found
