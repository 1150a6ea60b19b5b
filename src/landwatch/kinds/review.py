"""The `review` kind: each landed commit (or landed range) reviewed in a warm worker process,
its report written durably before the item is settled.

The worker keeps pygit2 and the opened repositories loaded from one item to the next.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import layout, work_item
from landwatch.job_queue import Job, Reporter
from landwatch.kinds import DEFAULT_MAX_TRIES
from landwatch.kinds.base import Clock, ItemHandler, WorkOrder
from landwatch.kinds.running import WarmWorker
from landwatch.review.findings import Severity
from landwatch.work_item import WorkItem, WorkKind

if TYPE_CHECKING:
    from landwatch.review.report import Report


def warm_up() -> None:
    """What every review needs, paid once in the worker: pygit2's import and the secret rule
    set (loaded from the person's cache, compiled into it the first time)."""
    import landwatch.review_landing  # noqa: F401
    from landwatch.review.secrets import provider_rules

    provider_rules.available()


# How long past its budget a review may run before its worker is ended: the budget is looked at
# between one rule's work on one file and the next, and none of those takes this long.
OVERRUN_GRACE = 15.0


def review_in_worker(
    git_dir: str,
    oid: str,
    base: str | None,
    rewritten: str | None = None,
    budget: float | None = None,
) -> dict[str, Any]:
    from landwatch import layout, notify, report_store, trust
    from landwatch.review import notes, rewrite
    from landwatch.review.change import open_repository
    from landwatch.review_landing import review_landing

    policy = trust.policy(git_dir)
    replaced = None
    result = None
    if base is None:
        repo = open_repository(git_dir)
        replaced_oid = rewritten or rewrite.amended_from(repo, oid)
        replaced = report_store.read_review(git_dir, replaced_oid) if replaced_oid else None
        if replaced is not None:
            result = rewrite.carry_over(repo, oid, replaced, policy)
    carried_over = result is not None
    if result is None:
        result = review_landing(git_dir, oid, base, linters=policy, budget=budget)
    least = least_told(git_dir, oid, base, result)
    path = report_store.write(git_dir, result, replaces=replaced, least=least)
    if result.linters_held_back is not None:
        trust.held_back(git_dir, result.linters_held_back)
    settings = layout.read_git_settings(git_dir)
    hooks = settings[layout.PROJECT_HOOKS] and _declares_hooks(git_dir, oid)
    if settings[layout.NOTES]:
        notes.write_note(git_dir, result)
    if result.worst() > 0:
        wanted = notify.level(settings[layout.NOTIFY])
        notify.tell(Path(git_dir), result, None if wanted is None else max(wanted, least))
    return {
        "commit": result.commit,
        "summary": result.summary(),
        "report": str(path),
        "truncated": result.truncated,
        "carried_over": carried_over,
        "project_hooks": hooks,
    }


def _declares_hooks(git_dir: str, oid: str) -> bool:
    """Whether the landed tree has a hook manager's configuration (nothing of it read)."""
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.project_hooks.config import declares_hooks

    repo = open_repository(git_dir)
    return declares_hooks(resolve(repo, oid).tree)


def least_told(git_dir: str, oid: str, base: str | None, result: Report) -> Severity:
    """The least severity the one line and a notification tell of: error for a landed range of
    others' commits (a teammate's, by pull), which the report's notes then say; else warning."""
    from landwatch.git import git
    from landwatch.review import whose
    from landwatch.review.change import open_repository

    if base is None:
        return Severity.WARNING
    email = git("config", "--get", "user.email", cwd=git_dir, check=False)
    if not whose.others_only(open_repository(git_dir), oid, base, email):
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
            item.rewritten,
            budget,
            limit=budget + OVERRUN_GRACE,
        )
        if outcome.get("project_hooks"):
            # The project's own hooks, in their own line: asked for once the review is kept.
            asked = WorkItem(
                WorkKind.PROJECT_HOOKS,
                item.oid,
                item.git_dir,
                item.work_tree,
                item.base,
                rewritten=item.rewritten,
            )
            work_item.enqueue(asked, now=self.clock.time())
        reporter.progress(1, 1, outcome["summary"])
        return outcome

    def follow_up(self, job: Job[WorkOrder, dict[str, Any]]) -> bool:
        """A review of a landing whose tree declares hooks asked for them to run."""
        return bool(job.report and job.report.get("project_hooks"))

    def close(self) -> None:
        self.worker.close()
