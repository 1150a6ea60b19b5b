"""`landwatch uninstall`: the hooks taken out of this repository, the hooks they replaced put
back exactly, its queue and reports removed; with `--all`, landwatch removed for the person,
after saying what goes: every registered repository's hooks, queue and reports, the reviewer's
service (once the reviewer has ended), the per-user data, state and configuration, and the
command links.

`--keep-data` keeps each repository's queue and reports (.git/landwatch), and says where.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
from pathlib import Path
from typing import NamedTuple, TextIO

from landwatch import coverage, layout, registry, trust
from landwatch.commands import service
from landwatch.commands.install import forget_gone, hooks_dir_of, installed_for, take_out
from landwatch.daemon.lock import holder, wait_until_released
from landwatch.errors import UserError
from landwatch.files import exclusive, read_file, remove, remove_tree, write_atomic
from landwatch.git import Confirm, Fallback, worktree_of
from landwatch.hooks import RepositoryError, find_repository
from landwatch.text import duration, listed, plural, safe
from landwatch.work_item import WORK_DIRECTORY


def command_links() -> list[Path]:
    """The `landwatch` and `git-landwatch` links install.sh made: in the bin directory it
    used, pointing into landwatch's own data directory."""
    bin_dir = Path(os.environ.get("LANDWATCH_BIN_DIR") or Path.home() / ".local" / "bin")
    data = layout.data_dir().resolve()
    home = Path.home()
    # install.sh may also have linked them into a directory of the user's that PATH reaches.
    directories = [bin_dir] + [
        Path(entry)
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and Path(entry).is_relative_to(home)
    ]
    found = []
    for link in dict.fromkeys(
        d / name for d in directories for name in ("landwatch", "git-landwatch")
    ):
        if link.is_symlink():
            target = Path(os.path.realpath(link))  # absolute, a dangling link's too
            if data in target.parents or target == data:
                found.append(link)
    return found


class Here(NamedTuple):
    """The repository `--all` runs in, not registered, with landwatch's hooks that serve no
    registered repository: moved or copied from one (they name `installed_for`)."""

    common: Path
    installed_for: list[Path]


def here(cwd: Path) -> Here | None:
    """The repository at `cwd` as `Here`, or None: none there, registered, or no such hooks."""
    try:
        repository = find_repository(cwd, doing="uninstall")
    except UserError:
        return None
    common = repository.common_dir.resolve()
    hooks_dir = hooks_dir_of(common, repository.hooks_dir)
    if registry.is_registered(common) or coverage.also_served(hooks_dir, common):
        return None
    named = sorted(installed_for(hooks_dir))
    return Here(common, named) if named else None


def plan(keep_data: bool, found: Here | None = None) -> list[str]:
    lines = []
    moved_here = found.installed_for if found is not None else []
    for common in registry.registered():
        problem = registry.problem_with(common)
        if problem is None:
            lines.append(f"remove {_what(common, keep_data)}")
        elif problem == registry.VANISHED and common not in moved_here:
            lines.append(
                f"forget {safe(str(common))} ({problem}; moved elsewhere, its hooks went with "
                "it: run this there to take them out too)"
            )
        else:
            lines.append(f"forget {safe(str(common))} ({problem})")
    if found is not None:
        named = listed([safe(str(path)) for path in found.installed_for], 2)
        lines.append(
            f"remove {_what(found.common, keep_data)}, where this runs (its hooks were "
            f"installed for {named})"
        )
    chosen = service.scheduler()
    lines.append(f"remove the reviewer's service ({chosen.describe()})")
    if isinstance(chosen, service.Detached):  # a unit no user manager here answers for
        units = [place for place in service.Systemd.unit_places() if place.is_file()]
        lines += [f"remove the systemd unit {safe(str(place))}" for place in units]
    for directory in _directories():
        if directory.exists():
            kept = keep_data and directory == layout.state_dir() and layout.WORK_KEY.path().exists()
            but = (
                f" but {safe(str(layout.WORK_KEY.path()))} (whose marks say the kept"
                " work directories are landwatch's)"
                if kept
                else ""
            )
            holds = {
                layout.state_dir(): " (its state: the reviewer's log, trust, the compiled "
                "secret rules)",
                layout.cache_dir(): " (its cache: the environments the project hooks ran in)",
            }.get(directory, "")
            lines.append(f"remove {safe(str(directory))}{holds}{but}")
    lines += [f"remove the link {safe(str(link))}" for link in command_links()]
    return lines


def _what(common: Path, keep_data: bool) -> str:
    """What `--all` removes of a repository, for its plan."""
    if keep_data:
        return f"the hooks of {safe(str(common))}"
    what = f"the hooks and {WORK_DIRECTORY}/ (queue and reports) of {safe(str(common))}"
    aside = _set_aside(common)
    if aside:
        what += f", and {plural(len(aside), 'work directory', 'work directories')} set aside as "
        what += "not made here"
    return what


