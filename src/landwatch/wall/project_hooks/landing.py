"""The project's hooks on one landed commit, put together: the files the change brought, each hook
manager's configuration run by the person's own tool on a checkout of the commit, what it said
made findings (review.project_hooks.results), within the budget.

Whether they may run at all (trust) and where the result is kept are the caller's: this runs
what `pinned` holds, as `how` says, and asks `how.still_trusted` again before each manager.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import Change, open_repository, resolve
from landwatch.review.known_secrets import found_in_change
from landwatch.review.project_hooks import results
from landwatch.review.project_hooks.config import HookSpec, ManagerConfig
from landwatch.review.project_hooks.output import HookOutcome
from landwatch.review.project_hooks.pin import HooksPinned
from landwatch.review.project_hooks.sources import read_by
from landwatch.review.secrets.redaction import redact_secrets
from landwatch.text import listed, plural
from landwatch.wall.door import Wall
from landwatch.wall.project_hooks import checkout, revs
from landwatch.wall.project_hooks.run import (
    BuildStopped,
    Ran,
    Room,
    prepare,
    refusal,
    run_hooks,
    tool_home,
)
from landwatch.wall.project_hooks.tools import Tool, find, readers

# What separates the words of a shell command line, quotes and operators included.
_SEPARATORS = lazy_compile(r"[\s;&|()<>`'\"]+")
# More files than this in one landing are not all given to the hooks (a command line's length).
MAX_FILES = 5000
# What pre-commit prints when it builds an environment as it runs.
_BUILDING = "Installing environment for"
# What a tool says when it finds an environment missing behind the wall: its store is read-only
# there, so it could not build it as it ran.
_READ_ONLY = "Read-only file system"


@dataclass(frozen=True)
class How:
    """How the hooks run here: their budget, the wall, the repository's objects the checkouts
    borrow (its common git dir's: a linked worktree's own git dir holds none), where checkouts
    are made, landwatch's store of environments for this repository, where the tools are looked
    for, the tools whose environments are built already for this configuration, the commit each
    remote rev was resolved to when trusted, and the trust asked again before each manager runs."""

    budget: float
    wall: Wall
    objects: Path
    scratch: Path | None
    store: Path
    hooks_dir: Path | None
    prepared: frozenset[str]
    still_trusted: Callable[[], bool]
    resolved: revs.Resolved = field(default_factory=dict)


@dataclass
class Outcome:
    """The result to keep, the tools whose environments were built now or turned out missing,
    and why to run the hooks of this commit again later (None: not)."""

    result: results.HooksResult
    prepared: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    retry: str | None = None


def run_on_landing(
    git_dir: str, oid: str, base: str | None, pinned: HooksPinned, how: How
) -> Outcome:
    """The hooks `pinned` declares, on what landed at `oid` (on top of `base` for a range)."""
    started, clock = time.time(), time.monotonic()
    repo = open_repository(git_dir)
    change = Change(repo, resolve(repo, oid), resolve(repo, base) if base else None)
    files = {f.path: f for f in change.files if not f.deleted and not f.is_submodule}
    given = [path for path in files if not path.startswith("-") and "\n" not in path]
    outcome = Outcome(results.HooksResult(oid, "ran", started=started))
    notes = outcome.result.notes
    if len(given) < len(files):
        notes.append(
            f"{plural(len(files) - len(given), 'file')} not given to the project's hooks: "
            "a name starting with '-' (which a command could read as an option) or holding a "
            "newline"
        )
    if len(given) > MAX_FILES:
        notes.append(f"the project's hooks were given the first {MAX_FILES:,} files only")
        given = given[:MAX_FILES]
    # A change of deletions alone gives the hooks no file, as git's commit does, and they run
    # all the same: those that always run (a test suite) judge it (an audit: none ran).
    if not given and not change.files:
        outcome.result.status = "none"
        notes.append("the project's hooks did not run: no file of this change to run them on")
        return outcome
    landed = results.Landed(
        {path: {line.number for line in files[path].added_lines} for path in given},
        lambda path: files[path].new_content(),
        oid,
        found=found_in_change(change),  # what the hooks say of a line must not show its secret
    )
    # A link a hook executes is checked out with the file it leads to.
    targets = [file.target[0] for file in pinned.files if file.target is not None]
    for declared in pinned.declared:
        if not how.still_trusted():
            outcome.result.status = "untrusted"
            notes.append("the project's hooks stopped: their trust was withdrawn")
            break
        spent = time.monotonic() - clock
        _one_manager(declared, given, targets, landed, repo, how, outcome, how.budget - spent)
    outcome.result.duration = time.monotonic() - clock
    outcome.result.notes = [redact_secrets(note, found=landed.found) for note in notes]
    return outcome


def _one_manager(
    declared: ManagerConfig,
    given: list[str],
    targets: list[str],
    landed: results.Landed,
    repo: pygit2.Repository,
    how: How,
    outcome: Outcome,
    budget: float,
) -> None:
    """One manager's hooks on a checkout of their own, what they said joined to `outcome`."""
    result = outcome.result
    if declared.problem is not None:
        result.notes.append(f"the project's hooks did not run: {declared.problem}")
        result.status = "failed"
        return
    only = readers(declared.family, declared.path)
    tool = find(declared.family, hooks_dir=how.hooks_dir, only=only)
    if tool is None:
        names = " or ".join(only)
        result.notes.append(
            f"the hooks of {declared.path} did not run: {names} is not installed where the "
            "reviewer looks (its PATH, ~/.local/bin); `landwatch doctor` says which one it finds"
        )
        result.status = "missing"
        return
    if budget <= 0:
        result.notes.append(f"the hooks of {declared.path} did not run: no budget left")
        result.status = "stopped"
        return
    paths = [declared.path, *given, *declared.executed, *targets, *declared.read]
    try:
        with checkout.landed(how.objects, result.commit, paths, how.scratch) as place:
            written = revs.pin_in_checkout(place, declared, how.resolved)
            room = _room(place, declared, tool, how, result.notes)
            if tool.name not in how.prepared or not _built(room, tool):
                problem = prepare(tool, room)
                if problem is not None and (refused := refusal(tool, room, declared.path)):
                    _refused(tool, declared, refused, landed, outcome)
                    return
                if problem is not None:
                    _waiting(tool, declared, problem, outcome)
                    return
                outcome.prepared.append(tool.name)
            ran = run_hooks(tool, given, room, budget, _hooks_read(declared, tool))
            stopped = ran.timed_out or bool(ran.over)
            fixes = place.fixes(repo, given, written) if not stopped else checkout.Fixes()
    except BuildStopped as stopped:
        result.notes.append(f"the hooks of {declared.path} did not run: {stopped}")
        result.status = "stopped"  # not tried again: the next landing builds anew
        return
    except (checkout.CheckoutError, revs.RevError, OSError) as error:
        result.notes.append(f"the hooks of {declared.path} did not run: {error}")
        result.status = "failed"
        return
    _read(tool, declared, ran, landed, fixes, outcome, budget)


