"""`landwatch status`: every registered repository's queue and the reviewer's queues at a glance.

The queue directories are read directly; what the reviewer is doing comes from the state file it
keeps in the runtime dir, trusted only while it holds its lock.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from landwatch import coverage, kinds, layout, registry, work_item
from landwatch.daemon.lock import holder
from landwatch.json_out import strict_json
from landwatch.text import DROP, KEEP, MESSAGE, cells, duration, fit, plural, safe, short_path

# The allowances status names per repository, the newest first; the rest counted.
NEWEST_ALLOWED = 3
# The cores the repositories are read with, two at a time each (_side_by_side).
CORES = os.cpu_count() or 1
_T = TypeVar("_T")

if TYPE_CHECKING:
    from landwatch.styled import Out, Span


def collect(now: float | None = None) -> dict[str, Any]:
    moment = time.time() if now is None else now
    running = holder()
    lines: dict[str, Any] = {}
    if running is not None:
        try:
            state = json.loads(layout.REVIEWER_STATE.path().read_text())
            lines = state.get("lines", {}) if state.get("pid") == running.pid else {}
        except (OSError, ValueError, AttributeError):
            lines = {}
    # Each repository asks git twice (its settings, its hooks): side by side, a person with many
    # waits for about the slowest few, not for the sum.
    repositories = _side_by_side(registry.registered(), lambda common: _repository(common, moment))
    return {
        "reviewer": None if running is None else running.as_dict(),
        "lines": lines,
        "repositories": repositories,
    }


def _repository(common: Path, now: float) -> dict[str, Any]:
    """One registered repository: where it stands, its worktrees' queues, what covers it."""
    problem = registry.problem_with(common)
    worktrees = []
    reach = None
    settings = layout.read_git_settings(common) if problem is None else None
    if problem is None:
        worktrees = [_worktree(git_dir, now) for git_dir in registry.worktree_git_dirs(common)]
        covered = coverage.inspect(common)
        reach = {
            "reach": covered.reach.value,
            "detail": covered.detail,
            "fix": covered.fix,
            "gate_off": covered.gate,
            "sweep_off": coverage.sweep_off(common),
        }
    return {
        "repository": str(common),
        "problem": problem,
        "coverage": reach,
        "worktrees": worktrees,
        # Each landwatch.* setting it cannot use, in the setting rule's line (redacted).
        "settings": list(settings.problems) if settings else [],
        "sharing": _sharing(common, worktrees, settings) if settings else None,
        "allowed": _allowed(common) if problem is None else None,
    }


