"""The `project_hooks` kind: the project's own pre-commit (or prek) and lefthook hooks run on each
landed commit, once the person trusted them, in a warm worker process; what they said is kept
beside the commit's review (report_store.write_hooks) and joins it when read.

Its items are asked for by the review of a landing whose tree declares hooks (kinds.review);
`git config landwatch.projectHooks false` turns it off. Environments that cannot be built yet
(the network) are not a failure: the result says so, and the item is tried again later.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from landwatch import layout
from landwatch.files import read_file, remove, remove_tree, write_atomic
from landwatch.job_queue import Reporter
from landwatch.kinds import DEFAULT_MAX_TRIES
from landwatch.kinds.base import Clock, Failing, ItemHandler, RetryLater, backoff
from landwatch.kinds.running import WarmWorker
from landwatch.review.findings import Severity
from landwatch.review.secrets.redaction import redact_words
from landwatch.work_item import WorkItem, WorkKind

if TYPE_CHECKING:
    from landwatch.trust import Approval
    from landwatch.wall.door import Wall
    from landwatch.wall.project_hooks.landing import How

# How long past the hooks' budget (and the building of their environments) a job may run before
# its worker is ended: reading the commit and the checkout take far less.
OVERRUN_GRACE = 60.0
# Waiting for the network to build the hooks' environments: 5 minutes, doubling, at most 1 hour.
WAIT_FIRST = 300.0
WAIT_CAP = 3600.0


def warm_up() -> None:
    """What every run needs, paid once in the worker: pygit2 and the checkouts' code. The secret
    rules the redaction of what hooks say uses load where it holds what a match needs."""
    import landwatch.wall.project_hooks.landing  # noqa: F401


def hooks_in_worker(
    git_dir: str,
    oid: str,
    base: str | None,
    rewritten: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The project hooks of the commit `oid`, run if trusted, their result stored, told for what
    the hooks' results of the commits it replaced (kinds.review.replaced_by) did not say."""
    from landwatch import report_store, trust
    from landwatch.kinds.review import replaced_by
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.project_hooks.pin import pin_hooks
    from landwatch.review.project_hooks.results import HooksResult
    from landwatch.wall.door import choose
    from landwatch.wall.project_hooks.landing import run_on_landing

    settings = layout.read_git_settings(git_dir)
    if not settings[layout.PROJECT_HOOKS]:
        report_store.release_held(git_dir, oid)
        return {"summary": "turned off (landwatch.projectHooks = false)", "retry": None}
    repo = open_repository(git_dir)
    pinned = pin_hooks(repo, resolve(repo, oid).tree)
    if pinned is None:
        report_store.release_held(git_dir, oid)
        return {"summary": "no hook manager's configuration in this commit", "retry": None}
    approval = trust.approval_of(git_dir, pinned.digest)
    if approval is None:
        notes = [trust.HOOKS_NOT_TRUSTED]
        result = HooksResult(oid, "untrusted", notes=notes, digest=pinned.digest)
        report_store.write_hooks(git_dir, result)
        trust.held_back(git_dir, pinned.digest, trust.HOOKS)
        return {"summary": "not trusted here: not run", "retry": None}
    wall, said = choose(layout.sandbox_asked(settings), os.environ.get("PATH"))
    if wall is None:
        result = HooksResult(oid, "no-wall", notes=[f"the project's hooks did not run: {said}"])
        report_store.write_hooks(git_dir, result)
        return {"summary": "no wall here: not run", "retry": None}
    prepared = _prepared(git_dir, pinned.digest)
    how = _how(git_dir, wall, settings, prepared, approval)
    outcome = run_on_landing(git_dir, oid, base, pinned, how)
    _remember_prepared(git_dir, pinned.digest, prepared, outcome.prepared, outcome.stale)
    report_store.write_hooks(
        git_dir,
        outcome.result,
        replaces=replaced_by(git_dir, oid, base, rewritten),
        least=_least(git_dir, oid),
    )
    return {
        "summary": f"{outcome.result.status}: {len(outcome.result.findings)} finding(s)",
        "retry": outcome.retry,
    }