def uninstall_everything(
    *,
    keep_data: bool,
    yes: bool,
    out: TextIO | None = None,
    ask: TextIO | None = None,
    stop_wait: float = service.STOP_WAIT,
    cwd: Path | None = None,
) -> int:
    out = sys.stdout if out is None else out
    ask = sys.stdin if ask is None else ask
    found = here(cwd) if cwd is not None else None
    steps = plan(keep_data, found)
    print("landwatch uninstall --all will:", file=out)
    for step in steps:
        print(f"  {step}", file=out)
    if not yes:
        if not ask.isatty():
            print("landwatch: nothing removed; run again with --yes to do it", file=out)
            return 1
        print("go on? [y/N] ", end="", file=out, flush=True)
        if ask.readline().strip().lower() not in ("y", "yes"):
            print("landwatch: nothing removed", file=out)
            return 1
    # The reviewer first, so that nothing writes while the rest goes. Asked to stop, it may
    # finish a review first, and writes its log and state as it ends: removed before, the
    # state directory would come back.
    running = holder()
    with contextlib.suppress(Exception):
        service.service("uninstall", out=io.StringIO())
    stopped = running is None or holder() is None
    if running is not None and not stopped:
        print(f"landwatch: waiting for the reviewer ({running.describe()}) to end", file=out)
        out.flush()
        stopped = wait_until_released(stop_wait, pid=running.pid)
    for common in registry.registered() + ([found.common] if found is not None else []):
        _remove_repository(common, keep_data, out)
    key = _kept_work_key(keep_data)
    for directory in _directories():
        if stopped or directory != layout.state_dir():
            remove_tree(directory)
    if key is not None:
        # The data kept stays landwatch's for the next install, not moved aside as planted.
        write_atomic(layout.WORK_KEY.path(), key, trusted=None)
    for link in command_links():
        with contextlib.suppress(OSError):
            link.unlink()
    if running is not None and not stopped:
        state = safe(str(layout.state_dir()))
        print(
            f"landwatch: removed, but the reviewer ({running.describe()}) has not ended after "
            f"{duration(stop_wait)}; {state} is kept for it: once it has ended, rm -rf "
            f"{shlex.quote(state)}",
            file=out,
        )
        return 1
    print("landwatch: removed; nothing of it runs any more", file=out)
    _what_you_set_up(out)
    return 0


def _directories() -> tuple[Path, ...]:
    """landwatch's own directories for the person: its state (the compiled secret rules among
    it), configuration, data, and cache (the environments the project hooks were built in)."""
    return (layout.state_dir(), layout.config_dir(), layout.data_dir(), layout.cache_dir())


# Where docs/hooks.md and `landwatch completion --help` put each shell's completion file.
COMPLETIONS = (
    ".local/share/bash-completion/completions/landwatch",
    ".zfunc/_landwatch",
    ".config/fish/completions/landwatch.fish",
)


def _what_you_set_up(out: TextIO) -> None:
    """What only the person can take out: the completion files found where the docs put them,
    and `landwatch prompt` in a shell's prompt (guarded by `command -v`, it says nothing now)."""
    home = Path.home()
    for name in COMPLETIONS:
        if (home / name).is_file():
            print(f"landwatch: your shell's completion for it is left: rm {home / name}", file=out)
    print(
        "landwatch: if your shell's prompt calls `landwatch prompt`, take that out of your "
        "shell's startup file (~/.bashrc, ~/.zshrc, fish's or starship's configuration)",
        file=out,
    )


def _kept_work_key(keep_data: bool) -> bytes | None:
    if not keep_data:
        return None
    try:
        return read_file(layout.WORK_KEY.path(), trusted=None)
    except OSError:
        return None


def _remove_repository(common: Path, keep_data: bool, out: TextIO) -> None:
    shown = safe(str(common))
    if registry.problem_with(common) is not None:
        registry.unregister(common)
        print(f"landwatch: forgot {shown}", file=out)
        return
    top = worktree_of(common, confirm=Confirm.READING, fallback=Fallback.NONE).top
    try:
        if top is not None:
            uninstall(top, keep_data=True, out=io.StringIO(), git_dir=common)
        else:
            # No main worktree to run in: the hooks are taken from where install wrote them, or
            # from git's own place where that record no longer holds (hooks_dir_of).
            with exclusive(layout.INSTALL_LOCK.path()):
                take_out(hooks_dir_of(common, common / "hooks"), common, io.StringIO())
            registry.unregister(common)
            trust.forget(common)
    except RepositoryError as error:
        # git there finds another repository (one above, whose hooks and data are not these) or
        # none: nothing of either is touched (uninstall asks git before it changes anything).
        registry.unregister(common)
        print(f"landwatch: left {shown} as it is: {error}", file=out)
        return
    except Exception as error:  # one repository's trouble does not stop the rest
        print(f"landwatch: {shown}: {type(error).__name__}: {error}", file=out)
        registry.unregister(common)
    else:
        print(f"landwatch: removed from {shown}", file=out)
    _data(common, keep_data, out)


