"""The `share` kind: the review notes (refs/notes/landwatch) pushed to the remote sharing names,
with the push kind's machinery: offline is a backoff, a push is never forced, and ten notes
written while offline go in one push. A push the remote refuses because a teammate pushed notes
first is fetched, merged (both reviews of a commit kept) and pushed again.
"""

from __future__ import annotations

import json
from pathlib import Path

from landwatch import layout, sharing
from landwatch.files import write_atomic
from landwatch.job_queue import Reporter
from landwatch.kinds.base import GiveUp, RetryLater
from landwatch.kinds.push import PUSH_TIMEOUT, PushHandler, PushResult, Rejected, read_state
from landwatch.review.notes import NOTES_REF
from landwatch.work_item import WorkItem, WorkKind

# Pushes tried in one job while teammates' pushes keep moving the remote's notes.
ROUNDS = 3
NOTES = "the review notes"


class ShareHandler(PushHandler):
    name = WorkKind.SHARE
    state = layout.SHARE_STATE

    @classmethod
    def failing_what(cls, remote: str) -> str:
        return f"sharing reviews with {remote}"

    def handle(self, item: WorkItem, reporter: Reporter) -> PushResult:
        git_dir = item.git_dir
        remote = layout.read_git_settings(git_dir)[layout.SHARE_REMOTE]
        if not remote:
            self._settled(git_dir)
            return PushResult(None, note="sharing is off (landwatch share)")
        if not self._is_remote(git_dir, reporter, remote):
            self._settled(git_dir)
            raise GiveUp(
                f"no remote named {remote!r} (landwatch.share.remote); `landwatch share` names "
                "another, `landwatch share --off` stops sharing"
            )
        report = PushResult(remote)
        for _ in range(ROUNDS):
            if self._pushed_already(git_dir, reporter, remote):
                report.up_to_date.append(NOTES_REF)  # an earlier push took this note along
                self._succeeded(git_dir, remote)
                return report
            try:
                self._push(git_dir, reporter, remote, f"{NOTES_REF}:{NOTES_REF}", NOTES)
            except Rejected as rejected:
                if not rejected.behind:
                    self._settled(git_dir)
                    raise
                self._fetch_and_merge(git_dir, reporter, remote)
                continue
            report.pushed.append(NOTES_REF)
            self._succeeded(git_dir, remote)
            return report
        raise RetryLater(f"{remote}'s notes kept moving under {ROUNDS} pushes", after=60)

    def _pushed_already(self, git_dir: Path, reporter: Reporter, remote: str) -> bool:
        """Whether the remote (as last seen) holds the local notes: no note waits."""
        code, out, _, _ = self._git(git_dir, reporter, "rev-parse", "-q", "--verify", NOTES_REF)
        if code != 0:
            return True  # no notes at all: nothing to push
        tracking = sharing.tracking_ref(remote)
        code, _, _, _ = self._git(
            git_dir, reporter, "merge-base", "--is-ancestor", out.strip(), tracking
        )
        return code == 0

    def _fetch_and_merge(self, git_dir: Path, reporter: Reporter, remote: str) -> None:
        """The remote's notes fetched into their remote-tracking ref and merged into ours."""
        code, _, err, timed_out = self._git(
            git_dir,
            reporter,
            "fetch",
            "--quiet",
            "--no-tags",
            remote,
            sharing.fetch_refspec(remote),
            timeout=PUSH_TIMEOUT,
        )
        if code != 0 or timed_out:
            said = [line.strip() for line in err.splitlines() if line.strip()]
            message = "no answer" if timed_out else (said[-1] if said else f"git fetch exit {code}")
            self._unreachable(git_dir, remote, message, True)
        problem = sharing.merge_fetched(git_dir, remote)
        if problem is not None:
            raise RuntimeError(f"the notes of {remote} could not be merged: {problem}")

    def _succeeded(self, git_dir: Path, remote: str) -> None:
        """Pushing works: what status says of the last push, the failure forgotten."""
        self.failures.pop(git_dir, None)
        previous = read_state(git_dir, self.state) or {}
        state = {"remote": remote, "pushed_at": self.clock.time()}
        if previous.get("pushed_at") == state["pushed_at"]:
            return
        write_atomic(
            self.state.path(git_dir),
            json.dumps(state),
            trusted=layout.common_dir(git_dir),
            durable=False,
        )
