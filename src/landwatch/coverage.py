"""How a repository's landings reach landwatch: whether the hooks git runs now are landwatch's,
which tool displaced them if not, and so what covers the repository (docs/coverage.md).

The reflog sweep covers every repository whatever its hooks say; this tells how much more.
"""

from __future__ import annotations

import enum
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from landwatch import hook_slots, layout, registry, work_item
from landwatch import hooks as hookfiles
from landwatch.errors import UserError
from landwatch.files import read_file, read_head, write_atomic
from landwatch.git import Confirm, Fallback, GitError, Worktree, run_git, tracked_in, worktree_of
from landwatch.hooks import HOOK_EVENTS, INSTALLED_EVENTS, whose
from landwatch.text import listed, safe

# More than any hook landwatch writes: its header, then githooks/hook.sh or githooks/pre-push.sh.
_MOST_HOOK = 1 << 16


class Reach(enum.Enum):
    """What covers the repository's landings."""

    HOOKS = "hooks ok"
    PARTIAL = "hooks partly reached"
    SWEEP = "sweep only"


class Coverage(NamedTuple):
    reach: Reach
    detail: str  # one line: what was found
    fix: str | None = None  # the command that mends it, when one does
    fixable: bool = False  # `landwatch doctor --fix` may do it with no decision to make
    gate: str | None = None  # what stops the push gate (_gate), judged apart

    @property
    def summary(self) -> str:
        reach: str = self.reach.value
        return reach if self.reach is Reach.HOOKS else f"{reach}: {self.detail}"


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def main_worktree(common: Path) -> Worktree | None:
    """Where the hooks of the repository of `common` are asked of and mended: its main worktree,
    one whose `.git` leads back to `common` (worktree_of), even where `common` names none of its
    own; else (a bare repository's: it has none) the first linked worktree that leads back."""
    for recorded in _where_it_may_be(common):
        found = worktree_of(common, recorded, confirm=Confirm.READING, fallback=Fallback.NONE)
        if found.top is not None:
            return found
    for git_dir in registry.worktree_git_dirs(common)[1:]:
        found = worktree_of(git_dir, confirm=Confirm.READING, fallback=Fallback.NONE)
        if found.top is not None:
            return found
    return None


def _where_it_may_be(common: Path) -> Iterator[Path | None]:
    """Where the main worktree may be, the cheapest first: the parent of a `.git` (None); for a
    git dir kept apart (a submodule's, --separate-git-dir's), where install ran, where its hooks
    ran at the landings its queue keeps, core.worktree as git reads it (one git, not a hook's)."""
    yield None
    try:
        installed = read_file(layout.MAIN_WORKTREE.path(common), trusted=common).decode()
    except (OSError, UnicodeDecodeError):
        installed = ""
    if installed.removesuffix("\n"):
        yield Path(installed.removesuffix("\n"))
    try:
        recorded = work_item.work_trees(common)
    except work_item.QueueError:
        recorded = []  # a work directory that cannot be used: doctor names it apart
    yield from recorded
    try:
        said = run_git("rev-parse", "--show-toplevel", git_dir=common, cwd=common)
    except GitError:
        return
    if said.ok and said.stdout.strip():
        yield Path(said.stdout.rstrip("\n"))


def remember_main_worktree(repository: hookfiles.Repository) -> None:
    """Where install runs, kept where the git dir is in no worktree of its own (a submodule's,
    --separate-git-dir's): a `.git` file there names it, not it the worktree (main_worktree)."""
    common = repository.common_dir
    if os.path.realpath(repository.git_dir) != os.path.realpath(common):
        return  # a linked worktree's: the main one is elsewhere
    if worktree_of(common, confirm=Confirm.READING, fallback=Fallback.NONE).top is None:
        write_atomic(layout.MAIN_WORKTREE.path(common), f"{repository.top}\n", trusted=common)


