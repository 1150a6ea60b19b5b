"""Which branch a commit landed on, for auto-push: the one whose own reflog recorded it landing
(never a branch created at it since), the one HEAD named then preferred; told from git's reflogs.

A work item records no branch (docs/queue.md), and HEAD's branch at push time may be one made
since (`git switch -c spike` before the reviewer got to the push): it was published, main not.
Branches are named by full refname throughout: `%(refname:short)` says `heads/stable` where a tag
is named `stable` too, and the push of `refs/heads/heads/stable` failed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from landwatch.git import Worktree
from landwatch.lazy_re import lazy_compile

HEADS = "refs/heads/"
# A branch's reflog entry that lands nothing of its own: its birth at a commit that was there
# (`switch -c`, `branch`, `worktree add -b`). A copy's entries before `Branch: copied` are the
# other branch's (`git branch -c`), where the landing, if any, was.
_BORN = "branch: Created from"
_COPIED = "Branch: copied "
# HEAD going to a branch: `checkout: moving from main to spike` (switch and checkout write it).
_CHECKOUT = lazy_compile(r"checkout: moving from .* to (\S+)$")


class Landing(NamedTuple):
    """The branch (full refname) a commit landed on, or None and the branches holding it that it
    may have landed on, where that cannot be told."""

    ref: str | None
    among: tuple[str, ...] = ()


def short(ref: str) -> str:
    """A branch as shown, as refspecs spell it after `refs/heads/` and as landwatch.push.branches
    globs match it: its full refname without `refs/heads/`."""
    return ref.removeprefix(HEADS)


def holding(at: Worktree, alive: Callable[[], None] | None, oid: str) -> tuple[list[str], str]:
    """The branches (full refnames) holding `oid`, and HEAD's branch now ("" when detached)."""
    contains = at.run(
        "for-each-ref", f"--contains={oid}", "--format=%(refname)", HEADS, timeout=30.0, alive=alive
    )
    head = at.run("symbolic-ref", "-q", "HEAD", timeout=30.0, alive=alive)
    return contains.stdout.split(), head.stdout.strip()


def landed_on(
    at: Worktree, alive: Callable[[], None] | None, oid: str, refs: list[str], current: str
) -> Landing:
    """Of the branches `refs` holding `oid`, the one it landed on: the branch HEAD named when it
    landed, if its own reflog recorded the landing; else the one branch whose reflog did; of
    several, HEAD's branch now if among them. Where no reflog speaks of the landing (not kept),
    as before: HEAD's branch now if it holds it, else the one branch holding it."""
    logs = _reflogs(at, alive, refs)
    head_log = logs.pop("HEAD", [])
    named = _named_then(head_log, oid)
    landings = [ref for ref in refs if _landed_in(logs.get(ref, []), oid)]
    if named in landings or (named in refs and not landings):
        return Landing(named)
    if len(landings) == 1:
        return Landing(landings[0])
    if current in landings:
        return Landing(current)
    if landings:
        return Landing(None, tuple(landings))
    if not any(new == oid for new, _ in head_log):  # nothing kept: what was done before
        if current in refs:
            return Landing(current)
        if len(refs) == 1:
            return Landing(refs[0])
    return Landing(None, tuple(refs))


def _reflogs(
    at: Worktree, alive: Callable[[], None] | None, refs: list[str]
) -> dict[str, list[tuple[str, str]]]:
    """HEAD's reflog (this worktree's) and those of `refs`, each newest first as (commit,
    subject); one git, the refs on its stdin (thousands would not fit a command line)."""
    result = at.run(
        "log",
        "-g",
        "-z",
        "--stdin",
        "--no-show-signature",
        "--format=%gD %H %gs",
        "--",
        input="".join(f"{ref}\n" for ref in ["HEAD", *refs]),
        timeout=30.0,
        alive=alive,
    )
    logs: dict[str, list[tuple[str, str]]] = {}
    for entry in result.stdout.split("\0"):
        selector, _, rest = entry.strip("\n").partition(" ")
        new, _, subject = rest.partition(" ")
        ref, at_sign, _ = selector.rpartition("@{")
        if at_sign:
            logs.setdefault(ref, []).append((new, subject))
    return logs


def _landed_in(log: list[tuple[str, str]], oid: str) -> bool:
    """Whether a branch's own reflog (newest first) recorded `oid` landing on it: any entry
    moving it there but its birth, of its own entries (not those a copy took over)."""
    for new, subject in log:
        if subject.startswith(_COPIED):
            return False
        if new == oid and not subject.startswith(_BORN):
            return True
    return False


def _named_then(log: list[tuple[str, str]], oid: str) -> str | None:
    """The branch HEAD named when `oid` landed, by HEAD's reflog (newest first): the last
    checkout before the newest entry landing it; None where that is not said."""
    entries = iter(log)
    for new, subject in entries:
        if new == oid and not subject.startswith("checkout:"):
            break
    else:
        return None
    for _, subject in entries:
        if (moved := _CHECKOUT.match(subject)) is not None:
            return HEADS + moved.group(1)
    return None
