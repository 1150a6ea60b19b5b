"""The `push` kind: back up what landed by pushing its branch to a remote with the user's own
git (credential helpers and ssh agents work as they do for the user; nothing ever prompts).

Offline is a backoff, not a failure; a rejected push is a real failure, told with the remote's
words; ten landings on a branch while offline make one push of its newest commit.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from landwatch import hook_slots, layout
from landwatch.files import remove
from landwatch.git import Confirm, Fallback, Worktree, worktree_of
from landwatch.job_queue import Reporter
from landwatch.kinds import DEFAULT_MAX_TRIES, push_branch, push_holds
from landwatch.kinds.base import Clock, Failing, GiveUp, ItemHandler, RetryLater, backoff
from landwatch.kinds.push_answer import RefusedInHook, failed, holding
from landwatch.push_remote import destination, is_url, push_urls, tracking_ref
from landwatch.work_item import WorkItem, WorkKind

PUSH_TIMEOUT = 120.0
BACKOFF_FIRST = 60.0
BACKOFF_CAP = 3600.0
# How soon a push waiting for the reviews of what it sends looks again (the reviewer is at them),
# and where it waits only for project hooks whose environments wait to be built (tried again
# 5 min apart at first: kinds.project_hooks.WAIT_FIRST).
REVIEW_WAIT = 5.0
HOOKS_WAIT = 300.0
_WAITS = (REVIEW_WAIT, HOOKS_WAIT)  # by whether all it waits for are such hooks
_ZERO = "0" * 40


def push_backoff(failures: int) -> float:
    """1 min, doubling at each failure, capped at 1 h."""
    return backoff(failures, first=BACKOFF_FIRST, cap=BACKOFF_CAP)


@dataclass
class PushResult:
    remote: str | None
    pushed: list[str] = field(default_factory=list)
    up_to_date: list[str] = field(default_factory=list)
    note: str = ""


class HeldBack(GiveUp):
    """A push held back: a commit it would send holds what the push gate refuses, or where it goes
    is not to be told (push_holds keeps what and why, for status and the one line)."""


class PushHandler(ItemHandler[PushResult]):
    name = WorkKind.PUSH
    state: layout.Place = layout.PUSH_STATE  # how pushing has been failing

    def __init__(self, *, max_tries: int = DEFAULT_MAX_TRIES, clock: Clock | None = None) -> None:
        super().__init__(max_tries=max_tries, clock=clock)
        self.failures: dict[Path, int] = {}

    @classmethod
    def failing(cls, git_dir: Path, now: float) -> Failing | None:
        """Pushing from here has been failing (offline, credentials not at hand); asked while a
        push waits (kinds.failing), as one given up is told as given up."""
        state = push_holds.read_state(git_dir, cls.state) or {}
        since = state.get("failing_since")
        if not isinstance(since, int | float):
            return None
        return Failing(
            cls.name,
            cls.failing_what(str(state.get("remote", ""))),
            now - float(since),
            str(state.get("last_error", "")),
        )

    @classmethod
    def failing_what(cls, remote: str) -> str:
        return f"pushing to {remote}"

    def handle(self, item: WorkItem, reporter: Reporter) -> PushResult:
        git_dir = item.git_dir
        settings = layout.read_git_settings(git_dir)
        remote = settings[layout.PUSH_REMOTE]
        if not remote:
            self._forgotten(git_dir)
            return PushResult(None, note="push is not configured (landwatch.push.remote)")
        # Its git runs in the worktree, as the person's git push there: their pre-push hooks (the
        # gate's among them) find the repository and its files where they look for them. Git
        # finds the repository itself there, so git is asked that it finds this one.
        at = worktree_of(
            git_dir, item.work_tree, confirm=Confirm.ASKING_GIT, fallback=Fallback.NONE
        )
        if not self._is_remote(at, reporter, remote):
            self._settled(git_dir)
            raise GiveUp(
                f"no remote named {remote!r} (landwatch.push.remote); `git remote -v` lists "
                "this repository's remotes"
            )
        branches, head, why = self._branches(
            at, reporter, remote, item.oid, settings[layout.PUSH_BRANCHES]
        )
        if not branches:
            self._settled(git_dir)
            return PushResult(remote, note=why)
        force, policy = settings[layout.PUSH_FORCE], settings[layout.PUSH_BLOCK]
        report = PushResult(remote)
        for branch in branches:
            target = self._destination(git_dir, remote, branch, item.oid, head)
            if target is None:
                report.note = f"the push of {branch} is held back, as said before"
                continue
            if self._has(at, reporter, remote, target, item.oid):
                report.up_to_date.append(branch)  # an earlier push took it along
                continue
            tip = self._gate(at, reporter, remote, branch, target, item.oid, policy)
            # What is sent is the commit judged, not the branch, which a landing may move meanwhile.
            refspec = f"{tip or f'refs/heads/{branch}'}:{target}"
            try:
                self._push(at, reporter, remote, refspec, branch, force=force)
            except RefusedInHook as refused:
                self._refused_in_hook(git_dir, remote, branch, item.oid, policy, refused)
            except GiveUp:
                self._settled(git_dir)  # the remote answered: reachable, and said no
                raise
            report.pushed.append(branch)
        if report.pushed or report.up_to_date:  # else held back unsent: nothing new was learnt
            self._settled(git_dir, [*report.pushed, *report.up_to_date])
        return report

    def _destination(
        self, git_dir: Path, remote: str, branch: str, landed: str, head: str | None
    ) -> str | None:
        """The ref of `remote` `branch` is pushed to, where the person's `git push` sends it
        (push_remote.destination, HEAD standing for `head`); where it sends it nowhere, HeldBack
        saying why, once per setting: None where an earlier landing's hold said it (told once)."""
        found = destination(git_dir, remote, branch, head)
        if found.ref is None:
            if push_holds.said_before(git_dir, branch, landed, found.setting):
                return None
            why = f"{found.what}: {found.how}, then landwatch retry {landed[:10]}"
            self._hold(git_dir, landed, branch, found.what, why, found.setting)
        return found.ref

    def _gate(
        self,
        at: Worktree,
        reporter: Reporter,
        remote: str,
        branch: str,
        target: str,
        landed: str,
        policy: str,
    ) -> str:
        """The commit `branch` is at, once the push gate lets go what pushing it to `target` sends
        under `policy`: RetryLater while its reviews wait, HeldBack (kept) when it refuses it."""
        # Here, not at the top: status and the one line ask this kind whether it is failing.
        from landwatch import push_gate
        from landwatch.review import blocking

        ref = f"refs/heads/{branch}"
        tip = self._git(at, reporter, "rev-parse", "-q", "--verify", ref)[1].strip()
        if policy == blocking.OFF or not tip:
            return tip
        git_dir = at.git_dir
        # Each place it is pushed to is asked what it holds (a tracking ref may be stale, a second
        # push URL another place: audits); unanswered, the push waits rather than judge all.
        pushed, sending = push_gate.Pushed(ref, tip, target, _ZERO), dict[str, None]()
        for url in push_urls(git_dir, remote) or [""]:  # "": none named, the one git finds
            sent = push_gate.outgoing(git_dir, remote, url, [pushed], where=at.where)
            self._unreachable(git_dir, remote, sent.held.unheard, sent.held.unheard)
            sending.update(dict.fromkeys(sent.commits[::-1]))
        commits = list(sending)
        reports = push_gate.kept(git_dir, commits)
        # A refusal for secrets and conflict markers is the scan's to make on what is not
        # reviewed yet (the rules it refuses for); one for any error waits for reviews and hooks.
        missing = [commit for commit in commits if commit not in reports]
        hooks = push_gate.waiting(git_dir, commits, True) if policy == blocking.ERRORS else set()
        if policy == blocking.ERRORS and (waiting := push_gate.waiting(git_dir, missing) | hooks):
            what = f"the review or the project's hooks of {len(waiting)} commit(s)"
            # Hooks awaited whose result is kept wait for their environments: minutes apart.
            slow = all(layout.hooks_report_file(git_dir, commit).exists() for commit in waiting)
            raise RetryLater(f"waiting for {what} before pushing {branch}", after=_WAITS[slow])
        verdict = push_gate.verdict_of(
            git_dir, commits, reports, policy, push_gate.SCAN_SECONDS, self.clock.monotonic
        )
        if verdict.unjudged:
            raise RetryLater(
                f"{verdict.unjudged[0][:12]} could not be read in time", after=REVIEW_WAIT
            )
        if verdict.refused:
            what = holding(verdict.refused)
            why = (
                f"{what} (landwatch.push.block = {policy}): amend it away, or landwatch allow "
                f"{verdict.refused[0][1].fingerprint} --reason ..., then landwatch retry "
                f"{landed[:10]}"
            )
        elif verdict.cut or verdict.failed:
            # Nobody is there to be told what went unread: pushed by hand, the gate says so.
            what = verdict.partly_read()
            why = f"{what}: look through it, then git push {remote} {branch}"
        else:
            return tip
        self._hold(git_dir, landed, branch, what, why)

    def _refused_in_hook(
        self,
        git_dir: Path,
        remote: str,
        branch: str,
        landed: str,
        policy: str,
        refused: RefusedInHook,
    ) -> NoReturn:
        """A pre-push hook refused the push: a hook of the person's (their tests), held back in
        its words, not retried; the gate, for what the push sends beside what `_gate` judged (a
        tag push.followTags takes along), held back as `_gate` holds back, by the findings it
        named (those it kept that the hook's words name, so none of an older refusal)."""
        from landwatch import push_gate

        if not refused.gate:
            why = (
                f"{refused.words} (a pre-push hook refused it; git push {remote} {branch} runs "
                f"it again): the next landing pushes again, or landwatch retry {landed[:10]}"
            )
            self._hold(git_dir, landed, branch, refused.words, why)
        named = [
            (oid, finding)
            for oid, finding in push_gate.last_refused(git_dir)
            if f"landwatch allow {finding.fingerprint}" in refused.said
        ]
        if not named:
            what = "the push gate refused it in the pre-push hook"
            self._hold(
                git_dir, landed, branch, what, f"{what}: git push {remote} {branch} says why"
            )
        what = holding(named, git_dir)
        why = (
            f"{what} (landwatch.push.block = {policy}), which git push {remote} {branch} sends: "
            f"that push by hand says how to take it out; or landwatch allow "
            f"{named[0][1].fingerprint} --reason ..., then landwatch retry {landed[:10]}"
        )
        self._hold(git_dir, landed, branch, what, why)

    def _hold(
        self, git_dir: Path, landed: str, branch: str, what: str, why: str, setting: str = ""
    ) -> NoReturn:
        """HeldBack, what and why kept in the push state for status and the one line, beside the
        other branches' holds (and the `setting` that held it, where one did: said once)."""
        hold = {"commit": landed, "branch": branch, "what": what, "why": why}
        if setting:
            hold["setting"] = setting
        held = push_holds.with_hold(push_holds.read_state(git_dir) or {}, hold)
        push_holds.write_push_state(git_dir, held, self.state)
        raise HeldBack(f"held back the push of {branch}: {why}")

    def _settled(self, git_dir: Path, pushed: Collection[str] = ()) -> None:
        """Pushing from here is not failing now: forget how it was, and the holds of the branches
        just `pushed`; every other branch's stands (status, said once), whatever became of this
        push (rejected, no remote), until its own push goes through."""
        self.failures.pop(git_dir, None)
        kept = push_holds.standing(push_holds.read_state(git_dir, self.state) or {}, pushed)
        if kept:  # the share kind's state holds none
            push_holds.write_push_state(git_dir, {push_holds.HOLDS: kept}, self.state)
        else:
            self._forgotten(git_dir)

    def _forgotten(self, git_dir: Path) -> None:
        """Pushing from here is off, or all it said is past: the state forgotten, holds too."""
        self.failures.pop(git_dir, None)
        remove(self.state.path(git_dir), trusted=layout.common_dir(git_dir))

    # --- git ---

    def _git(self, at: Worktree, reporter: Reporter, *args: str) -> tuple[int, str, str, bool]:
        result = at.run(*args, timeout=30.0, alive=reporter.alive)
        return result.returncode, result.stdout, result.stderr, result.timed_out

    def _reach(self, at: Worktree, reporter: Reporter, *args: str) -> tuple[int, str, str, bool]:
        """_git asking a remote (a push, a fetch, an ls-remote): the network, minutes for it."""
        result = at.run(*args, timeout=PUSH_TIMEOUT, alive=reporter.alive, network=True)
        return result.returncode, result.stdout, result.stderr, result.timed_out

    def _is_remote(self, at: Worktree, reporter: Reporter, remote: str) -> bool:
        """A remote's name, or a URL or path git can push to (which may be out of reach now)."""
        if is_url(remote):
            return True
        code, _, _, _ = self._git(at, reporter, "remote", "get-url", "--", remote)
        return code == 0

    def _branches(
        self, at: Worktree, reporter: Reporter, remote: str, oid: str, patterns: tuple[str, ...]
    ) -> tuple[list[str], str | None, str]:
        """The branches holding this commit that landwatch.push.branches names (default: the one it
        landed on, push_branch.landed_on), the one it landed on, which HEAD stands for in the
        person's push, and why none is pushed. By default, where which one it landed on cannot
        be told, HeldBack; none, where a landing before was held back among the same, and said."""
        refs, current = push_branch.holding(at, reporter.alive, oid)
        if not refs:
            return [], None, f"{oid[:12]} is on no branch to push"
        landing = push_branch.landed_on(at, reporter.alive, oid, refs, current)
        landed = push_branch.short(landing.ref) if landing.ref else None
        if patterns:
            names = [push_branch.short(ref) for ref in refs]
            pushed = [b for b in names if any(fnmatch.fnmatchcase(b, p) for p in patterns)]
            return pushed, landed, f"{oid[:12]} is on no branch landwatch.push.branches names"
        if landed is None:
            among = push_holds.either(push_branch.short(ref) for ref in landing.among)
            if push_holds.said_before(at.git_dir, among, oid, among):
                return [], None, f"the push of {among} is held back, as said before"
            what = f"which branch {oid[:10]} landed on cannot be told from the reflogs ({among})"
            why = f"{what}: git push {remote} BRANCH by hand, or landwatch.push.branches"
            self._hold(at.git_dir, oid, among, what, why, among)
        return [landed], landed, ""

    def _has(self, at: Worktree, reporter: Reporter, remote: str, target: str, oid: str) -> bool:
        """Whether `oid` is on `remote`'s branch `target` as its tracking ref last said (none is
        kept of a URL)."""
        tracking = tracking_ref(remote, target)
        if tracking is None:
            return False
        code, _, _, _ = self._git(at, reporter, "merge-base", "--is-ancestor", oid, tracking)
        return code == 0

    def _push(
        self,
        at: Worktree,
        reporter: Reporter,
        remote: str,
        refspec: str,
        what: str,
        *,
        force: bool = False,
    ) -> None:
        """`git push` of `refspec` (`what` names it in messages), never forced but with a lease
        when `force`: Rejected when the remote says no, RefusedInHook when the gate refuses it in
        the pre-push hook, RetryLater when it cannot be reached."""
        # The lease alone trusts the tracking ref, which a fetch moves to a teammate's commit
        # nobody merged; --force-if-includes (git 2.30) wants it in the branch's reflog too.
        lease = ["--force-with-lease", "--force-if-includes"] if force else []
        along = [] if self._gate_in_hook(at, reporter) else ["--no-follow-tags"]
        code, out, err, timed_out = self._reach(
            at, reporter, "push", "--porcelain", *lease, *along, "--", remote, refspec
        )
        if code == 0 and not timed_out:
            return
        failure = failed(remote, what, code, out, err, timed_out)
        self._unreachable(at.git_dir, remote, failure.message, failure.unreachable)
        raise RuntimeError(f"git push to {remote} failed: {failure.message}")

    def _gate_in_hook(self, at: Worktree, reporter: Reporter) -> bool:
        """Whether git runs landwatch's gate as `at`'s pre-push hook, judging what push.followTags
        takes along; else (another tool's, not executable) only what _gate judged may go."""
        code, out, _, _ = self._git(
            at, reporter, "rev-parse", "--path-format=absolute", "--git-path", "hooks/pre-push"
        )
        slot = Path(out.strip())
        return code == 0 and os.access(slot, os.X_OK) and hook_slots.runs_ours(slot)

    def _unreachable(self, git_dir: Path, remote: str, message: str, unreachable: object) -> None:
        """When git could not reach `remote`: the retry, backed off (_backed_off)."""
        if unreachable:
            raise self._backed_off(git_dir, remote, message)

    def _backed_off(self, git_dir: Path, remote: str, message: str) -> RetryLater:
        """The retry of what could not go: in 1 min, doubling at each failure up to 1 h, the
        failure remembered for status and the one line."""
        failures = self.failures.get(git_dir, 0) + 1
        self.failures[git_dir] = failures
        after = push_backoff(failures)
        previous = push_holds.read_state(git_dir, self.state) or {}
        failing = push_holds.failing(previous, remote, message, self.clock.time(), after)
        push_holds.write_push_state(git_dir, failing, self.state)
        return RetryLater(f"cannot push to {remote}: {message}", after=after)