def _how(
    git_dir: str,
    wall: Wall,
    settings: layout.GitSettings,
    prepared: frozenset[str],
    approval: Approval,
) -> How:
    """How the hooks run here: the repository's budget, the wall, its objects (the common git
    dir's, whichever worktree landed), a private place for the checkouts, landwatch's store of
    this repository's environments, where its installed hook is, the revs its approval
    resolved, and its trust asked again."""
    from landwatch import trust
    from landwatch.files import private_directory
    from landwatch.wall.project_hooks.landing import How

    try:
        # Each landing's checkout is held there while it runs; the next removes those left by a
        # worker ended mid-run (past its limit, or killed with the reviewer): wall.held.
        scratch: Path | None = private_directory(layout.HOOK_RUNS.path(), trusted=None)
    except OSError:
        scratch = None  # the system's temporary directory, rather than no run
    return How(
        budget=float(settings[layout.PROJECT_HOOKS_BUDGET]),
        wall=wall,
        objects=layout.common_dir(git_dir) / "objects",
        scratch=scratch,
        store=hook_store(git_dir),
        hooks_dir=_hooks_dir(git_dir),
        prepared=prepared,
        still_trusted=lambda: trust.is_trusted(git_dir, approval.digest),
        resolved={(url, rev): commit for url, rev, commit in approval.revs},
    )


def hook_store(git_dir: str | Path) -> Path:
    """landwatch's store of this repository's hook environments (0700), named at random when
    first made (layout.HOOK_STORE): a repository cloned later where this one was removed gets
    a store of its own, never what this one's builds left there."""
    from landwatch.files import private_directory

    name = store_name(git_dir)
    if name is None:
        name = os.urandom(16).hex()
        common = layout.common_dir(git_dir)
        write_atomic(layout.HOOK_STORE.path(git_dir), f"{name}\n", trusted=common)
        # Named by the repository's path alone before: another repository's, once at that path.
        remove_tree(layout.HOOK_ENVS.path() / _by_path(git_dir))
    return private_directory(layout.HOOK_ENVS.path() / name, trusted=None)


def store_name(git_dir: str | Path) -> str | None:
    """The name hook_store gave this repository's store; None before it made one (or where
    what is kept is not a name it gives)."""
    common = layout.common_dir(git_dir)
    try:
        name = read_file(layout.HOOK_STORE.path(git_dir), trusted=common).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name if len(name) == 32 and all(c in "0123456789abcdef" for c in name) else None


def _by_path(git_dir: str | Path) -> str:
    from landwatch import trust

    # The path's own bytes: one that is not UTF-8 named its store too.
    return hashlib.sha256(os.fsencode(trust.repository_key(git_dir))).hexdigest()[:16]


def _least(git_dir: str, oid: str) -> Severity:
    """The least severity the one line tells of the hooks' findings: what it tells of the
    commit's review (error only for a landed range of others' commits, its notes say)."""
    from landwatch import report_store
    from landwatch.review import whose

    review = report_store.read_review(git_dir, oid)
    others = review is not None and whose.NOTE in review.notes
    return Severity.ERROR if others else Severity.WARNING


def _hooks_dir(git_dir: str | Path) -> Path | None:
    """Where git runs the repository's hooks from (core.hooksPath honoured)."""
    from landwatch.git import git

    found = git(
        "rev-parse", "--path-format=absolute", "--git-path", "hooks", cwd=git_dir, check=False
    )
    return Path(found) if found else None


def tools_here(git_dir: Path) -> list[str]:
    """Which tool runs each hook manager's configuration HEAD declares, and where it was found
    on this PATH (`landwatch doctor`); nothing when HEAD declares none. Only the person's and
    the system's tools are looked at, each asked its version outside every repository."""
    from landwatch import trust
    from landwatch.errors import UserError
    from landwatch.wall.project_hooks.tools import find, readers

    try:
        pinned = trust.committed_hooks(git_dir)
    except UserError:
        return []  # no commit yet, or a repository that cannot be read
    if pinned is None:
        return []
    trusted = "trusted" if trust.is_trusted(git_dir, pinned.digest) else "not trusted yet"
    lines = []
    for declared in pinned.declared:
        only = readers(declared.family, declared.path)
        tool = find(declared.family, hooks_dir=_hooks_dir(git_dir), only=only)
        if tool is None:
            names = " or ".join(only)
            lines.append(
                f"the project's hooks ({declared.path}) cannot run: {names} is not installed on "
                "this PATH, nor in ~/.local/bin or ~/.cargo/bin"
            )
        else:
            lines.append(
                f"the project's hooks ({declared.path}) run with {tool.describe()} ({trusted})"
            )
    return lines