def main_repository(common: Path) -> hookfiles.Repository | None:
    """The repository of `common` as git finds it in its main worktree (main_worktree), whose
    hooks git runs there; None where there is none, UserError where git finds no such one."""
    found = main_worktree(common)
    # find_repository's git there is the one process, and must find that very git dir there.
    return hookfiles.find_repository(found.where, git_dir=found.git_dir) if found else None


def inspect(common: Path) -> Coverage:
    """The coverage of the repository of `common`, from the hooks git runs now, and what stops
    its push gate (`gate`): one git process asked where they are, for both."""
    try:
        repository = main_repository(common)
    except UserError as error:
        return Coverage(Reach.SWEEP, str(error))
    if repository is None:
        return Coverage(Reach.SWEEP, "no worktree to run hooks in was found")
    return _reach(repository)._replace(gate=_gate(common, repository))


def project_commits(directory: Path, repository: hookfiles.Repository) -> str | None:
    """ "a directory the project commits (FILE)" when `directory` holds files the repository
    tracks: landwatch's hooks there would go to everyone at the next `git commit -a`."""
    tracked = tracked_in(directory.resolve(), cwd=repository.top)
    if not tracked:
        return None
    return f"a directory the project commits ({listed([safe(name) for name in tracked], 2)})"


def beside_committed(repository: hookfiles.Repository) -> str:
    """What to do where git runs hooks from a directory the project commits, which landwatch
    never writes into: its hooks in the repository's own directory, called from the project's."""
    own = repository.default_hooks_dir
    steps = (
        f"landwatch install --hooks-path {shlex.quote(str(own))}, then call .git/hooks/<event> "
        "from the project's hooks (docs/hooks.md)"
    )
    if not own.is_symlink():
        return steps
    # A link into the project's hooks: git is to run them by core.hooksPath, the link made a
    # directory of the repository's own, or the install asked for would be refused again.
    link, leads = shlex.quote(str(own)), shlex.quote(str(own.resolve()))
    return f"rm {link} && mkdir {link} && git config core.hooksPath {leads}; {steps}"


def _reach(repository: hookfiles.Repository) -> Coverage:
    """How far the hooks git runs in `repository` reach (inspect's, but for the gate)."""
    hooks = repository.hooks_dir
    default = repository.default_hooks_dir
    husky = hook_slots.is_husky_dir(hooks)
    if hooks.resolve() != default.resolve() and not husky:
        ours = [event for event in HOOK_EVENTS if whose(hooks / event) == "landwatch"]
        if len(ours) == len(HOOK_EVENTS):
            return Coverage(Reach.HOOKS, f"hooks ok in {hooks}")
        committed = project_commits(hooks, repository)
        manager = whose(hooks / "post-commit") or "another tool"
        what = f", {committed}" if committed else f" ({manager})"
        return Coverage(
            Reach.SWEEP,
            f"not reached: core.hooksPath points to {hooks}{what}; git does not run "
            f"landwatch's hooks",
            beside_committed(repository)
            if committed
            else "landwatch install --hooks-path DIR, or call .git/hooks/<event> from that "
            "tool's hooks (docs/hooks.md)",
        )
    missing, replaced, never_run, as_legacy = _events(hooks)
    if not (missing or replaced or never_run):
        if not as_legacy:
            return Coverage(Reach.HOOKS, "hooks ok" if not husky else f"hooks ok in {hooks}")
        tool = next(iter(as_legacy.values()))
        return Coverage(
            Reach.PARTIAL,
            f"{tool} runs landwatch's hooks as *.legacy, without post-rewrite's list: rebases "
            "are recorded by the reflog sweep",
        )
    if never_run:
        tool = next(iter(never_run.values()))
        detail = f"{tool} moved landwatch's {', '.join(sorted(never_run))} to *.old, which it "
        detail += "never runs"
    elif replaced:
        tool = next(iter(replaced.values()))
        what = "regenerated its hooks over" if tool == "husky" else "replaced"
        detail = f"{tool} {what} landwatch's {', '.join(sorted(replaced))} hook(s) in {hooks}"
    else:
        detail = f"landwatch's {', '.join(missing)} hook(s) missing or not runnable in {hooks}"
    return Coverage(Reach.SWEEP, detail, "landwatch install (or landwatch doctor --fix)", True)


