"""`landwatch allow FINGERPRINT|COMMIT --reason REASON`: one finding (in every commit that holds
it), or every finding of one commit, allowed with a reason and recorded with who and when
(landwatch.allowances): the push gate lets it through, `show` and `status` say so, and the note of
each commit it covers carries it to the team.
"""

from __future__ import annotations

import getpass
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from landwatch import allowances, layout, push_gate, registry, report_store, sharing, work_item
from landwatch.files import list_entries, read_file
from landwatch.git import commit_of, git, git_dir_of
from landwatch.lazy_re import lazy_compile
from landwatch.review import allowed, notes
from landwatch.review.allowed import REASONS, Allowance
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import printable
from landwatch.text import plural, safe
from landwatch.work_item import WorkItem, WorkKind

if TYPE_CHECKING:
    import pygit2

# What a finding's fingerprint looks like (review.findings.fingerprint: 20 hex digits).
FINGERPRINT = lazy_compile(r"[0-9a-f]{20}")
# Commits named in the one line; the rest counted.
NAMED = 3


def allow(
    cwd: Path,
    target: str,
    *,
    reason: str,
    clock: Callable[[], float] = time.time,
    out: TextIO | None = None,
) -> int:
    """`target` (a fingerprint a stored review here holds, or any revision naming a commit)
    allowed for `reason`; one line says what was. 1, and a line saying what to do, when
    `target` is neither; 2 for a reason that is none of REASONS."""
    out = sys.stdout if out is None else out
    if reason not in REASONS:
        print(f"landwatch: --reason is one of {', '.join(REASONS)}", file=sys.stderr)
        return 2
    git_dir = git_dir_of(cwd)
    fingerprint = target.lower()
    holding = _holding(git_dir, fingerprint) if FINGERPRINT.fullmatch(fingerprint) else {}
    if holding:
        held = [finding for report in holding.values() for finding in report.findings]
        secrets = allowed.secrets_of(fingerprint, held)
        allowance = Allowance(reason, _who(cwd), clock(), fingerprint, None, secrets)
    else:
        commit = commit_of(target, cwd=cwd)
        if commit is None:
            shown = printable(target)[:80]
            print(
                f"landwatch: {shown!r} is neither the fingerprint of a finding a review here "
                "holds nor a commit: `landwatch show REV --json` lists each finding's "
                "fingerprint",
                file=sys.stderr,
            )
            return 1
        allowance = Allowance(reason, _who(cwd), clock(), None, commit)
        found = report_store.read(git_dir, commit)
        holding = {commit: found} if found is not None else {}
    allowances.record(git_dir, allowance)
    commits = list(holding) if allowance.commit is None else [allowance.commit]
    carried = carry(git_dir, commits)
    print(said(allowance, holding, carried), file=out)
    if retried := retry_held_back(git_dir):
        print(f"landwatch: the push held back of {retried} is tried again", file=out)
    return 0


def retry_held_back(git_dir: Path) -> str | None:
    """Auto-push's items held back, in any worktree, started again now that something was
    allowed (held back again if it still refuses); the branch of the last, if one was."""
    from landwatch.kinds.push_holds import holds

    branch = None
    for worktree in registry.worktree_git_dirs(layout.common_dir(git_dir)):
        for held in holds(worktree):
            for name in work_item.entries(worktree, work_item.FAILED):
                if name.startswith(f"{WorkKind.PUSH}-{held['commit']}."):
                    work_item.retry(worktree, name)
                    branch = safe(held["branch"] or held["commit"][:12])
    return branch


def _holding(git_dir: Path, fingerprint: str) -> dict[str, Report]:
    """Every stored review here that holds the finding `fingerprint`, by commit, oldest name
    first. The files are searched for its bytes before any is read as a report."""
    common = layout.common_dir(git_dir)
    place = layout.REPORTS.path(git_dir)
    commits = set()
    for name, _ in list_entries(place, trusted=common):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        try:
            data = read_file(place / name, trusted=common)
        except OSError:
            continue  # one that cannot be read holds nothing allowable
        if fingerprint.encode() in data:
            commits.add(name.partition(".")[0])
    found = {}
    for commit in sorted(commits):
        report = report_store.read(git_dir, commit)
        if report is not None and any(f.fingerprint == fingerprint for f in report.findings):
            found[commit] = report
    if not found:
        # One the push gate's own scan found in a commit not reviewed yet, as the refusal named it.
        for commit, findings in push_gate.refused_with(git_dir, fingerprint).items():
            found[commit] = Report(commit, None, "commit", commit[:12], findings=findings)
    return found


