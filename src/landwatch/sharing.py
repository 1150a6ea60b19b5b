"""A team's reviews shared through git notes: each review written as a note on its commit under
refs/notes/landwatch (review.notes), pushed by the share kind, fetched into a remote-tracking
notes ref by the refspec `landwatch share` adds, merged into the local notes without loss, and
taken instead of a review of one's own when made under the same rules and configuration.

A teammate's note is data: taking it is trusting them (docs/security.md), and it can only add to
what is told: every document of a note is read, one that finds more than the one taken means a
review here, and the secret rules still run on each commit taken. `landwatch ci` never takes one
unless told to.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import allowances, layout, work_item
from landwatch.files import exclusive, read_file, write_atomic
from landwatch.git import git, run_git
from landwatch.git import version as git_version
from landwatch.review import allowed, notes
from landwatch.review.budget import Budget
from landwatch.review.notes import NOTES_REF, SharedReview
from landwatch.review.report import Report, with_found_here
from landwatch.work_item import WorkItem, WorkKind

if TYPE_CHECKING:
    import pygit2

    from landwatch.review.config import RulesAt
    from landwatch.review.linters import LinterPolicy
    from landwatch.review.provenance import Memo

# A landed range longer than this is not looked through commit by commit for shared reviews.
SCANNED = 10_000


# The refs below the notes ref, which the fetch pattern takes too, left out: one pushed in its
# place (refs/notes/landwatch/x) failed every sharer's fetch and pull, its tracking ref below the
# one already there. A negative refspec: git 2.29 reads it, an older git refuses every fetch.
EXCLUDED = f"^{NOTES_REF}/*"
NEGATIVE_REFSPECS = (2, 29)


def tracking_ref(remote: str) -> str:
    """The remote-tracking notes ref a fetch of `remote` brings its notes into."""
    return f"refs/notes/remotes/{remote}/landwatch"


def fetch_refspecs(remote: str, into: str | None = None) -> tuple[str, ...]:
    """The refspecs that make every fetch of `remote` bring its notes: into the remote-tracking
    ref (or `into`), never straight into the local one (a forced fetch there would replace one's
    own notes), by a pattern, so that a remote where nobody shared a review yet fails no fetch;
    then, where git reads it, EXCLUDED."""
    pattern = f"+{NOTES_REF}*:{into or tracking_ref(remote)}*"
    return (pattern, EXCLUDED) if git_version() >= NEGATIVE_REFSPECS else (pattern,)


def writes_notes(settings: layout.GitSettings) -> bool:
    """Whether reviews are written as notes: asked for (landwatch.notes), or shared."""
    return bool(settings[layout.NOTES] or settings[layout.SHARE_REMOTE])


def reviewer_email(git_dir: os.PathLike[str] | str) -> str:
    """Who reviews here, as git knows the person (user.email); "" when unset."""
    return git("config", "--get", "user.email", cwd=git_dir, check=False).strip()


@contextlib.contextmanager
def notes_locked(git_dir: os.PathLike[str] | str) -> Iterator[None]:
    """Hold the lock of every change landwatch makes to refs/notes/landwatch here: neither
    libgit2's note writes nor git's notes merge check what the ref held before they move it."""
    common = layout.common_dir(git_dir)
    with exclusive(layout.NOTES_LOCK.path(git_dir), trusted=common):
        yield


def record(
    git_dir: os.PathLike[str] | str,
    report: Report,
    linters: LinterPolicy,
    *,
    remote: str | None,
    memo: Memo | None = None,
) -> bool:
    """`report` (a review made here of one commit) written as its note, beside the reviews the
    note held; with a remote, a `share` item queued to push it. Whether that item was queued:
    not for a review of a landed range, one taken from a teammate, or with no remote."""
    import pygit2

    from landwatch import standards_store
    from landwatch.review import provenance
    from landwatch.review.change import open_repository

    if report.base is not None or report.reviewed_by is not None:
        return False
    repo = open_repository(git_dir)
    commit = repo[report.commit]
    assert isinstance(commit, pygit2.Commit)
    learned = standards_store.current(git_dir, repo, commit)  # as the review learned it
    line = notes.document(
        dataclasses.replace(report, allowed=allowances.covering(git_dir, report)),
        reviewed_by=reviewer_email(git_dir),
        rules_version=provenance.rules_version(),
        config_hash=provenance.config_hash(repo, commit, linters, memo),
        at=time.time(),
        learned=learned.effective(),
    )
    with notes_locked(git_dir):
        try:
            held = notes.read_note(repo, report.commit)
        except ValueError:
            held = None  # a note too large to be ours: replaced
        notes.write_note(repo, report.commit, notes.composed(held, line, report.commit))
    if not remote:
        return False
    work_item.enqueue(WorkItem(WorkKind.SHARE, report.commit, Path(git_dir)))
    return True


def merge_fetched(
    git_dir: os.PathLike[str] | str, remote: str, ref: str | None = None
) -> str | None:
    """The remote's notes, as the last fetch brought them (at `ref`, else its tracking ref),
    merged into the local notes (git's cat_sort_uniq: two reviews of one commit both kept); None
    when done or nothing was new, else why it could not be. Run by git, not pygit2: the share
    kind calls it in the reviewer."""
    common = layout.common_dir(git_dir)
    tracking = ref or tracking_ref(remote)
    if not run_git("rev-parse", "-q", "--verify", tracking, git_dir=common).ok:
        return None  # nothing fetched yet
    if run_git("merge-base", "--is-ancestor", tracking, NOTES_REF, git_dir=common).ok:
        return None  # merged already
    with notes_locked(git_dir):
        result = run_git(
            *_identity(common),
            "notes",
            f"--ref={NOTES_REF}",
            "merge",
            "-q",
            "--strategy=cat_sort_uniq",
            tracking,
            git_dir=common,
        )
    if result.ok:
        return None
    said = [line for line in result.stderr.splitlines() if line.strip()]
    return said[-1] if said else f"git notes merge exit {result.returncode}"


def _identity(common: Path) -> list[str]:
    """A notes merge commits: who does it when git knows nobody here (a fresh machine)."""
    known = run_git("var", "GIT_COMMITTER_IDENT", git_dir=common)
    return [] if known.ok else ["-c", "user.name=landwatch", "-c", "user.email=landwatch@localhost"]


@dataclass
class Finder:
    """Finds, for commits of one repository, the teammate's review that stands for one's own:
    complete, made under these rules and this configuration, and not contradicted by another;
    and takes it with the secret rules run here on the commit (`take`)."""

    git_dir: Path
    repo: pygit2.Repository
    linters: LinterPolicy
    refs: tuple[str, ...] = (NOTES_REF,)
    memo: Memo = field(default_factory=lambda: _memo())
    ignored: list[str] = field(default_factory=list)  # one line per note not (all) read
    # The time the secret rules may take on all the commits taken (None: each commit the
    # default review budget): past it, a commit is reviewed here, not taken.
    budget: Budget | None = None
    out_of_time: int = 0  # the commits not taken because the budget ran out
    # Where the secret rules run on a commit taken read their configuration (`landwatch ci`: the
    # rules it came to, so that no trailer of the commit leaves out a secret); None: its own.
    rules_at: RulesAt | None = None

    def reviews(self, commit: str) -> list[SharedReview]:
        """Every review the notes of `commit` hold (in each ref), once per document: two that
        differ in any byte (a forged copy of a real one's reviewer and time) are both read.
        None at all when a note of it is too large to read whole: what it left unread could
        say more than what would be taken."""
        found: dict[bytes, SharedReview] = {}
        for ref in self.refs:
            try:
                data = notes.read_note(self.repo, commit, ref)
                read = notes.parse(data, commit) if data is not None else None
            except ValueError as error:
                self.ignored.append(f"the note of {commit[:12]} in {ref}: {error}")
                return []
            if read is None:
                continue
            if read.ignored:
                self.ignored.append(f"the note of {commit[:12]} in {ref}: {read.said()}")
            for review in read.reviews:
                found.setdefault(review.document, review)
        return list(found.values())

    def config_hash(self, commit: str) -> str:
        """The hash of the configuration this person's review of `commit` runs under."""
        from landwatch.review import provenance

        return provenance.config_hash(self.repo, self._commit(commit), self.linters, self.memo)

    def learned(self, commit: str) -> dict[str, Any]:
        """What the history before `commit` teaches the rules here (Standards.effective)."""
        from landwatch import standards_store

        return standards_store.current(self.git_dir, self.repo, self._commit(commit)).effective()

    def _commit(self, commit: str) -> pygit2.Commit:
        import pygit2

        found = self.repo[commit]
        assert isinstance(found, pygit2.Commit)
        return found

    def matching(
        self, commit: str, reviews: list[SharedReview] | None = None
    ) -> SharedReview | None:
        """The review to take for `commit`, if one matches and no other document of the commit
        contradicts it (`disagree`: a forged clean one beside the real, or a bug): reviewed
        here then, never settled for the cleaner."""
        from landwatch.review import provenance

        reviews = self.reviews(commit) if reviews is None else reviews
        if not reviews:
            return None
        mine = self.config_hash(commit)
        rules = provenance.rules_version()
        candidates = [
            review
            for review in reviews
            if review.complete and review.rules_version == rules and review.config_hash == mine
        ]
        if not candidates:
            return None
        taken = max(candidates, key=lambda review: review.reviewed_at)
        if disagree(taken, reviews):
            self.ignored.append(f"the shared reviews of {commit[:12]} disagree: reviewed here")
            return None
        return taken

    def take(self, commit: str, reviews: list[SharedReview] | None = None) -> Report | None:
        """The teammate's review to take for `commit` (`matching`), with the rules a push is
        refused for (the secret rules, conflict markers) run here on the commit: what they find
        that it lacks is added as this reviewer's own. None when none matches, or those rules
        could not check the whole commit (reviewed here)."""
        from landwatch.review import engine

        reviews = self.reviews(commit) if reviews is None else reviews
        shared = self.matching(commit, reviews)
        if shared is None:
            return None
        if self.budget is not None and self.budget.spent:
            self._ran_out()
            return None
        limit = None if self.budget is None else Budget(self.budget.remaining())
        here = engine.review(
            self.git_dir, commit, budget=limit, at_push=True, rules_at=self.rules_at
        )
        if here.truncated:
            if limit is not None and limit.spent:
                self._ran_out()
            else:
                self.ignored.append(
                    f"the rules a push is refused for could not check all of {commit[:12]}: "
                    "reviewed here"
                )
            return None
        taken = with_found_here(shared.report, here)
        # What any review of the note allowed of what is taken (`landwatch allow`) stays allowed.
        carried = [one for review in reviews for one in review.report.allowed]
        return dataclasses.replace(taken, allowed=allowed.covering(carried, commit, taken.findings))

    def _ran_out(self) -> None:
        self.out_of_time += 1
        if self.out_of_time == 1:
            self.ignored.append(
                "the rules a push is refused for ran out of time on the commits taken: the rest "
                "reviewed here"
            )


def _memo() -> Memo:
    from landwatch.review.provenance import Memo

    return Memo()


def disagree(chosen: SharedReview, reviews: list[SharedReview]) -> bool:
    """Whether the reviews of a commit contradict `chosen`, one of them: another made under the
    same rules and configuration found otherwise, or any found, on the rules `chosen` ran, what
    it lacks. The reviewer then takes none (`matching`), and `landwatch show` says so."""
    made = (chosen.rules_version, chosen.config_hash)
    same = [r for r in reviews if r.complete and (r.rules_version, r.config_hash) == made]
    if any(_found(review) != _found(chosen) for review in same):
        return True
    ran, has = set(chosen.report.rules), {(f.rule, f.fingerprint) for f in chosen.report.findings}
    return any(
        f.rule in ran and (f.rule, f.fingerprint) not in has
        for review in reviews
        for f in review.report.findings
    )


def _found(review: SharedReview) -> frozenset[tuple[str, str, str]]:
    return frozenset((f.rule, f.severity.name, f.fingerprint) for f in review.report.findings)


def finder(
    git_dir: os.PathLike[str] | str,
    remote: str,
    linters: LinterPolicy,
    budget: Budget | None = None,
) -> Finder:
    """A Finder of this repository's notes, the remote's merged into them first (read beside
    them when the merge could not be made); `budget`: the secret rules' time on what it takes."""
    from landwatch.review.change import open_repository

    problem = merge_fetched(git_dir, remote)
    refs = (NOTES_REF,) if problem is None else (NOTES_REF, tracking_ref(remote))
    found = Finder(Path(git_dir), open_repository(git_dir), linters, refs, budget=budget)
    if problem is not None:
        found.ignored.append(f"the notes of {remote} not merged: {problem}")
    return found


@dataclass
class RangePlan:
    """A landed range as sharing sees it: the reviews to take, the commits nobody shared
    (oldest first), and whether the range was too long to look through."""

    taken: list[Report] = field(default_factory=list)
    unshared: list[str] = field(default_factory=list)
    too_long: bool = False


def plan_range(found: Finder, tip: str, base: str, *, reviewed: Callable[[str], bool]) -> RangePlan:
    """What of `base..tip` carries a review to take; `reviewed` are commits reviewed here
    already (stored), which need neither."""
    import pygit2

    plan = RangePlan()
    walker = found.repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    walker.hide(base)
    for count, commit in enumerate(walker):
        if count >= SCANNED:
            return RangePlan(too_long=True)
        oid = str(commit.id)
        if reviewed(oid):
            continue
        taken = found.take(oid)
        if taken is None:
            plan.unshared.append(oid)
        else:
            plan.taken.append(taken)
    return plan


def count_taken(git_dir: os.PathLike[str] | str, taken: int) -> int:
    """Add `taken` to the count of reviews taken from teammates here; the new count."""
    common = layout.common_dir(git_dir)
    place = layout.SHARED_TAKEN.path(git_dir)
    try:
        before = int(read_file(place, trusted=common, limit=64).decode().strip() or 0)
    except (OSError, ValueError):
        before = 0
    total = before + taken
    if taken:
        with contextlib.suppress(OSError):
            write_atomic(place, f"{total}\n", trusted=common, durable=False)
    return total