def _events(
    hooks: Path,
) -> tuple[list[str], dict[str, str], dict[str, str], dict[str, str]]:
    """Of each event whose hook git runs is not landwatch's running: (missing, replaced by a
    tool, moved to <event>.old by a tool that never runs it, run by pre-commit as .legacy)."""
    missing: list[str] = []
    replaced: dict[str, str] = {}  # event -> the tool whose hook is there instead of ours
    never_run: dict[str, str] = {}  # event -> the tool that moved ours to <event>.old
    as_legacy: dict[str, str] = {}  # event -> pre-commit or prek, running ours as .legacy
    for event in HOOK_EVENTS:
        hook = hooks / event
        owner = whose(hook)
        legacy = hook_slots.legacy_path(hook)
        if owner == "landwatch" and _runnable(hook):
            continue
        runs_ours = whose(legacy) == "landwatch" and _runnable(legacy)
        if owner in hook_slots.LEGACY_RUNNERS and runs_ours:
            if owner in hook_slots.LEGACY_WITHOUT_STDIN:
                as_legacy[event] = owner
            continue
        if whose(hook_slots.old_path(hook)) == "landwatch":
            never_run[event] = owner or "another tool"
        elif owner is not None and os.path.lexists(hook):
            replaced[event] = owner
        else:
            missing.append(event)
    return missing, replaced, never_run, as_legacy


def also_served(hooks_dir: Path, common: Path) -> list[Path]:
    """The other registered repositories whose hooks install wrote into `hooks_dir` too (a
    global core.hooksPath, or one --hooks-path given to several): they rely on those hooks."""
    where, mine = hooks_dir.resolve(), common.resolve()
    served = []
    for other in registry.registered():
        if other == mine or registry.problem_with(other) is not None:
            continue
        recorded = hook_slots.recorded_hooks_dir(other)
        if recorded is not None and recorded.resolve() == where:
            served.append(other)
    return served


def _gate(common: Path, repository: hookfiles.Repository) -> str | None:
    """What stops the push gate of `common`, in `repository` as git found it in its main
    worktree: its pre-push hook is not landwatch's, or not executable; None while it runs, or
    where landwatch never wrote hooks. Judged apart from the landing hooks: a tool's reinstall
    replaces both."""
    if hook_slots.recorded_hooks_dir(common) is None:
        return None
    slot = repository.hooks_dir / "pre-push"
    ours = hook_slots.runs_ours(slot)
    if ours and os.access(slot, os.X_OK):
        return None
    if ours:
        instead = "landwatch's pre-push hook is not executable: git skips it"
    elif owner := whose(slot):
        instead = f"git runs {owner}'s pre-push hook"
    elif os.path.lexists(slot):
        instead = "git runs another pre-push hook"
    else:
        instead = "there is no pre-push hook"
    return f"the push gate does not run ({instead}): a secret a review found can be pushed"


def sweep_off(common: Path) -> str | None:
    """What stops the reflog sweep of the repository of `common`: cursors a newer landwatch
    wrote, which this one never writes over (layout.state), or a worktree whose HEAD git keeps
    no reflog of (core.logAllRefUpdates false); None while it runs."""
    try:
        layout.read_state(layout.SWEEP_STATE, common)
    except layout.StateError as error:
        if error.newer:
            return (
                f"the reflog sweep is stopped ({error}): a landing the hooks do not record is "
                "not reviewed"
            )
    said = unlogged(common)
    return f"{said}; `{UNLOGGED_FIX}` makes git keep one" if said is not None else None


# What makes git keep the reflogs the sweep reads where it keeps none.
UNLOGGED_FIX = "git config core.logAllRefUpdates true"