def _set_aside(common: Path) -> list[Path]:
    """The work directories install moved aside as not made here, in every worktree's git dir."""
    return [
        aside
        for git_dir in registry.worktree_git_dirs(common)
        for aside in registry.set_aside(git_dir)
    ]


def _data(common: Path, keep_data: bool, out: TextIO) -> None:
    """Each worktree's queue and reports, and the work directories install moved aside there
    (they came with the repository), removed; or, kept, where they stay and how to remove them."""
    works = [layout.work_dir(git_dir) for git_dir in registry.worktree_git_dirs(common)]
    kinds = (
        ("the queue and reports", [work for work in works if os.path.lexists(work)]),
        ("the work directories set aside as not made here", _set_aside(common)),
    )
    for what, paths in kinds:
        if not paths:
            continue
        if keep_data:
            shown = ", ".join(safe(str(path)) for path in paths)
            removal = " ".join(shlex.quote(safe(str(path))) for path in paths)
            print(f"landwatch: {what} stay in {shown}; rm -rf {removal}", file=out)
            continue
        _removed(what, paths, out)


def _removed(what: str, paths: list[Path], out: TextIO) -> None:
    """`paths` (`what` they are) removed, and said: all gone, or what is left and the command
    that takes it (a run behind the wall can leave what no removal of ours gets past)."""
    left = [path for path in paths if not remove_tree(path)]
    if left:
        kept = " ".join(shlex.quote(safe(str(path))) for path in left)
        print(f"landwatch: could not remove all of {what}; rm -rf {kept}", file=out)
    else:
        shown = ", ".join(safe(str(path)) for path in paths)
        print(f"landwatch: removed {what} ({shown})", file=out)


def uninstall(
    cwd: Path,
    *,
    hooks_path: Path | None = None,
    keep_data: bool = False,
    out: TextIO | None = None,
    git_dir: Path | None = None,
) -> int:
    """landwatch taken out of the repository `cwd` is in; with `git_dir` (a registered
    repository's, for --all), RepositoryError, nothing changed, where git finds another there."""
    out = sys.stdout if out is None else out  # the stdout of the call, not of the import
    repository = find_repository(cwd, doing="uninstall", git_dir=git_dir)
    common = repository.common_dir
    with exclusive(layout.INSTALL_LOCK.path()):  # not beside an install (install.py says why)
        # Where they are now: one moved or copied since was not installed where its record says.
        hooks_dir = (hooks_path or hooks_dir_of(common, repository.hooks_dir)).resolve()
        forget_gone(hooks_dir, out)
        # Where other registered repositories rely on them (a shared directory), they stay.
        withdrawn = take_out(hooks_dir, common, out)
        for place in (layout.HOOKS_DIR, layout.MAIN_WORKTREE):
            with contextlib.suppress(OSError):
                remove(place.path(common), trusted=common)
        if registry.unregister(common):
            print(f"landwatch: unregistered {safe(str(common))}", file=out)
        _withdraw_trust(repository.git_dir, out)
        _drop_hook_store(common, out)
        if withdrawn:
            print(f"landwatch: hooks removed from {safe(str(hooks_dir))}", file=out)
        _stop_sharing(cwd, common, out)
        _data(common, keep_data, out)
    return 0


def _withdraw_trust(git_dir: Path, out: TextIO) -> None:
    """What was trusted here withdrawn; a trust.json that must not be written over is said, and
    the rest of the uninstall goes on."""
    try:
        withdrawn = trust.forget(git_dir)
    except layout.StateError as error:
        print(f"landwatch: {error}", file=out)
        return
    if withdrawn:
        print("landwatch: withdrew what you trusted here; no committed linter runs", file=out)


def _drop_hook_store(common: Path, out: TextIO) -> None:
    """The project hooks' environments built for this repository removed: nothing of them is
    of use to another (a repository cloned here later gets a store of its own in any case)."""
    from landwatch.kinds.project_hooks import store_name

    name = store_name(common)
    store = layout.HOOK_ENVS.path() / name if name is not None else None
    if store is not None and os.path.lexists(store):
        _removed("the project hooks' environments", [store], out)


def _stop_sharing(cwd: Path, common: Path, out: TextIO) -> None:
    """Sharing undone as `landwatch share --off` does: no reviewer writes notes here now."""
    from landwatch.commands import share

    if share.shared_remote(common) is not None:
        share.share(cwd, remote=None, off=True, out=out)
