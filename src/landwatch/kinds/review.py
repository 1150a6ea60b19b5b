"""The `review` kind: each landed commit (or landed range) reviewed in a warm worker process,
its report written durably before the item is settled.

The worker keeps pygit2 and the opened repositories loaded from one item to the next.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import layout, work_item
from landwatch.job_queue import Job, Reporter
from landwatch.kinds import DEFAULT_MAX_TRIES, FLOOD
from landwatch.kinds.base import Clock, ItemHandler, WorkOrder
from landwatch.kinds.running import WarmWorker
from landwatch.review.findings import Severity
from landwatch.text import plural, safe
from landwatch.work_item import Enqueued, WorkItem, WorkKind

if TYPE_CHECKING:
    import pygit2

    from landwatch import sharing
    from landwatch.review.linters import LinterPolicy
    from landwatch.review.report import Report

log = logging.getLogger("landwatch.reviewer")


def warm_up() -> None:
    """What every review needs, paid once in the worker: pygit2's import. The secret rule set
    is loaded by the first review whose lines hold what a match needs (0.4 s; rule_anchors)."""
    import landwatch.review_landing  # noqa: F401


# How long past its budget a review may run before its worker is ended: the budget is looked at
# between one rule's work on one file and the next, and none of those takes this long.
OVERRUN_GRACE = 15.0


def review_in_worker(
    git_dir: str,
    oid: str,
    base: str | None,
    rewritten: tuple[str, ...] = (),
    budget: float | None = None,
) -> dict[str, Any]:
    """The review of what landed at `oid` (on `base` for a landed range), stored: carried over
    from the commit a rebase or amend replaced (`rewritten`: each one, a squash's several),
    taken from a teammate's shared note, or made here. With sharing on, a landed range's
    commits are each taken where a teammate shared them; of the rest, a few are each queued
    for a review of its own, a flood is one range. The secret rules run on each commit taken
    within half the budget; the review made here has what is left of it."""
    from landwatch import layout, sharing, trust
    from landwatch.review.budget import Budget

    if _gone(git_dir, oid):
        return _nothing_left(oid, base)
    policy = trust.policy(git_dir)
    settings = layout.read_git_settings(git_dir)
    remote = settings[layout.SHARE_REMOTE]
    seconds = settings[layout.REVIEW_BUDGET] if budget is None else budget
    job = Budget(seconds)
    found = sharing.finder(git_dir, remote, policy, Budget(seconds / 2)) if remote else None
    hooks = bool(settings[layout.PROJECT_HOOKS] and _declares_hooks(git_dir, oid))
    said: list[str] = []
    taken = 0
    told: list[str] = []  # what the review of a flood says of the shared reviews taken
    if found is not None and base is not None:
        range_outcome = _landed_range(git_dir, oid, base, found, hooks)
        if isinstance(range_outcome, dict):
            return range_outcome
        taken, base, told = range_outcome
    left = max(job.remaining(), seconds / 2) if found is not None else seconds
    result, how, replaced = _made(git_dir, oid, base, rewritten, left, policy, found)
    result.notes += told
    if how == "shared":
        taken += 1
    path, sharing_asked = _store(git_dir, result, replaced, settings, policy, how, hooks)
    if found is not None:
        sharing.count_taken(git_dir, taken)
        said = found.ignored
    outcome = _outcome(result, path, how, taken, said, hooks)
    outcome["share_queued"] = sharing_asked
    return outcome


def _gone(git_dir: str, oid: str) -> bool:
    """Whether the landed commit is no longer in the repository (reset away, its reflog expired,
    then pruned by gc): no try brings it back. pygit2 and git must both say so, git silently: a
    repository that cannot be read is not one without the commit. A partial clone's git says
    why it did not fetch it (our git reaches no remote): the commit is missing all the same."""
    from landwatch.git import run_git
    from landwatch.review.change import open_repository

    repository = open_repository(git_dir)
    if oid in repository:
        return False
    asked = run_git("cat-file", "-e", oid, git_dir=git_dir)
    return asked.returncode == 1 and (not asked.stderr.strip() or is_partial(repository))


def is_partial(repository: pygit2.Repository) -> bool:
    """A partial clone (`git clone --filter`): a promisor remote (git 2.39 writes
    `remote.NAME.promisor`) or the repository extension naming one."""
    return any(
        entry.name == "extensions.partialclone"
        or (entry.name.startswith("remote.") and entry.name.endswith(".promisor"))
        for entry in repository.config
    )


def _nothing_left(oid: str, base: str | None) -> dict[str, Any]:
    """The outcome of an item whose commit is gone: done, with no review, said once in the log.
    Before, it failed five times over minutes and was given up, and the one line told of it."""
    return {
        "commit": oid,
        "summary": "gone: the commit is no longer in the repository; nothing to review",
        "report": None,
        "truncated": False,
        "carried_over": False,
        "taken": 0,
        "shared_by": None,
        "said": [
            f"{oid[:12]}{'' if base is None else ' (a landed range)'} is no longer in the "
            "repository (reset away and pruned by gc): nothing to review"
        ],
        "project_hooks": False,
    }


def _landed_range(
    git_dir: str, oid: str, base: str, found: sharing.Finder, hooks: bool
) -> dict[str, Any] | tuple[int, str | None, list[str]]:
    """A landed range with sharing on: the teammates' reviews taken; a few commits nobody shared
    queued each for a review of its own (the tip is reviewed now, alone), a flood reviewed as
    one range. The outcome when nothing is left to review here, else (taken, the base left, what
    the range's review is to say of what was taken)."""
    from landwatch import report_store, sharing

    plan = sharing.plan_range(
        found, oid, base, reviewed=lambda at: report_store.stored(git_dir, at)
    )
    for report in plan.taken:
        report_store.write(git_dir, report, least=Severity.ERROR, durable=False)
    if plan.taken:
        # One sync for them all before the item settles: a sync of each file (two fsyncs a
        # report) was most of the time a pull of 1,000 shared reviews took.
        os.sync()
    if plan.too_long or len(plan.unshared) > FLOOD:
        shared = len(plan.taken)
        said = (
            f"{plural(shared, 'commit')} of this range carried a teammate's review, taken "
            "(landwatch show COMMIT); the range reviewed as one, those commits too"
        )
        return shared, base, [said] if shared else []
    for other in plan.unshared:
        if other != oid:
            work_item.enqueue(WorkItem(WorkKind.REVIEW, other, Path(git_dir)))
    if oid in plan.unshared:
        return len(plan.taken), None, []
    sharing.count_taken(git_dir, len(plan.taken))
    tip = next((r for r in plan.taken if r.commit == oid), None)
    return {
        "commit": oid,
        "summary": f"{plural(len(plan.taken), 'shared review')} taken, "
        f"{plural(len(plan.unshared), 'commit')} queued for review",
        "report": str(layout.report_file(git_dir, oid)),
        "truncated": False,
        "carried_over": False,
        "taken": len(plan.taken),
        "shared_by": tip.reviewed_by if tip is not None else None,
        "said": found.ignored,
        "project_hooks": hooks,
    }


def _made(
    git_dir: str,
    oid: str,
    base: str | None,
    rewritten: tuple[str, ...],
    budget: float | None,
    policy: LinterPolicy,
    found: sharing.Finder | None,
) -> tuple[Report, str, list[Report]]:
    """The review of `oid`, and how it was come by: "carried" over from the commit a rebase or
    amend replaced (the first of a squash's), "shared" by a teammate, or "reviewed" here; and
    the reviews of the commits it replaced."""
    from landwatch import report_store
    from landwatch.review import rewrite
    from landwatch.review.change import open_repository
    from landwatch.review_landing import review_landing

    replaced: list[Report] = []
    if base is None:
        for old in replaced_by(git_dir, oid, base, rewritten):
            kept = report_store.read_review(git_dir, old)
            replaced += [kept] if kept is not None else []
        if replaced:
            carried = rewrite.carry_over(open_repository(git_dir), oid, replaced[0], policy)
            if carried is not None:
                return carried, "carried", replaced
        if found is not None:
            shared = found.take(oid)
            if shared is not None:
                return shared, "shared", replaced
    return review_landing(git_dir, oid, base, linters=policy, budget=budget), "reviewed", replaced


def replaced_by(
    git_dir: str, oid: str, base: str | None, rewritten: tuple[str, ...]
) -> tuple[str, ...]:
    """The commits the landing of `oid` replaced, whose findings read are not told again: those
    a rebase named (`rewritten`), else a commit's amend's (rewrite.amended_from); both kinds'."""
    if rewritten or base is not None:
        return rewritten
    from landwatch.git import dropped
    from landwatch.review import rewrite
    from landwatch.review.change import open_repository

    repo = open_repository(git_dir)
    # Where git cannot tell, none is gone: a line too many is told, never a finding lost.
    return rewrite.amended_from(repo, oid, gone=lambda olds: dropped(git_dir, olds) or set())


def _store(
    git_dir: str,
    result: Report,
    replaced: list[Report],
    settings: layout.GitSettings,
    policy: LinterPolicy,
    how: str,
    hooks: bool,
) -> tuple[Path, bool]:
    """The review stored, told (a teammate's only at error; with the project's hooks' result
    when they run next; not at all when its commit was replaced already), written as a note and
    shared; its path, and whether a `share` item was queued to push the note."""
    from landwatch import notify, report_store, sharing, trust
    from landwatch.git import is_dropped

    # A teammate's review, or a teammate's commits arriving by pull: told only at error.
    least = Severity.ERROR if how == "shared" else least_told(git_dir, result)
    # A landed range is told; a commit only while the person has it (git.dropped). A review
    # with nothing to say asks git nothing.
    tell = result.base is not None or not result.findings or not is_dropped(git_dir, result.commit)
    base = result.base
    brought = _brought(git_dir, result.commit, base) if base is not None and result.findings else []
    path = report_store.write(
        git_dir, result, replaces=replaced, brought=brought, least=least, hold=hooks, tell=tell
    )
    if result.linters_held_back is not None:
        trust.held_back(git_dir, result.linters_held_back)
    queued = False
    if how != "shared" and sharing.writes_notes(settings):
        queued = sharing.record(git_dir, result, policy, remote=settings[layout.SHARE_REMOTE])
    if tell and result.worst() > 0:
        wanted = notify.level(settings[layout.NOTIFY])
        notify.tell(Path(git_dir), result, None if wanted is None else max(wanted, least))
    return path, queued


def _brought(git_dir: str, tip: str, base: str) -> list[Report]:
    """The kept reviews of the commits a landed range brings (base..tip, the tip aside), and of
    those of the person's branches it brings a copy of (whose.copied): a merge of their own
    branch, or a pull of it as the host rebased it, tells nothing its own lines told or are to."""
    import pygit2

    from landwatch import report_store
    from landwatch.review import whose
    from landwatch.review.change import open_repository

    repo = open_repository(git_dir)
    try:
        walker = repo.walk(tip, pygit2.enums.SortMode.NONE)
        walker.hide(base)
        walked = list(walker)  # the tip too: a copy of a branch's commit may be the range's last
    except (KeyError, ValueError, pygit2.GitError):
        return []  # unread: a line too many is told, never a finding lost
    stored = {at for commit in walked if report_store.stored(git_dir, at := str(commit.id))}
    kept = [at for commit in walked if (at := str(commit.id)) in stored and at != tip]
    unreviewed = [commit for commit in walked[: whose.LOOKED_AT] if str(commit.id) not in stored]
    kept += whose.copied(repo, tip, unreviewed, lambda at: report_store.stored(git_dir, at))
    return [review for at in kept if (review := report_store.read_review(git_dir, at))]


def _outcome(
    result: Report, path: Path, how: str, taken: int, said: list[str], hooks: bool
) -> dict[str, Any]:
    shared = f" (shared by {result.reviewed_by})" if how == "shared" else ""
    return {
        "commit": result.commit,
        "summary": result.summary() + shared,
        "report": str(path),
        "truncated": result.truncated,
        "carried_over": how == "carried",
        "taken": taken,
        "shared_by": result.reviewed_by,
        "said": said,
        "project_hooks": hooks,
    }


def _declares_hooks(git_dir: str, oid: str) -> bool:
    """Whether the landed tree has a hook manager's configuration (nothing of it read)."""
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.project_hooks.config import declares_hooks

    repo = open_repository(git_dir)
    return declares_hooks(resolve(repo, oid).tree)


def least_told(git_dir: str, result: Report) -> Severity:
    """The least severity the one line and a notification tell of: error for others' commits
    (a teammate's, by pull, whether landed as a range or queued one by one from it), which the
    report's notes then say; else warning."""
    from landwatch import sharing
    from landwatch.review import whose
    from landwatch.review.change import open_repository, resolve

    repo = open_repository(git_dir)
    base = result.base
    if base is None:
        parents = resolve(repo, result.commit).parents if result.shape == "commit" else []
        if not parents:
            return Severity.WARNING
        base = str(parents[0].id)
    if not whose.others_only(repo, result.commit, base, sharing.reviewer_email(git_dir)):
        return Severity.WARNING
    result.notes.append(whose.NOTE)
    return Severity.ERROR


class ReviewHandler(ItemHandler[dict[str, Any]]):
    name = WorkKind.REVIEW

    def __init__(self, *, max_tries: int = DEFAULT_MAX_TRIES, clock: Clock | None = None) -> None:
        super().__init__(max_tries=max_tries, clock=clock)
        self.worker = WarmWorker(initializer=warm_up)

    def handle(self, item: WorkItem, reporter: Reporter) -> dict[str, Any]:
        """The review in the warm worker, within the repository's budget; a review that
        overran it by OVERRUN_GRACE is ended with its worker and given up, not tried again."""
        reporter.progress(0, 1, "reviewing")
        budget = layout.read_git_settings(item.git_dir)[layout.REVIEW_BUDGET]
        outcome: dict[str, Any] = self.worker.call(
            reporter,
            review_in_worker,
            str(item.git_dir),
            item.oid,
            item.base,
            item.replaced,
            budget,
            limit=budget + OVERRUN_GRACE,
        )
        for line in outcome.get("said", ()):
            log.warning("%s: %s", item.id, safe(line))
        if outcome.get("project_hooks"):
            # The project's own hooks, in their own line: asked for once the review is kept.
            asked = WorkItem(
                WorkKind.PROJECT_HOOKS,
                item.oid,
                item.git_dir,
                item.work_tree,
                item.base,
                rewritten=item.rewritten,
                also_rewritten=item.also_rewritten,
            )
            added = False
            try:
                added = work_item.enqueue(asked, now=self.clock.time()) is Enqueued.ADDED
            finally:
                if not added:
                    # They ran on it before (a review made again): its line waits for nothing.
                    from landwatch import report_store

                    report_store.release_held(item.git_dir, item.oid)
        reporter.progress(1, 1, outcome["summary"])
        return outcome

    def follow_up(self, job: Job[WorkOrder, dict[str, Any]]) -> bool:
        """A review of a landing whose tree declares hooks asked for them to run, or one whose
        note was queued to be shared: left to the watcher, a `--once` reviewer could end
        before it saw the `share` item, and the note would wait for the next run."""
        report = job.report or {}
        return bool(report.get("project_hooks") or report.get("share_queued"))

    def close(self) -> None:
        self.worker.close()
