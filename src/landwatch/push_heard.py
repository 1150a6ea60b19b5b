"""What a push's remote holds, asked rather than told by this repository (push_remote): the
branches and tags a place names now (`git ls-remote`, the share kind's and the push gate's); and,
for the push gate, what the remote holds beside the refs a push sends to (`held_by_remote`): for a
push creating a ref, or sending a commit with a blocking marker that only its tracking refs hold
(`tracked_blocking`), what it says, the commits it names that this clone lacks fetched when its
tracking refs knew more; else, or where it does not answer, its tracking refs where they stand.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from landwatch import layout, report_store
from landwatch.git import git, run_git
from landwatch.push_remote import (
    own_tracking,
    remotes_at,
    rewritten,
    same_place,
    tracking_stands,
)
from landwatch.work_item import is_object_id

# How long the push gate waits for a remote to say what it holds (and send what it names that
# this clone lacks): the push has just reached it, so it answers at once; past this, the gate
# goes on with what it has, said in a line.
ASK_SECONDS = 10.0


def heard_tips(
    place: str,
    *,
    cwd: os.PathLike[str] | str,
    git_dir: os.PathLike[str] | str | None,
    timeout: float,
    alive: Callable[[], None] | None = None,
) -> tuple[list[str] | None, str]:
    """What `place` holds now, as `git ls-remote` hears it: the objects at its branches and tags
    (tracking refs may be another place's: a set-url since, a branch deleted there); or None and
    why, where it did not answer within `timeout`. Run in `cwd`, as the person's git is (a
    relative URL is relative to it), on `git_dir` (its configuration)."""
    # What asking `place` reaches: where a fetch's rewriting sends it to another repository (a
    # mirror fetched from, the place pushed to: a round-2 audit), it cannot be asked; another
    # spelling of the same one (https fetched, ssh pushed: round 3) is asked as git asks it.
    if not same_place(rewritten(git_dir or cwd, place, push=False), place):
        return (
            None,
            f"{place} cannot be asked what it holds: url.<base>.insteadOf sends it elsewhere",
        )
    result = run_git(
        "ls-remote",
        "--heads",
        "--tags",
        "--",
        place,
        cwd=cwd,
        git_dir=git_dir,
        timeout=timeout,
        alive=alive,
        network=True,
    )
    if not result.ok or result.timed_out:
        return None, unanswered("ls-remote", result.returncode, result.stderr, result.timed_out)
    return sorted({line.partition("\t")[0] for line in result.stdout.splitlines()}), ""


def unanswered(what: str, code: int, err: str, timed_out: bool) -> str:
    """Why `git WHAT` asking a remote got nothing, in a line: no answer in time, else the first
    line git said (the reason: a host unknown, no repository there; its last is git's advice),
    else its exit `code`."""
    said = [line.strip() for line in err.splitlines() if line.strip()]
    return "no answer" if timed_out else (said[0] if said else f"git {what} exit {code}")


@dataclass(frozen=True)
class Held:
    """What a push's remote holds beside the refs pushed, for rev-list: what it said it holds
    (`tips`), else the arguments naming the tracking refs of the remotes `named` (`tracking`);
    why it did not say, asked (`unheard`, whether tracking refs stood in or not), or did not
    send what it named that this clone lacks where its tracking refs knew more (`unfetched`):
    each said in a line."""

    tips: list[str] = field(default_factory=list)
    tracking: list[str] = field(default_factory=list)
    named: tuple[str, ...] = ()
    unheard: str = ""
    unfetched: str = ""


def held_by_remote(
    git_dir: os.PathLike[str] | str,
    remote: str,
    url: str,
    held_at: Mapping[str, str],
    *,
    ask: bool,
    where: os.PathLike[str] | str | None = None,
) -> Held:
    """What `remote` (every remote at `url`, where the push names a URL) holds beside the refs
    pushed (`held_at`: what git says it holds at each): where the gate is to `ask` (a push creating
    a ref, or tracked_blocking), what it says now (`_asked`); else, or where it does not answer,
    its tracking refs where they stand for it (tracking_stands: fetched from there, agreeing with
    what git says it holds)."""
    destination = url or git("remote", "get-url", "--push", "--", remote, cwd=git_dir, check=False)
    named = [remote] if remote != url else remotes_at(git_dir, url)
    remotes = git("remote", cwd=git_dir).splitlines()
    standing = [
        (name, own_tracking(name, remotes))
        for name in named
        if tracking_stands(git_dir, name, destination, held_at)
    ]
    stood = tuple(name for name, arguments in standing if arguments)
    tracking = [argument for _, arguments in standing for argument in arguments]
    if not ask:
        return Held([], tracking, stood)
    # Where the push's git runs (a relative URL is relative to it), on its repository; else in
    # the git dir, as every git here.
    cwd, on = (git_dir, None) if where is None else (where, git_dir)
    return _asked(destination, Held([], tracking, stood), git_dir=git_dir, cwd=cwd, on=on)


def _asked(
    place: str,
    told: Held,
    *,
    git_dir: os.PathLike[str] | str,
    cwd: os.PathLike[str] | str,
    on: os.PathLike[str] | str | None,
) -> Held:
    """What `place` holds, asked: of a ref a push creates git says nothing, and the tracking refs
    `told` holds may be another place's, or stale (a branch deleted there). Where they reach
    commits what it names does not, and it names commits this clone lacks (it moved on since the
    last fetch), those are fetched, so that no history it holds is judged again; where it does
    not answer, `told`."""
    deadline = time.monotonic() + ASK_SECONDS
    tips, why = heard_tips(place, cwd=cwd, git_dir=on, timeout=ASK_SECONDS)
    if tips is None:  # tracking refs stand in where they stood, else every commit is judged
        return Held([], told.tracking, told.named, why)
    lacking = _lacking(git_dir, tips)
    if not lacking or not told.tracking or not _beyond(git_dir, told.tracking, tips):
        return Held(tips, named=told.named)
    # Objects alone: no ref moves, nothing in FETCH_HEAD, no tag, submodule or maintenance.
    fetched = run_git(
        *("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance"),
        *("--recurse-submodules=no", "--", place, *lacking),
        cwd=cwd,
        git_dir=on,
        timeout=max(1.0, deadline - time.monotonic()),
        network=True,
    )
    if fetched.ok:
        return Held(tips, named=told.named)
    said = unanswered("fetch", fetched.returncode, fetched.stderr, fetched.timed_out)
    return Held(tips, named=told.named, unfetched=said)


def _lacking(git_dir: os.PathLike[str] | str, oids: list[str]) -> list[str]:
    """Of `oids`, those this repository does not have."""
    listed = run_git(
        "cat-file", "--batch-check", cwd=git_dir, input="".join(f"{oid}\n" for oid in oids)
    )
    return [line.split()[0] for line in listed.stdout.splitlines() if line.endswith(" missing")]


def _beyond(git_dir: os.PathLike[str] | str, tracking: list[str], tips: list[str]) -> bool:
    """Whether the tracking refs rev-list's `tracking` names reach a commit `tips` do not (those
    this clone lacks passed by)."""
    listed = run_git(
        *("rev-list", "--max-count=1", "--ignore-missing", *tracking, "--stdin"),
        cwd=git_dir,
        input="".join(f"^{tip}\n" for tip in tips),
    )
    return not listed.ok or bool(listed.stdout.strip())


def tracked_blocking(
    git_dir: os.PathLike[str] | str,
    sent: list[str],
    held: list[str],
    judged: Collection[str],
    most: int,
) -> bool:
    """Whether a commit `sent` past what the remote holds at the refs pushed (`held`), taken as
    there by its tracking refs alone (not `judged`), has a blocking marker: they may be stale (a
    branch deleted there, never pruned here; a remote rewritten), so the remote is to be asked.
    Past `most` commits walked, where any commit has one: whether it lies past is not known."""
    marked = _marked(git_dir) - set(judged)
    if not marked:
        return False
    listed = not_held(git_dir, sent, held, Held(), most)
    return len(listed) > most or not marked.isdisjoint(listed)


def _marked(git_dir: os.PathLike[str] | str) -> set[str]:
    """The commits a review flagged here (their blocking markers)."""
    try:
        return set(os.listdir(layout.BLOCKING.path(git_dir)))
    except OSError:  # none made yet
        return set()


def sends_marked(git_dir: os.PathLike[str] | str, local: str, remote: str) -> bool:
    """Whether a push of `local` over `remote` (a notes ref's: never judged) sends a commit a
    review flagged: a notes ref pointed at work sent a flagged key unjudged (an audit)."""
    marked = _marked(git_dir) if local.strip("0") else set()  # a deletion sends nothing
    held = [remote] if remote.strip("0") else []
    return bool(marked) and not marked.isdisjoint(not_held(git_dir, [local], held, Held(), None))


def marked_past(
    git_dir: os.PathLike[str] | str,
    sent: list[str],
    held: list[str],
    found: Held,
    listed: list[str],
    most: int,
) -> list[str]:
    """Of the commits `listed` (not_held's), the newest `most`, then those `sent` sends past them
    that have a blocking marker, and of one whose review was a range's (a pull's), the commits of
    that range: judged too, as no count bounds a marker (audits: a key flagged in an old commit
    of a first push to a mirror went out, 1,000 newer commits on top of it; then the refusal named
    a pull's tip alone, and its rebase left the commit that added the key)."""
    if len(listed) <= most:
        return listed
    marked = _marked(git_dir)
    every = not_held(git_dir, sent, held, found, None) if marked else []
    # Every flagged commit's range, the newest 1,000's too: one reaching past them left the key
    # (a round-2 audit).
    judged = {oid for oid in every if oid in marked}
    for tip in list(judged):
        review = report_store.read_review(git_dir, tip)
        if review is not None and review.base is not None and is_object_id(review.base):
            ranged = git("rev-list", f"{review.base}..{tip}", cwd=git_dir, check=False)
            judged.update(ranged.split())  # none where its base is gone: the tip stands
    return listed[:most] + [oid for oid in every[most:] if oid in judged]


def not_held(
    git_dir: os.PathLike[str] | str,
    sent: list[str],
    held: list[str],
    found: Held,
    most: int | None,
) -> list[str]:
    """The commits `sent` reaches that neither `held` (what the remote holds at the refs pushed)
    nor `found` holds, newest first: at most `most` (None: all), and one more that says there
    are others."""
    # Every oid on stdin, a line each (^OID: held): as many as a push has (30,000 refs' were past
    # what a command line holds, and the gate, undecided, let the push go).
    listed = [*sent, *(f"^{oid}" for oid in (*held, *found.tips))]
    return git(
        "rev-list",
        *([] if most is None else [f"--max-count={most + 1}"]),
        "--ignore-missing",  # a remote oid not fetched here (a teammate's push) is passed by
        "--not",
        *found.tracking,
        "--stdin",  # its lines are read as written, --not or not
        cwd=git_dir,
        input="".join(f"{oid}\n" for oid in listed),
    ).split()