def _room(
    place: checkout.Checkout, declared: ManagerConfig, tool: Tool, how: How, said: list[str]
) -> Room:
    """Where the manager runs: what the hooks of the files it reads start, kept in sight, and
    the hook repositories on this machine those files name, for its build to clone (RevError:
    one that is not to be shown); what the wall leaves out said in `said`, once. A file the
    tool never reads shows nothing."""
    hooks = _hooks_read(declared, tool)
    programs = [tool.command[0], *(word for hook in hooks for word in _words(hook.entry))]
    read = set(read_by(tool.name, (declared.path, *declared.read)))
    found = (revs.local_path(url, place.root) for path, url in declared.on_machine if path in read)
    sources = tuple(path for path in found if path is not None)
    return Room(place, how.wall, how.objects, how.store, tuple(programs), sources, said)


def _hooks_read(declared: ManagerConfig, tool: Tool) -> list[HookSpec]:
    """The hooks of the configuration files the tool reads."""
    read = set(read_by(tool.name, (declared.path, *declared.read)))
    return [hook for hook in declared.hooks if (hook.source or declared.path) in read]


def _built(room: Room, tool: Tool) -> bool:
    """Whether the tool's store holds anything built (deleted since, it is built again)."""
    home = tool_home(tool, room.store)
    return home is None or (home.is_dir() and any(home.iterdir()))


def _words(entry: str) -> list[str]:
    """The words of a hook's entry that could be programs (`sh -c "ruff x"` names sh and ruff)."""
    words = _SEPARATORS.split(entry)
    return [word for word in words if word and not word.startswith("-") and "{" not in word][:16]


def _waiting(tool: Tool, declared: ManagerConfig, problem: str, outcome: Outcome) -> None:
    outcome.result.status = results.WAITING
    outcome.result.notes.append(
        f"the hooks of {declared.path} did not run yet: {tool.name} could not build their "
        f"environments ({problem}); the first time, that needs the network: tried again later"
    )
    outcome.retry = problem