def _who(cwd: Path) -> str:
    """Who allows: `user.name <user.email>` as git knows them here, else the system's user."""
    name = git("config", "--get", "user.name", cwd=cwd, check=False).strip()
    email = git("config", "--get", "user.email", cwd=cwd, check=False).strip()
    who = " ".join(part for part in (name, f"<{email}>" if email else "") if part)
    if not who:
        try:
            who = getpass.getuser()
        except (OSError, KeyError):
            who = f"uid {os.getuid()}"
    return who[: allowed.MOST_WHO]


def carry(git_dir: Path, commits: list[str]) -> list[str]:
    """The notes of `commits` that have one made to carry what is allowed of their findings
    (`carried`); with sharing on, a `share` item queued for each note changed, which the share
    kind pushes once the remote holds its commit. The commits whose note changed."""
    from landwatch.review.change import open_repository

    if not commits:
        return []
    remote = layout.read_git_settings(git_dir)[layout.SHARE_REMOTE]
    repo = open_repository(git_dir)
    me, here = sharing.reviewer_email(git_dir), allowances.recorded(git_dir)
    changed = {c: note for c in commits if (note := carried(git_dir, repo, c, me, here))}
    for note in changed.values() if remote else []:
        # Named by the note, not the commit: the review's own share item had the commit's name
        # (and is known, done), as kinds.share names the items of notes held back.
        work_item.enqueue(WorkItem(WorkKind.SHARE, note, git_dir))
    return list(changed)


def carried(
    git_dir: Path, repo: pygit2.Repository, commit: str, me: str, here: list[Allowance]
) -> str | None:
    """The note of `commit`, if it has one, with each review of `me`'s in it rewritten to carry
    the allowances that cover it (of `here`, and what it carried); every other line kept as it
    was. The new note's id; None when it has no note, or it did not change."""
    with sharing.notes_locked(git_dir):
        try:
            data = notes.read_note(repo, commit)
            held = notes.parse(data, commit).reviews if data is not None else []
        except ValueError:
            return None  # a note too large to read is no note of ours to rewrite
        lines = {line: line for line in (data or b"").split(b"\n") if line.strip()}
        for review in held:
            if review.reviewed_by == me:
                covering = allowances.covering(git_dir, review.report, here)
                lines[review.document] = notes.with_allowed(review.document, covering).encode()
        text = b"\n".join(sorted(set(lines.values()))) + b"\n"
        if data is None or text == data or len(text) > notes.MAX_NOTE_BYTES:
            return None
        return notes.write_note(repo, commit, text.decode())


def said(allowance: Allowance, holding: dict[str, Report], carried: list[str]) -> str:
    """The one line: what was allowed (the finding named, redacted), in which commits, why, by
    whom; and which notes carry it."""
    why = allowance.described()
    if allowance.fingerprint is not None:
        first = next(iter(holding.values()))
        finding = next(f for f in first.findings if f.fingerprint == allowance.fingerprint)
        where = f" in {finding.path}:{finding.line}" if finding.path and finding.line else ""
        commits = sorted(holding)
        named = ", ".join(commit[:12] for commit in commits[:NAMED])
        more = f" and {len(commits) - NAMED} more" if len(commits) > NAMED else ""
        count = len(allowance.secrets)
        which = {0: "it is", 1: "that secret is"}.get(count, f"those {count} secrets are")
        what = (
            f"{finding.rule} {finding.name}{where} ({why}) wherever {which}: found in "
            f"{plural(len(commits), 'commit')} ({named}{more})"
        )
    else:
        commit = allowance.commit or ""
        report = holding.get(commit)
        found = report.summary() if report is not None else "no review of it here yet"
        what = f"every finding of {commit[:12]} ({why}): {found}"
    notes_said = f"; the {plural(len(carried), 'note')} of its commits carry it" if carried else ""
    return safe(f"landwatch: allowed {what}{notes_said}")
