"""`landwatch pre-push REMOTE URL`: the push gate, asked by the pre-push hook (githooks/pre-push.sh)
when it cannot see at a glance that a push is clean; git's pre-push stdin in, REFUSED out to refuse.

It waits for the reviewer up to `landwatch.push.wait` seconds, then runs the rules a push is
refused for on what is still unreviewed, within a bound of its own (push_gate.SCAN_SECONDS). It
never refuses because landwatch itself failed: one line says the gate could not decide, and the
push goes on.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple, Protocol, TextIO

from landwatch import layout, push_gate, report_store
from landwatch.commands.pre_push_fixes import how_to_drop, how_to_fix, how_to_retag
from landwatch.daemon import lock
from landwatch.git import git_dir_of
from landwatch.push_heard import Held
from landwatch.review import blocking
from landwatch.review.findings import Finding
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import redact_words
from landwatch.text import plural, safe

# The exit that refuses the push; the hook reads any other failure as "could not decide".
REFUSED = 3
# Findings a refusal names, as GitHub's push protection shows five secrets at a time.
SHOWN = 5
# How often a waiting push looks whether the reviewer has finished (nothing tells it).
POLL = 0.1
# The blobs and trees a push sends that no commit holds: (kind, the ref pushed from) by object.
_Contents = Mapping[str, tuple[str, str]]


class GateClock(Protocol):
    def monotonic(self) -> float: ...
    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def pre_push(
    cwd: Path,
    remote: str,
    url: str,
    lines: str | bytes,
    *,
    clock: GateClock | None = None,
    err: TextIO | None = None,
    git_dir: str | None = None,
) -> int:
    """0 to let the push go on, REFUSED to refuse it; said on `err` (the person's terminal).
    The repository is `git_dir` (the GIT_DIR git gave the hook, relative to `cwd`), else `cwd`'s."""
    err = sys.stderr if err is None else err
    try:
        if isinstance(lines, bytes):
            # A ref name need not be UTF-8 (git allows any byte past ASCII): read as landwatch
            # reads git's output, here where a failure is the gate's to say.
            lines = lines.decode("utf-8", "surrogateescape")
        found = git_dir_of(cwd, git_dir)
        return _gate(found, cwd, remote, url, lines, clock or SystemClock(), err)
    except Exception as error:  # landwatch broken never refuses a push
        said = safe(f"{type(error).__name__}: {error}")[:200]
        print(f"landwatch: the push gate could not decide ({said}); the push goes on", file=err)
        return 0


class _Asked(NamedTuple):
    git_dir: Path
    policy: str
    wait: float
    clock: GateClock
    err: TextIO


def _gate(
    git_dir: Path, cwd: Path, remote: str, url: str, lines: str, clock: GateClock, err: TextIO
) -> int:
    place = layout.repository_dir(git_dir)
    if place.is_symlink() or not place.is_dir():
        if place.is_symlink() or place.exists():  # a file or a link in its place: said
            print(
                f"landwatch: {safe(str(place))} is not landwatch's directory; the push goes "
                "on unjudged: landwatch doctor",
                file=err,
            )
        return 0  # not installed in this repository (a shared hooks directory)
    settings = layout.read_git_settings(git_dir)
    asked = _Asked(git_dir, settings[layout.PUSH_BLOCK], settings[layout.PUSH_WAIT], clock, err)
    if asked.policy == blocking.OFF:
        return 0
    pushed = push_gate.parse(lines)
    found = push_gate.outgoing(git_dir, remote, url, pushed, where=cwd)
    _say_unheard(found.held, err)
    commits = found.commits[::-1]  # oldest first, as a rebase meets them
    reports = _waited_for(asked, commits)
    # Judged after the commits: the tags' messages, and the blobs and trees no commit holds.
    tags, contents = push_gate.beside_commits(git_dir, pushed)
    tagged, failed = push_gate.tag_reports(git_dir, tags)
    sent = commits + list(tags) + list(contents)
    verdict = push_gate.verdict_of(
        git_dir,
        sent,
        reports | tagged,
        asked.policy,
        push_gate.SCAN_SECONDS,
        clock.monotonic,
        failed,
    )
    if found.more:
        print(
            f"landwatch: this push sends more than {push_gate.MOST:,} commits the remote lacks; "
            f"the push gate read the newest {push_gate.MOST:,} and any older a review flagged",
            file=err,
        )
    _say_unchecked(asked, verdict, contents)
    _say_unread(asked, verdict.failed, tags, contents)
    _say_hooks_unsaid(asked, commits)
    if verdict.refused:
        return _refuse(asked, verdict.refused, lines, tags, contents)
    if verdict.allowed:
        commit, finding, allowance = verdict.allowed[0]
        more = f" and {len(verdict.allowed) - 1} more" if len(verdict.allowed) > 1 else ""
        why = allowance.described()
        print(
            f"landwatch: pushing what was allowed: {finding.rule} in {commit[:10]} ({why}){more}",
            file=err,
        )
    return 0


def _say_unheard(held: Held, err: TextIO) -> None:
    """Say where the remote, asked what it holds, did not say and its tracking refs stood in; or
    did not send what it named that this clone lacks, so what only they held was judged again."""
    unheard = held.unheard if held.named else ""  # no tracking refs stood in: all was judged
    if not (said := unheard or held.unfetched):
        return
    names = " and ".join(held.named)
    # git's words on a remote: redacted as a resident process's are, the rule set left unloaded.
    why = safe(redact_words(said))[:200]
    if unheard:
        print(
            f"landwatch: {names} did not say what it holds ({why}); the push gate took its "
            "tracking refs for it, as last fetched",
            file=err,
        )
    else:
        print(
            f"landwatch: {names} moved on since the last fetch, and what it holds now could not be "
            f"fetched ({why}); the push gate judges what only its tracking refs held too (git "
            f"fetch {names.partition(' ')[0]} first spares that)",
            file=err,
        )


def _say_unchecked(asked: _Asked, verdict: push_gate.Verdict, contents: _Contents) -> None:
    """Name the commits (and the blobs and trees of `contents`) the gate could not read whole:
    out of time, or past the lines it reads (a commit whose review was cut at max_added_lines
    is read on, up to push_gate.LINES)."""
    if unread := [commit for commit in verdict.unjudged if commit not in contents]:
        print(
            f"landwatch: {plural(len(unread), 'commit')} of this push could not be read whole in "
            f"time (the push gate scans for {push_gate.SCAN_SECONDS:g} s) and go unchecked, the "
            f"first {unread[0][:12]}: landwatch review {unread[0][:12]}",
            file=asked.err,
        )
    if cut := [commit for commit in verdict.cut if commit not in contents]:
        print(
            f"landwatch: the push gate read only the first {push_gate.LINES:,} added lines of "
            f"{plural(len(cut), 'commit')} of this push (the first {cut[0][:12]}); past them "
            "nothing is checked: a higher max_added_lines in .landwatch.toml checks more "
            f"(landwatch review {cut[0][:12]})",
            file=asked.err,
        )
    if unread := [oid for oid in (*verdict.unjudged, *verdict.cut) if oid in contents]:
        kind, ref = contents[unread[0]]
        why = (
            f"in time (the push gate scans for {push_gate.SCAN_SECONDS:g} s)"
            if unread[0] in verdict.unjudged
            else f"past its first {push_gate.LINES:,} added lines"
        )
        more = f" (and {plural(len(unread) - 1, 'blob or tree', 'blobs or trees')})"
        print(
            f"landwatch: {kind} {unread[0][:12]}, which {safe(ref)} pushes, could not be read "
            f"whole {why} and goes unchecked{more if len(unread) > 1 else ''}",
            file=asked.err,
        )


def _say_unread(
    asked: _Asked, failed: Mapping[str, str], tags: Mapping[str, str], contents: _Contents
) -> None:
    """Name what the gate could not read at all (push_gate.unreadable), which goes unchecked
    while the rest is judged: the first, with why, and how many more."""
    if not failed:
        return
    oid, why = next(iter(failed.items()))
    if oid in tags:
        what = f"tag {oid[:12]}, which {safe(tags[oid])} pushes,"
    elif oid in contents:
        what = f"{contents[oid][0]} {oid[:12]}, which {safe(contents[oid][1])} pushes,"
    else:
        what = f"commit {oid[:12]}"
    more = f" (and {plural(len(failed) - 1, 'more object')})" if len(failed) > 1 else ""
    print(f"landwatch: {what} could not be read ({why}) and goes unchecked{more}", file=asked.err)


def _refuse(
    asked: _Asked,
    refused: list[tuple[str, Finding]],
    lines: str,
    tags: Mapping[str, str],
    contents: _Contents,
) -> int:
    """REFUSED, said, then its findings kept for `landwatch allow`: a refusal decided stands,
    whatever fails after (a full disk, a terminal gone); only an undecided gate lets a push go."""
    first = refused[0][0][:12]
    try:
        said = refusal(asked.git_dir, refused, asked.policy, lines, tags, contents)
    except Exception as error:  # the wording failed, not the verdict
        said = (
            f"{push_gate.REFUSAL} {plural(len(refused), 'finding')}, the first in {first} "
            f"(its details could not be written: {safe(str(error))[:200]}); landwatch show {first}"
        )
    with contextlib.suppress(OSError):
        print(said, file=asked.err)
    try:
        push_gate.remember_refused(asked.git_dir, refused)
    except OSError as error:
        with contextlib.suppress(OSError):
            print(
                f"landwatch: the refused findings could not be kept ({safe(str(error))[:200]}): "
                "`landwatch allow` knows only those of kept reviews until the next refusal",
                file=asked.err,
            )
    return REFUSED


def _waited_for(asked: _Asked, commits: list[str]) -> dict[str, Report]:
    """The reviews kept of `commits`, with what the running reviewer finished within the wait:
    their reviews waiting in a queue and, where any error refuses the push, their project hooks
    (_unfinished). No wait where no reviewer runs or nothing of theirs is left to do."""
    reviews, hooks = _unfinished(asked, commits)
    if not (reviews or hooks) or lock.holder() is None:
        return push_gate.kept(asked.git_dir, commits)
    what = [plural(len(reviews), "review")] if reviews else []
    what += [f"the project's hooks on {plural(len(hooks), 'commit')}"] if hooks else []
    print(
        f"landwatch: waiting up to {asked.wait:g} s for the reviewer to finish "
        f"{' and '.join(what)} of this push (landwatch.push.wait)",
        file=asked.err,
    )
    deadline = asked.clock.monotonic() + asked.wait
    while (reviews or hooks) and asked.clock.monotonic() < deadline:
        asked.clock.sleep(POLL)
        reviews, hooks = _unfinished(asked, [*reviews, *hooks])  # what is done stays done
    return push_gate.kept(asked.git_dir, commits)


def _unfinished(asked: _Asked, commits: list[str]) -> tuple[set[str], set[str]]:
    """Of `commits`, those whose review waits in a queue (one given up will not come), and,
    where any error refuses the push, those whose project hooks have not said yet and are not
    waiting for their environments (which no wait of the gate's would see built)."""
    git_dir = asked.git_dir
    missing = [commit for commit in commits if not report_store.stored(git_dir, commit)]
    reviews = push_gate.waiting(git_dir, missing)
    if asked.policy != blocking.ERRORS:
        return reviews, set()
    hooks = push_gate.waiting(git_dir, commits, hooks=True)
    return reviews, {c for c in hooks if not layout.hooks_report_file(git_dir, c).exists()}


def _say_hooks_unsaid(asked: _Asked, commits: list[str]) -> None:
    """Where any error refuses the push, name the commits whose project hooks have not said
    yet: what they will find cannot refuse this push."""
    if asked.policy != blocking.ERRORS:
        return
    marked = push_gate.waiting(asked.git_dir, commits, hooks=True)
    if unsaid := [commit for commit in commits if commit in marked]:
        print(
            f"landwatch: the project's hooks have not run yet on {plural(len(unsaid), 'commit')} "
            f"of this push (the first {unsaid[0][:12]}): an error of theirs cannot refuse it "
            "(landwatch.push.block = errors); landwatch status says where they are",
            file=asked.err,
        )


def refusal(
    git_dir: Path,
    refused: list[tuple[str, Finding]],
    policy: str,
    lines: str,
    tags: Mapping[str, str] | None = None,
    contents: _Contents | None = None,
) -> str:
    """What a refused push is told: each finding (redacted, at most SHOWN, then a count), how
    to take it out of every commit, annotated tag (`tags`: by the ref pushed) or blob or tree
    (`contents`: by kind and ref) holding it, to rotate a secret, and how to go on anyway."""
    tags, contents = tags or {}, contents or {}
    holding = list(dict.fromkeys(commit for commit, _ in refused))
    commits = [commit for commit in holding if commit not in tags and commit not in contents]
    kinds = ["tag" if c in tags else contents[c][0] if c in contents else "commit" for c in holding]
    what = [plural(kinds.count(kind), kind) for kind in ("commit", "tag", "tree", "blob")]
    what = [counted for counted in what if not counted.startswith("0 ")]
    said = [
        f"{push_gate.REFUSAL} {plural(len(refused), 'finding')} in "
        f"{' and '.join(what)} the remote lacks (landwatch.push.block = {policy})"
    ]
    for commit, finding in refused[:SHOWN]:
        said.append(f"  {_named(commit, finding, commit in tags)}")
        said.append(f"      landwatch allow {finding.fingerprint}")
    if len(refused) > SHOWN:
        said.append(f"  and {plural(len(refused) - SHOWN, 'more finding')}: landwatch show REV")
    said += how_to_fix(git_dir, commits, lines) if commits else []
    said += [how_to_retag(tag, tags[tag]) for tag in holding if tag in tags]
    said += [how_to_drop(oid, *contents[oid]) for oid in holding if oid in contents]
    if any(finding.rule in blocking.refusing_rules() - {"P004"} for _, finding in refused):
        said.append(
            "  A secret that reached a remote or anyone else must be rotated at its provider: "
            "taking it out of history does not take it back."
        )
    said += [
        "To push anyway: landwatch allow FINGERPRINT|COMMIT --reason "
        "false-positive|used-in-tests|fix-later, then push again (recorded: who, when, why);",
        "  or git push --no-verify, which skips every pre-push hook and records nothing.",
    ]
    return "\n".join(said)


def _named(commit: str, finding: Finding, tag: bool = False) -> str:
    where = safe(finding.path or ("(tag message)" if tag else "(commit message)"))
    if finding.line:
        where += f":{finding.line}"
    snippet = f"  {safe(finding.snippet.strip(), tabs=True)[:80]}" if finding.snippet else ""
    return f"{commit[:10]} {where}  {finding.rule} {safe(finding.message)}{snippet}"