def _refused(
    tool: Tool, declared: ManagerConfig, said: list[str], landed: results.Landed, outcome: Outcome
) -> None:
    """The manager refuses the configuration, as it refuses the commit at commit time: told as
    its failure, in its words, not tried again (an audit: a misspelt `language:` or a
    `minimum_pre_commit_version` waited for the network for ever, told nowhere)."""
    result = outcome.result
    result.status = "failed"
    result.hooks.append({"id": tool.name, "status": "failed", "tool": tool.name})
    refusing = HookOutcome(tool.name, tool.name, "failed", None, False, said)
    result.findings += results.findings_of([refusing], landed, [], declared.path, [])[0]
    # The reason, not a frame line (prek's last is `  |`: audits): pre-commit's `=====>` line
    # with what follows it (a YAML error's place and cause), prek's `caused by:`, else the first.
    marked = [at for at, line in enumerate(said) if line.lstrip().startswith(("=====>", "caused"))]
    start = marked[0] if marked else 0
    taken = 4 if said[start].lstrip().startswith("=====>") else 1
    why = " ".join(line.strip() for line in said[start : start + taken])
    result.notes.append(
        f"the hooks of {declared.path} did not run: {tool.name} refuses the configuration "
        f"({why[:300]})"
    )


def _read(
    tool: Tool,
    declared: ManagerConfig,
    ran: Ran,
    landed: results.Landed,
    fixes: checkout.Fixes,
    outcome: Outcome,
    budget: float,
) -> None:
    """What the run said, as findings and notes of `outcome`."""
    result = outcome.result
    said = dataclasses.replace(ran.said, outcomes=[*ran.said.outcomes, *_failed_unread(tool, ran)])
    result.tools.append(tool.version)
    result.hooks += [
        {"id": each.id, "status": each.status, "tool": tool.name} for each in said.outcomes
    ]
    fixed = dataclasses.replace(landed, fixes=fixes.lines)
    found, left_out = results.findings_of(
        said.outcomes, fixed, fixes.changed, declared.path, fixes.beside
    )
    result.findings += found
    result.notes += left_out
    if fixes.beside:
        result.notes.append(
            f"the hooks of {declared.path} also changed {plural(len(fixes.beside), 'file')} "
            f"this change did not bring ({listed(fixes.beside, 3)}): not the commit's, left "
            "out of its fix"
        )
    failed = sum(1 for each in said.outcomes if each.status == "failed")
    result.notes.append(
        f"project hooks: {tool.version} ran {plural(len(said.outcomes), 'hook')} of "
        f"{declared.path} on {plural(len(landed.added), 'file')} in {ran.seconds:.1f} s"
        + (f", {failed} failed" if failed else "")
    )
    if fixes.refused:
        result.notes.append(fixes.refused)
    elif fixes.patch:
        kept = redact_secrets(fixes.patch, found=landed.found)
        if kept != fixes.patch:
            result.notes.append(
                "a secret was redacted from the hooks' fix: it will not apply there"
            )
        result.patch += kept
    elif fixes.changed:
        result.notes.append("the hooks' fix is too large to keep: run the hooks yourself")
    _ended(tool, declared, ran, outcome, budget)


def _failed_unread(tool: Tool, ran: Ran) -> list[HookOutcome]:
    """The manager's own failure where no hook it reported did fail (a hook printed a later
    hook's status line, read for it in its place): told as the manager's, never kept as passed."""
    outcomes = ran.said.outcomes
    if ran.returncode == 0 or ran.timed_out or ran.over or not outcomes:
        return []  # not run, or stopped: _ended says why
    if any(each.status == "failed" for each in outcomes):
        return []
    said = f"{tool.name} exited {ran.returncode} though no hook it reported failed"
    return [
        HookOutcome(
            tool.name,
            tool.name,
            "failed",
            ran.returncode,
            False,
            [f"{said}: run the hooks yourself to see which"],
        )
    ]


def _ended(tool: Tool, declared: ManagerConfig, ran: Ran, outcome: Outcome, budget: float) -> None:
    """How the run ended, when not as it should: stopped past its budget, its words or its
    disk, or the manager unable to run the hooks (their environments gone missing: built
    again)."""
    result, said = outcome.result, ran.said
    if ran.timed_out:
        result.status = "stopped"
        stuck = f": {said.unfinished} did not finish" if said.unfinished else ""
        result.notes.append(
            f"the hooks of {declared.path} ran past their budget ({budget:.0f} s, "
            f"landwatch.projectHooks.budget) and were stopped with every process they "
            f"started{stuck}"
        )
    elif ran.over:
        result.status = "stopped"
        result.notes.append(
            f"the hooks of {declared.path} {ran.over} and were stopped with every process they "
            "started"
        )
    elif not said.outcomes and ran.returncode != 0:
        result.status = "failed"
        lines = [line.strip() for line in said.preamble if line.strip()]
        result.notes.append(
            f"{tool.name} could not run the hooks of {declared.path}: "
            + (lines[-1][:300] if lines else f"exit {ran.returncode}")
        )
        if _BUILDING in ran.text or _READ_ONLY in ran.text:
            outcome.stale.append(tool.name)  # its environments went missing since they were built
            outcome.retry = "the hooks' environments are missing"
