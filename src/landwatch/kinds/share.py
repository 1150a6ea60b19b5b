"""The `share` kind: the review notes (refs/notes/landwatch) pushed to the remote sharing names,
with the push kind's machinery: offline is a backoff, a push is never forced, and ten notes
written while offline go in one push. A push the remote refuses because a teammate pushed notes
first is fetched, merged (both reviews of a commit kept) and pushed again.

Only the notes of commits the remote holds go: reachable from the branches and tags each place the
notes are pushed to holds, as `git ls-remote` hears it right before the push (tracking refs may
stand for another repository: a remote named within it, a URL set since). What is pushed is a notes
commit made for the push: the notes that place holds, fetched from it into a ref of the job's own
(never the tracking ref: what the fetch URL had, another repository's after a set-url or with a
push URL elsewhere), with ours of those commits in place of theirs (ours hold theirs: merged
first). Neither the local notes' history nor the tracking ref's is pushed, so a note of a
local-only commit travels in no form, nor a teammate's of a commit the fetch URL alone holds.
Our notes of commits a place lacks are held back, listed in the share state; when a push or a
fetch moves the remote's tracking branches, the reviewer's sweep asks (`queue_held`) whether they
hold those commits now (push_remote.own_tips: no network), and queues a share if so, which asks
the remote. Several push URLs are shared with one by one, each on its own notes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from landwatch import layout, registry, sharing, work_item
from landwatch.files import write_atomic
from landwatch.git import Confirm, Fallback, Worktree, run_git, worktree_of
from landwatch.job_queue import Reporter
from landwatch.kinds.base import GiveUp
from landwatch.kinds.push import PUSH_TIMEOUT, PushHandler, PushResult
from landwatch.kinds.push_answer import Rejected
from landwatch.kinds.push_holds import read_state
from landwatch.push_heard import heard_tips, unanswered
from landwatch.push_remote import own_tips, push_urls
from landwatch.review.notes import NOTES_REF
from landwatch.work_item import Enqueued, WorkItem, WorkKind

# Pushes tried in one job while teammates' pushes keep moving the remote's notes.
ROUNDS = 3
NOTES = "the review notes"
# The ref the notes commit made for a push is written to (by git fast-import), pushed from, then
# deleted: a notes ref, since the push gate takes only a notes ref pushed to one for notes.
OUTGOING = "refs/notes/landwatch-outgoing"
# Where what a place the notes are pushed to holds is fetched for one job (never the notes
# tracking ref, which holds what the fetch URL had: another repository after a set-url or with a
# push URL elsewhere): merged into ours, pushed upon, then deleted with all else fetched there.
DESTINATION = "refs/notes/landwatch-destination/"
FETCHED = f"{DESTINATION}landwatch"
# At most this many notes held back are listed in the share state (a repository never pushed).
MOST_HELD_BACK = 1000


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
        # As the push kind's git: in the worktree, where git finds this repository itself.
        at = worktree_of(
            git_dir, item.work_tree, confirm=Confirm.ASKING_GIT, fallback=Fallback.NONE
        )
        if not self._is_remote(at, reporter, remote):
            self._settled(git_dir)
            raise GiveUp(
                f"no remote named {remote!r} (landwatch.share.remote); `landwatch share` names "
                "another, `landwatch share --off` stops sharing"
            )
        places = push_urls(at.git_dir, remote)
        pushed, held_back = False, dict[str, str]()
        for place in places:
            # One URL: pushed to by the remote's name, as the person's push is; several: each
            # on its own, as each holds notes of its own.
            sent, held = self._share_with(
                at, reporter, place, remote if len(places) == 1 else place
            )
            pushed, held_back = pushed or sent, {**held_back, **held}
        report = PushResult(remote)
        (report.pushed if pushed else report.up_to_date).append(NOTES_REF)
        self._succeeded(git_dir, remote, dict(sorted(held_back.items())))
        return report

    def _share_with(
        self, at: Worktree, reporter: Reporter, place: str, target: str
    ) -> tuple[bool, dict[str, str]]:
        """Ours pushed to one `place` the notes go to (`target` names it to git push), on the
        notes it holds (fetched from it: the tracking ref holds what the fetch URL had). Whether
        a push was made (not when it had them all), and the notes held back."""
        refused = ""  # the remote's last words, when it refused each round
        try:
            for _ in range(ROUNDS):
                base = self._fetch(at, reporter, place, target)
                if base is not None:  # ours hold theirs: what is pushed drops none of theirs
                    self._merge(at.git_dir, target)
                outgoing, held_back = self._outgoing(at, reporter, place, target, base)
                if outgoing is None:
                    return False, held_back
                try:
                    self._push(at, reporter, target, f"{OUTGOING}:{NOTES_REF}", NOTES)
                except Rejected as rejected:  # a teammate's went first: fetched again
                    if not rejected.behind:
                        self._settled(at.git_dir)
                        raise
                    refused = str(rejected)
                    continue
                finally:
                    self._git(at, reporter, "update-ref", "-d", OUTGOING)
                return True, held_back
        finally:
            self._drop_fetched(at, reporter)
        # A teammate's pushes each time, or a remote that refuses so for good (a lock left by a
        # crash, a ref in the way: an audit, where this retried every minute for ever, told
        # nowhere): backed off as a remote out of reach is, and said in status.
        why = f"{target}'s notes kept moving under {ROUNDS} pushes ({refused})"
        raise self._backed_off(at.git_dir, target, why)

    def _outgoing(
        self, at: Worktree, reporter: Reporter, place: str, target: str, base: str | None
    ) -> tuple[str | None, dict[str, str]]:
        """The notes commit to push to `place` (at OUTGOING, which the caller deletes): on its
        notes (`base`, fetched to FETCHED; None: a root commit), with ours of the commits it
        holds where they differ; None when there are none. And the notes held back, of commits
        it does not hold: {commit: note}."""
        ours = self._notes(at, reporter, NOTES_REF)
        theirs = self._notes(at, reporter, FETCHED) if base else {}
        differing = {commit: note for commit, note in ours.items() if theirs.get(commit) != note}
        tips, why = heard_tips(
            place, cwd=at.where, git_dir=at.git_dir, timeout=PUSH_TIMEOUT, alive=reporter.alive
        )
        if tips is None:
            raise self._backed_off(at.git_dir, target, why)
        held = held_by(at.git_dir, tips or [], sorted(differing), alive=reporter.alive)
        held_back = {c: note for c, note in sorted(differing.items()) if c not in held}
        if not held:
            return None, held_back
        message = "landwatch: the notes of commits the remote holds"
        stream = [
            f"reset {OUTGOING}",
            f"commit {OUTGOING}",
            f"committer landwatch <landwatch@localhost> {int(self.clock.time())} +0000",
            f"data {len(message)}",
            message,
            *([f"from {base}"] if base else []),
            *(f"N {differing[commit]} {commit}" for commit in sorted(held)),
            "",
        ]
        imported = at.run(
            "fast-import", "--quiet", "--force", input="\n".join(stream), alive=reporter.alive
        )
        made = self._git(at, reporter, "rev-parse", "-q", "--verify", OUTGOING)
        if not imported.ok or made[0] != 0:
            self._git(at, reporter, "update-ref", "-d", OUTGOING)
            said = [line for line in imported.stderr.splitlines() if line.strip()]
            why = said[-1] if said else "no commit made"
            raise RuntimeError(f"the notes to push could not be made: {why}")
        return made[1].strip(), held_back

    def _notes(self, at: Worktree, reporter: Reporter, ref: str) -> dict[str, str]:
        """The notes under `ref`: {annotated commit: note blob}; none when it is no ref."""
        code, out, _, _ = self._git(at, reporter, "notes", f"--ref={ref}", "list")
        pairs = (line.split() for line in out.splitlines()) if code == 0 else iter(())
        return {pair[1]: pair[0] for pair in pairs if len(pair) == 2}

    def _merge(self, git_dir: Path, target: str) -> None:
        problem = sharing.merge_fetched(git_dir, target, FETCHED)
        if problem is not None:
            raise RuntimeError(f"the notes of {target} could not be merged: {problem}")

    def _fetch(self, at: Worktree, reporter: Reporter, place: str, target: str) -> str | None:
        """The notes `place` holds fetched to FETCHED (by its URL: no ref of the person's moves,
        nor FETCH_HEAD); their notes commit, None where it holds none."""
        self._drop_fetched(at, reporter)
        code, _, err, timed_out = self._reach(
            at,
            reporter,
            *("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance"),
            *("--recurse-submodules=no", "--", place),
            *sharing.fetch_refspecs(place, into=FETCHED),
        )
        if code != 0 or timed_out:  # backed off, as a push out of reach is
            raise self._backed_off(at.git_dir, target, unanswered("fetch", code, err, timed_out))
        found, oid, _, _ = self._git(at, reporter, "rev-parse", "-q", "--verify", FETCHED)
        return oid.strip() if found == 0 else None

    def _drop_fetched(self, at: Worktree, reporter: Reporter) -> None:
        """Every ref a fetch made below DESTINATION deleted (a job's own, as OUTGOING is)."""
        _, out, _, _ = self._git(at, reporter, "for-each-ref", "--format=%(refname)", DESTINATION)
        if doomed := "".join(f"delete {ref}\n" for ref in out.split()):
            at.run("update-ref", "--stdin", input=doomed, alive=reporter.alive)

    def _succeeded(self, git_dir: Path, remote: str, held_back: dict[str, str]) -> None:
        """Pushing works: what status says of the last push, the failure forgotten, and the
        notes held back for commits the remote does not hold yet."""
        self.failures.pop(git_dir, None)
        previous = read_state(git_dir, self.state) or {}
        state = {
            "remote": remote,
            "pushed_at": self.clock.time(),
            "held_back": dict(list(held_back.items())[:MOST_HELD_BACK]),
        }
        if previous == state:
            return
        write_atomic(
            self.state.path(git_dir),
            json.dumps(state),
            trusted=layout.common_dir(git_dir),
            durable=False,
        )


def held_by(
    git_dir: Path, tips: list[str], commits: list[str], alive: Callable[[], None] | None = None
) -> set[str]:
    """Of `commits`, those reachable from `tips` (what a remote holds: its commits and tags; one
    we lack, or no commit, is none of them); `alive` is called while git works (a job's lease)."""
    if not commits or not tips:
        return set()
    asked = "".join(f"{oid}\n" for oid in [*commits, *tips] if work_item.is_object_id(oid))
    checked = run_git(
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        git_dir=git_dir,
        input=asked,
        alive=alive,
    )
    kinds = dict(line.partition(" ")[::2] for line in checked.stdout.splitlines())
    present = [commit for commit in commits if kinds.get(commit) == "commit"]
    held_at = [tip for tip in tips if kinds.get(tip) in ("commit", "tag")]
    if not present or not held_at:
        return set()
    revisions = "\n".join([*present, *(f"^{tip}" for tip in held_at)])
    unheld = run_git("rev-list", "--stdin", git_dir=git_dir, input=revisions + "\n", alive=alive)
    if not unheld.ok:
        return set()
    return set(present) - set(unheld.stdout.split())


def queue_held(common: Path, seen: dict[Path, str]) -> bool:
    """A share queued when the remote's branches now hold a commit whose note was held back
    (a push took it there); `seen` keeps what was looked at already (the notes held back and
    the branches), so nothing is asked twice of the same. Whether one was queued."""
    state = read_state(common, layout.SHARE_STATE) or {}
    held_back, remote = state.get("held_back"), state.get("remote")
    if not isinstance(held_back, dict) or not held_back or not isinstance(remote, str):
        return False
    notes = {
        commit: note
        for commit, note in held_back.items()
        if isinstance(note, str) and work_item.is_object_id(commit) and work_item.is_object_id(note)
    }
    tips = own_tips(common, remote)
    looked = hashlib.sha256(json.dumps([notes, tips]).encode()).hexdigest()
    if seen.get(common) == looked:
        return False
    seen[common] = looked
    main = registry.worktree_git_dirs(common)[0]
    for commit in sorted(held_by(common, tips, list(notes))):
        # Named by the note, not the commit: the review's own share item had the commit's name.
        if work_item.enqueue(WorkItem(WorkKind.SHARE, notes[commit], main)) is Enqueued.ADDED:
            return True
    return False