def unlogged(common: Path) -> str | None:
    """The worktrees of the repository of `common` whose HEAD git keeps no reflog of, said: the
    sweep sees nothing there (an audit: status called such a repository "sweep only")."""
    found = [str(git_dir) for git_dir in registry.worktree_git_dirs(common) if _unlogged(git_dir)]
    if not found:
        return None
    return (
        f"git keeps no reflog of HEAD in {listed(found, 3)} (core.logAllRefUpdates is false): "
        "the reflog sweep cannot see a landing the hooks do not record there"
    )


def _unlogged(git_dir: Path) -> bool:
    """Whether git keeps no reflog of the HEAD of the worktree of `git_dir`, which has commits:
    no `logs/HEAD` (git adds only to a reflog there is, where core.logAllRefUpdates is false)
    beside an index (a bare repository's HEAD, which no commit moves, has neither)."""
    if os.path.lexists(git_dir / "logs" / "HEAD") or not os.path.lexists(git_dir / "index"):
        return False
    try:
        head = read_head(git_dir / "HEAD", 1024).decode()
    except (OSError, UnicodeDecodeError):
        return False
    if not head.startswith("ref: "):
        return True  # detached: at a commit
    common = git_dir.parent.parent if git_dir.parent.name == "worktrees" else git_dir
    branch = head.removeprefix("ref: ").strip()
    if os.path.lexists(common / branch):
        return True
    try:  # packed: born, never moved since (a clone's)
        return f" {branch}\n".encode() in read_file(common / "packed-refs", trusted=common)
    except OSError:
        return False


def older_events(hooks_dir: Path) -> list[str]:
    """The events whose landwatch hook in `hooks_dir` (in the slot, or the `.legacy` hook of the
    pre-commit or prek script there) an older landwatch wrote: its text is not the body this one
    writes, so what was mended in the hooks since does not run there until install."""
    older = []
    for event in INSTALLED_EVENTS:
        slot = hooks_dir / event
        ours = next(
            (p for p in (slot, hook_slots.legacy_path(slot)) if whose(p) == "landwatch"), None
        )
        try:
            text = read_head(ours, _MOST_HOOK) if ours is not None else None
        except OSError:
            continue  # no hook to read: coverage says what is wrong with it
        if text is not None and hookfiles.hook_body(event).encode() not in text:
            older.append(event)
    return older


def unhooked_worktrees(common: Path) -> list[tuple[Path, str]]:
    """Linked worktrees where git runs none of landwatch's hooks though the main worktree runs
    them: a relative core.hooksPath (husky's `.husky/_`) names a directory of each worktree's
    own, missing in a new one, or husky's shims alone. (The worktree, what git runs there.)"""
    try:
        repository = main_repository(common)
    except UserError:
        return []
    main = repository.hooks_dir.resolve() if repository is not None else None
    found = []
    for git_dir in registry.worktree_git_dirs(common)[1:]:
        # A `gitdir` pointer an archive planted names no worktree whose `.git` leads back here.
        worktree = worktree_of(git_dir, confirm=Confirm.READING, fallback=Fallback.NONE).top
        if worktree is None:
            continue  # gone, or none of its own: no worktree to ask
        try:
            hooks = hookfiles.find_repository(worktree, git_dir=git_dir).hooks_dir
        except (OSError, UserError):
            continue  # gone, or being made: `git worktree prune` is git's to run
        if hooks.resolve() == main:
            continue
        if all(whose(hooks / e) == "landwatch" and _runnable(hooks / e) for e in HOOK_EVENTS):
            continue
        if not hooks.is_dir():
            found.append(
                (worktree, f"core.hooksPath names {hooks}, which is not there: git runs no hook")
            )
        else:
            tool = whose(hooks / "post-commit") or whose(hooks / "pre-commit") or "another tool"
            found.append((worktree, f"git runs {tool}'s hooks from {hooks}, not landwatch's"))
    return found