def _prepared(git_dir: str, digest: str) -> frozenset[str]:
    """The tools whose environments were built for the hooks of this digest here."""
    try:
        text = read_file(
            layout.HOOKS_PREPARED.path(git_dir), trusted=layout.common_dir(git_dir)
        ).decode()
    except (OSError, UnicodeDecodeError):
        return frozenset()
    return frozenset(
        tool
        for tool, _, said in (line.partition(" ") for line in text.splitlines())
        if said == digest
    )


def _remember_prepared(
    git_dir: str, digest: str, before: frozenset[str], built: list[str], stale: list[str]
) -> None:
    now = (before | set(built)) - set(stale)
    if now == before:
        return
    text = "".join(f"{tool} {digest}\n" for tool in sorted(now))
    common = layout.common_dir(git_dir)
    write_atomic(layout.HOOKS_PREPARED.path(git_dir), text, trusted=common, durable=False)


def _waiting_state(git_dir: Path) -> dict[str, object]:
    try:
        data = json.loads(read_file(layout.HOOKS_WAITING.path(git_dir), trusted=git_dir))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class ProjectHooksHandler(ItemHandler[dict[str, Any]]):
    name = WorkKind.PROJECT_HOOKS

    def __init__(self, *, max_tries: int = DEFAULT_MAX_TRIES, clock: Clock | None = None) -> None:
        super().__init__(max_tries=max_tries, clock=clock)
        self.worker = WarmWorker(initializer=warm_up)
        self.waits: dict[Path, int] = {}  # environments not built yet, in a row, per repository

    def handle(self, item: WorkItem, reporter: Reporter) -> dict[str, Any]:
        """The hooks in the warm worker, within their budget (and the time their environments
        take to build); a result that asks to wait is stored first, then waited for."""
        from landwatch.wall.project_hooks.run import PREPARE_TIMEOUT

        reporter.progress(0, 1, "running the project's hooks")
        budget = layout.read_git_settings(item.git_dir)[layout.PROJECT_HOOKS_BUDGET]
        try:
            outcome: dict[str, Any] = self.worker.call(
                reporter,
                hooks_in_worker,
                str(item.git_dir),
                item.oid,
                item.base,
                item.replaced,
                limit=budget + 2 * PREPARE_TIMEOUT + OVERRUN_GRACE,
            )
        except BaseException:
            # No result of theirs to tell with it: the review's line is told now, alone.
            from landwatch import report_store

            report_store.release_held(item.git_dir, item.oid)
            raise
        if outcome.get("retry"):
            waits = self.waits.get(item.git_dir, 0) + 1
            self.waits[item.git_dir] = waits
            self._remember_waiting(item.git_dir, str(outcome["retry"]))
            after = backoff(waits, first=WAIT_FIRST, cap=WAIT_CAP)
            raise RetryLater(f"the project's hooks wait: {outcome['retry']}", after=after)
        self.waits.pop(item.git_dir, None)
        remove(layout.HOOKS_WAITING.path(item.git_dir), trusted=item.git_dir)
        reporter.progress(1, 1, outcome["summary"])
        return outcome

    def gave_up(self, item: WorkItem) -> None:
        """Given up by recovery: the review's line told alone, the gate waiting no more."""
        from landwatch import report_store

        report_store.release_held(item.git_dir, item.oid)

    @classmethod
    def failing(cls, git_dir: Path, now: float) -> Failing | None:
        """The hooks' environments have failed to build here; asked while an item of theirs
        waits (kinds.failing)."""
        state = _waiting_state(git_dir)
        since = state.get("failing_since")
        if not isinstance(since, int | float):
            return None
        what = "building the project hooks' environments"
        return Failing(cls.name, what, now - float(since), str(state.get("last_error", "")))

    def _remember_waiting(self, git_dir: Path, error: str) -> None:
        since = _waiting_state(git_dir).get("failing_since")
        state = {
            "failing_since": since if isinstance(since, int | float) else self.clock.time(),
            # What the tool said (its last line may echo a value of the configuration): redacted.
            "last_error": redact_words(error)[:500],
        }
        path = layout.HOOKS_WAITING.path(git_dir)
        write_atomic(path, json.dumps(state), trusted=git_dir, durable=False)

    def close(self) -> None:
        self.worker.close()