def _side_by_side(items: list[Path], work: Callable[[Path], _T]) -> list[_T]:
    """`work` of each of `items`, in their order, done in threads (at most twice as many at once
    as the machine has cores: each mostly waits for its git); what one raised, raised here."""
    results: dict[int, _T] = {}
    failures: dict[int, BaseException] = {}
    lock = threading.Lock()
    left = iter(enumerate(items))

    def worker() -> None:
        while True:
            with lock:
                index, item = next(left, (-1, None))
            if item is None:
                return
            try:
                results[index] = work(item)
            except BaseException as error:  # raised again in the caller's thread, below
                failures[index] = error

    threads = [threading.Thread(target=worker) for _ in range(min(len(items), 2 * CORES))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[min(failures)]
    return [results[index] for index in range(len(items))]


def _worktree(git_dir: Path, now: float) -> dict[str, Any]:
    """One worktree's queue; a queue that cannot be read is reported, not fatal to the rest."""
    found: dict[str, Any] = {"git_dir": str(git_dir), "problem": None}
    try:
        names = {state: work_item.entries(git_dir, state) for state in work_item.STATES}
        waiting = work_item.pending_summary(git_dir, now=now)[0]
        # Since the landing: a retry or a backoff stamps the item anew, its record keeps when.
        landed = work_item.oldest_landing(git_dir) if waiting else None
    except work_item.QueueError as error:
        return {**found, "problem": str(error)}
    failing = kinds.failing(git_dir, now)
    return {
        **found,
        "counts": {state: len(entries) for state, entries in names.items()},
        "waiting": waiting,  # pending, and what the hooks recorded for the reviewer to publish
        "oldest_pending_seconds": max(0.0, now - landed) if landed is not None else None,
        "given_up": sorted(work_item.id_of_entry(name) for name in names[work_item.FAILED]),
        "in_hand": sorted(
            work_item.id_of_entry(name)
            for name in (*names[work_item.CLAIMED], *names[work_item.RECOVERING])
        ),
        "failing": [
            {"kind": said.kind, "what": said.what, "seconds": said.seconds, "error": said.error}
            for said in failing
        ],
        "held_back": _pushes_held_back(git_dir),
    }


def _pushes_held_back(git_dir: Path) -> list[dict[str, str]]:
    """The pushes held back from this worktree, the oldest first: their keeper imported only
    where the push kind kept a state."""
    if not os.path.lexists(layout.PUSH_STATE.path(git_dir)):
        return []
    from landwatch.kinds.push_holds import holds

    return holds(git_dir)


def _sharing(
    common: Path, worktrees: list[dict[str, Any]], settings: layout.GitSettings
) -> dict[str, Any] | None:
    """Whether reviews are shared from here, how many notes wait to be pushed, how the last
    push went, and how many reviews were taken from teammates."""
    remote = settings[layout.SHARE_REMOTE]
    if not remote:
        return None
    from landwatch import sharing
    from landwatch.kinds.push_holds import read_state
    from landwatch.review.secrets.redaction import redact_words

    waiting = sum(
        1
        for worktree in worktrees
        for state in (work_item.READY, work_item.PENDING, work_item.CLAIMED)
        for name in work_item.entries(Path(worktree["git_dir"]), state)
        if name.startswith(f"{work_item.WorkKind.SHARE}-")
    )
    last = read_state(common, layout.SHARE_STATE) or {}
    return {
        "remote": redact_words(remote),  # as configured: a URL may hold a token
        "notes_waiting": waiting,
        "last_pushed_at": last.get("pushed_at"),
        "failing_since": last.get("failing_since"),
        "last_error": last.get("last_error"),
        "taken": sharing.count_taken(common, 0),
    }


def _allowed(common: Path) -> dict[str, Any]:
    """What was allowed in this repository (`landwatch allow`): how many, the newest few, and
    what could not be read; the allowances (and the review's records they bring) imported only
    where something was allowed."""
    if not os.path.lexists(layout.ALLOWED.path(common)):
        return {"count": 0, "newest": [], "problem": None}
    from landwatch import allowances

    found, problem = allowances.read(common)
    newest = sorted(found, key=lambda one: one.when, reverse=True)[:NEWEST_ALLOWED]
    return {
        "count": len(found),
        "newest": [one.as_dict() for one in newest],
        "problem": problem,
    }


def _not_drained(problem: str, where: str, room: int, home: str) -> list[list[Span]]:
    shown = short_path(safe(where), room, home)
    # What is wrong is wrapped in the path's column, whole, under it.
    return [[(shown, ""), (f"\n  skipped: {safe(problem)}", "red")], *([("-", "")],) * 5]


def status(*, as_json: bool, out: Out | None = None) -> int:
    data = collect()
    if as_json:
        # A repository's path not UTF-8: readable, its own bytes beside it (`git_dir_bytes`).
        print(strict_json(data, exact=("repository", "git_dir"), indent=2))
        return 0
    from landwatch.styled import Out

    out = out or Out()
    _print_reviewer(out, data)
    _print_queues(out, data)
    _print_sharing(out, data)
    _print_allowed(out, data)
    _print_troubles(out, data)
    sys.stdout.flush()
    return 0


def _print_reviewer(out: Out, data: dict[str, Any]) -> None:
    """Whether the reviewer runs, and what each of its queues is doing."""
    running = holder()
    if running is None:
        out.print(
            ("reviewer: not running", "bold red"), ("  (start it: landwatch service start)", "")
        )
    else:
        out.print((f"reviewer: running ({running.describe()})", "bold green"))
    # The reviewer's state file lags its jobs by up to half a second: a job whose item is no
    # longer claimed anywhere has ended, whatever the file still says.
    in_hand = {
        item
        for repository in data["repositories"]
        for worktree in repository["worktrees"]
        for item in worktree.get("in_hand", ())
    }
    units: list[tuple[tuple[str, str, str], ...]] = []
    for kind, jobs in data["lines"].items():
        current = [job for job in jobs if job["state"] == "running" and job["key"] in in_hand]
        if current:
            progress = current[0]["progress"]
            step = f" ({progress['done']}/{progress['total']})" if progress["total"] else ""
            doing = (f"working on {safe(current[0]['key'])[:28]}{step}", "yellow", MESSAGE)
            units.append(((f"{safe(kind)}: ", "", KEEP), doing))
            continue
        failed = len([job for job in jobs if job["state"] == "failed"])
        lately = (f" ({failed} failed lately)" if failed else "", "red", f"{DROP}{kind}")
        units.append(((f"{safe(kind)}: ", "", KEEP), ("idle", "dim", KEEP), lately))
    for line in _packed(units, out.width):
        out.print(*line)


def _packed(units: list[tuple[tuple[str, str, str], ...]], width: int) -> list[list[Span]]:
    """Each unit (a queue's label and what it does) fitted whole to a line of `width` columns
    (text.fit), then as many to a line as fit, three spaces apart: never a label at one line's
    end and its value at the next one's start, as wrapping at spaces would leave it."""
    lines: list[list[Span]] = []
    used = 0
    for unit in units:
        parts = fit(unit, width - 2)
        size = sum(cells(text) for text, _ in parts)
        if not lines or used + 3 + size > width:
            lines.append([("  ", "")])
            used = 2
        else:
            lines[-1].append(("   ", ""))
            used += 3
        lines[-1] += parts
        used += size
    return lines


def _print_queues(out: Out, data: dict[str, Any]) -> None:
    """A row per worktree: what waits, for how long, what is in hand, done, given up."""
    from landwatch.styled import table

    # The numbers take 42 columns with the gaps between them: the path gets the rest, its
    # middle left out; what else the column holds wraps at words within it.
    room = max(20, out.width - 44)
    home = str(Path.home())
    rows: list[list[list[Span]]] = []
    for repository in data["repositories"]:
        if repository["problem"]:
            rows.append(_not_drained(repository["problem"], repository["repository"], room, home))
            continue
        for worktree in repository["worktrees"]:
            if worktree["problem"]:
                rows.append(_not_drained(worktree["problem"], worktree["git_dir"], room, home))
                continue
            counts = worktree["counts"]
            oldest = worktree["oldest_pending_seconds"]
            values = [
                short_path(safe(worktree["git_dir"]), room, home),
                str(worktree["waiting"]),
                duration(oldest) if oldest is not None else "-",
                str(counts["claimed"] + counts["recovering"]),
                str(counts["done"]),
            ]
            failed = (str(counts["failed"]), "red" if counts["failed"] else "")
            rows.append([*([(value, "")] for value in values), [failed]])
    if rows:
        headers = ("worktree", "waiting", "oldest", "working", "done", "given up")
        table(out, headers, rows, right=range(1, len(headers)), room=room)
    else:
        out.print(("no repository registered: run landwatch install in one", ""))


def _print_sharing(out: Out, data: dict[str, Any]) -> None:
    """A line per repository whose reviews are shared: with whom, what waits, the last push;
    then how many do not share theirs."""
    room, home = max(20, out.width - 30), str(Path.home())
    now = time.time()
    unshared = 0
    for repository in data["repositories"]:
        shared = repository.get("sharing")
        if not shared:
            unshared += not repository.get("problem")
            continue
        where = short_path(safe(repository["repository"]), room, home)
        said: list[Span] = [(f"{where}: sharing reviews with {safe(shared['remote'])}: ", "")]
        waiting = shared["notes_waiting"]
        said.append(
            (f"{waiting} note{'' if waiting == 1 else 's'} to push", "yellow" if waiting else "")
        )
        if isinstance(shared["failing_since"], int | float):
            said.append(
                (
                    f"; pushing has failed for {duration(now - shared['failing_since'])}: "
                    f"{safe(str(shared['last_error']))[:120]}",
                    "yellow",
                )
            )
        elif isinstance(shared["last_pushed_at"], int | float):
            said.append((f"; last pushed {duration(now - shared['last_pushed_at'])} ago", ""))
        if shared["taken"]:
            said.append((f"; {shared['taken']} teammates' reviews taken", "dim"))
        out.wrapped([], said)
    if unshared:
        which = "1 repository" if unshared == 1 else f"{unshared} repositories"
        out.wrapped(
            [], [(f"reviews not shared from {which} (landwatch share there turns it on)", "dim")]
        )


def _print_allowed(out: Out, data: dict[str, Any]) -> None:
    """Per repository where findings were allowed: how many, then the newest few a line each."""
    room, home = max(20, out.width - 30), str(Path.home())
    for repository in data["repositories"]:
        held = repository.get("allowed") or {}
        where = short_path(safe(repository["repository"]), room, home)
        if held.get("problem"):
            out.wrapped([], [(f"{where}: {safe(held['problem'])}", "yellow")])
        if not held.get("count"):
            continue
        from landwatch.review.allowed import Allowance  # imported where something was allowed

        newest = [one for item in held["newest"] if (one := Allowance.from_dict(item))]
        which = "the newest" if held["count"] > len(newest) else "each"
        count = plural(held["count"], "allowance")
        out.wrapped([], [(f"{where}: {count} (landwatch allow), {which}:", "")])
        for one in newest:
            out.wrapped([("  ", "")], [(f"{one.what()} ({one.described()})", "dim")])


def _print_troubles(out: Out, data: dict[str, Any]) -> None:
    """Under the table: coverage short of the hooks, work failing, items given up."""

    def say(text: str, style: str) -> None:
        out.wrapped([("  ", "")], [(text, style)], [("    ", "")])

    room, home = max(20, out.width - 30), str(Path.home())
    for repository in data["repositories"]:
        reach = repository.get("coverage")
        where = short_path(safe(repository["repository"]), room, home)
        if reach and reach["reach"] != coverage.Reach.HOOKS.value:
            fix = f" (fix: {safe(reach['fix'])})" if reach["fix"] else ""
            say(f"{where}: {reach['reach']}: {safe(reach['detail'])}{fix}", "yellow")
        if reach and reach.get("gate_off"):
            say(f"{where}: {safe(reach['gate_off'])} (fix: landwatch install)", "yellow")
        if reach and reach.get("sweep_off"):
            say(f"{where}: {safe(reach['sweep_off'])} (fix: landwatch doctor)", "yellow")
        for unusable in repository.get("settings") or ():
            say(f"{where}: {safe(unusable)} (fix: landwatch doctor)", "yellow")
        for worktree in repository["worktrees"]:
            for said in worktree.get("failing", ()):
                say(
                    f"{safe(said['what'])} has failed for {duration(said['seconds'])}: "
                    f"{safe(said['error'])}",
                    "yellow",
                )
            for item in worktree.get("given_up", ()):
                shown = short_path(safe(worktree["git_dir"]), room, home)
                say(f"given up: {safe(item)} in {shown}", "red")
            for held in worktree.get("held_back") or ():
                say(f"push held back: {safe(held['why'])}", "red")
            if worktree.get("given_up"):
                say("once the cause is mended: landwatch retry --all (in that repository)", "dim")
