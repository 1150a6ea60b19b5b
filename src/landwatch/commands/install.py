"""`landwatch install [--hooks-path DIR]`: the hooks into a repository, beside what was there,
the repository registered with the reviewer, and the entry point the hooks call.

Each other tool's hook keeps running (landwatch.hook_slots says how, tool by tool); core.hooksPath
elsewhere is respected. `landwatch uninstall` (commands.uninstall) undoes it.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from landwatch import (
    coverage,
    hook_slots,
    layout,
    lfs_slots,
    registry,
    report_store,
    trust,
    work_item,
)
from landwatch.commands import notice
from landwatch.commands.install_policy import InstallError, hooks_path_policy
from landwatch.daemon import sweep
from landwatch.errors import UserError
from landwatch.files import exclusive, private_directory, remove, write_atomic
from landwatch.git import git
from landwatch.hook_slots import Integration
from landwatch.hooks import (
    INSTALLED_EVENTS,
    Repository,
    event_of,
    find_repository,
    render_hook,
    served,
)
from landwatch.text import listed, safe


def write_entry_point(python: str = sys.executable) -> Path:
    """A stable per-user command for the hooks, so they never depend on PATH or a project venv.

    `-I` keeps the hook's working directory (a repository's files) off sys.path. A Python gone
    (its virtual environment removed) is one line that says what to do, not the shell's own.
    """
    entry = layout.ENTRY_POINT.path()
    text = (
        "#!/bin/sh\n"
        "# The landwatch command for git hooks, written by `landwatch install`.\n"
        f"python={shlex.quote(python)}\n"
        'if [ ! -x "$python" ]; then\n'
        "    printf 'landwatch: the Python landwatch was installed with is gone (%s): "
        'reinstall landwatch\\n\' "$python" >&2\n'
        "    exit 127\n"
        "fi\n"
        'exec "$python" -I -m landwatch "$@"\n'
    )
    write_atomic(entry, text, trusted=None, mode=0o700)  # ours alone, like its directory
    return entry


def _readable_by_the_review(repository: Repository) -> None:
    """A repository the review cannot read is refused, not filled with items that can only
    fail (SHA-256 repositories, while the pygit2 here cannot open them)."""
    object_format = git("rev-parse", "--show-object-format", cwd=repository.top, check=False)
    if object_format in ("", "sha1"):
        return
    import pygit2

    try:
        pygit2.Repository(str(repository.git_dir))
    except (pygit2.GitError, ValueError) as error:
        raise InstallError(
            f"{repository.top} uses {object_format} object names, which the libgit2 "
            f"{pygit2.LIBGIT2_VERSION} of landwatch's pygit2 cannot read ({error}); nothing "
            "installed"
        ) from None


def install(
    cwd: Path,
    *,
    hooks_path: Path | None = None,
    out: TextIO | None = None,
    git_dir: Path | None = None,
) -> int:
    """landwatch installed in the repository `cwd` is in; with `git_dir` (a registered
    repository's or its worktree's, mended by doctor or an upgrade), refused where git finds
    another there."""
    out = sys.stdout if out is None else out  # the stdout of the call, not of the import
    repository = find_repository(cwd, git_dir=git_dir)
    _readable_by_the_review(repository)
    hooks_dir = hooks_path_policy(repository, hooks_path)
    entry = write_entry_point()
    # One at a time: two first installs in one repository each took the work directory the other
    # had just made, not marked yet, for one that came with it, and moved it aside; two into a
    # shared hooks directory each named there the repositories registered before the other's.
    with exclusive(layout.INSTALL_LOCK.path()):
        left = _install_into(repository, hooks_dir, out)
    print(f"landwatch: hooks call {safe(str(entry))}", file=out)
    _tell_of_what_it_asks(repository, out)
    compile_secret_rules(out)
    if left:
        raise InstallError(f"installed, but for {', '.join(left)}: " + "; ".join(left.values()))
    return 0


def _install_into(repository: Repository, hooks_dir: Path, out: TextIO) -> dict[str, str]:
    """The hooks written into `hooks_dir` beside what is there, the work directories made and
    marked, the repository registered: what install changes, under the install lock. An event
    whose hooks install cannot sort out alone is left as it is, not the others: what, and why."""
    left = {e: p for e in INSTALLED_EVENTS if (p := hook_slots.conflict(hooks_dir / e))}
    events = [event for event in INSTALLED_EVENTS if event not in left]
    if not events:
        raise InstallError("; ".join(left.values()))  # nothing written
    _set_aside_what_landwatch_did_not_make(repository, out)
    before = hooks_dir_of(repository.common_dir, hooks_dir)
    # Installed elsewhere before (git ran hooks from there then): taken away from there, unless
    # other repositories rely on them (take_out says so).
    if before.resolve() != hooks_dir.resolve() and take_out(before, repository.common_dir, out):
        print(f"landwatch: took landwatch's hooks away from {safe(str(before))}", file=out)
    forget_gone(hooks_dir, out)
    for said in lfs_slots.mend(repository.top, hooks_dir, repository.common_dir):
        print(f"landwatch: {said}", file=out)
    also = coverage.also_served(hooks_dir, repository.common_dir)
    write = _writer(repository.common_dir.resolve(), also)
    placed = [hook_slots.place(hooks_dir / event, write) for event in events]
    hook_slots.follow_kept_siblings(hooks_dir)
    for said in dict.fromkeys(line for where in placed for line in where.said):
        print(f"landwatch: {said}", file=out)
    hook_slots.record_hooks_dir(repository.common_dir, hooks_dir)
    shown = safe(str(hooks_dir))
    print(f"landwatch: hooks {', '.join(events)} written to {shown}", file=out)
    _tell_of_hooks_dir(repository, hooks_dir, also, out)
    _prepare_data(repository)
    if registry.register(repository.common_dir):
        registered = safe(str(repository.common_dir))
        print(f"landwatch: registered {registered} with your reviewer", file=out)
    return left


def _tell_of_hooks_dir(
    repository: Repository, hooks_dir: Path, also: Sequence[Path], out: TextIO
) -> None:
    """What install says of the directory it wrote the hooks to: the other repositories it
    serves (`also`), husky's regenerating it, or that git runs hooks from elsewhere."""
    shown = safe(str(hooks_dir))
    if also:
        print(
            f"landwatch: {shown} serves {_named(also)} too: its hooks name each repository "
            "they serve, and stay until `landwatch uninstall` in the last of them",
            file=out,
        )
    if hook_slots.is_husky_dir(hooks_dir):
        print(
            f"landwatch: husky regenerates {shown} at every `npm install`, which removes "
            "landwatch's hooks: the reflog sweep still reviews every landing, and `landwatch "
            "doctor --fix` puts them back (docs/hooks.md has a lasting recipe)",
            file=out,
        )
    elif hooks_dir != repository.hooks_dir.resolve():
        print(
            f"landwatch: git runs hooks from {safe(str(repository.hooks_dir))}; call the hooks "
            f"in {shown} from there",
            file=out,
        )


def _writer(repository: Path, also: Sequence[Path]) -> Callable[[Path, Integration], None]:
    """How one hook is written (hook_slots.place's `write`): its header naming `repository`, and
    `also` the other registered repositories a shared hooks directory serves."""
    entry = layout.ENTRY_POINT.path()
    host = work_item.this_producer()[0]

    def write(path: Path, how: Integration) -> None:
        chain = "husky" if how is Integration.HUSKY else "exec"
        lefthook = how is Integration.LEFTHOOK
        husky_4 = how in hook_slots.HUSKY_4_MAY_REPLACE
        text = render_hook(event_of(path), entry, host, repository, chain, lefthook, also, husky_4)
        # The hooks directory is git's, not ours: hooks are executable as git's own are.
        write_atomic(path, text, trusted=None, mode=0o755, make_directory=False)

    return write


def hooks_dir_of(common: Path, now: Path) -> Path:
    """Where the hooks of the repository of `common` are: where install wrote them, or `now`
    (where git runs them from) when that is gone (the repository moved), was not written for this
    one (its work directory copied or unpacked: registry.ours), or is another repository's own."""
    recorded = hook_slots.recorded_hooks_dir(common)
    if recorded is None or not recorded.is_dir() or not registry.ours(common):
        return now
    parent = recorded.resolve().parent
    if registry.is_git_dir(parent) and parent != common.resolve():
        return now  # moved, and another repository made where it was
    return recorded


def take_out(hooks_dir: Path, common: Path, out: TextIO) -> bool:
    """The hooks of the repository of `common` taken out of `hooks_dir` (what they replaced put
    back): True when landwatch's were there. Where other registered repositories rely on them (a
    shared directory), left there naming only those, said in one line, False."""
    also = coverage.also_served(hooks_dir, common)
    if not also:
        ours = [e for e in INSTALLED_EVENTS if hook_slots.where_ours(hooks_dir / e) is not None]
        # Uninstalled since, git-lfs left its hooks ours ran: not put back (an audit: they were,
        # and every push failed once git-lfs was gone).
        for said in lfs_slots.drop_left_behind(hooks_dir, common):
            print(f"landwatch: {said}", file=out)
        for event in INSTALLED_EVENTS:
            for said in hook_slots.withdraw(hooks_dir / event):
                print(f"landwatch: {said}", file=out)
        return bool(ours)
    write = _writer(also[0], also[1:])
    for event in INSTALLED_EVENTS:
        if hook_slots.runs_ours(hooks_dir / event):  # a hook put over ours since is left be
            hook_slots.place(hooks_dir / event, write)
    relies = "relies" if len(also) == 1 else "rely"
    print(
        f"landwatch: left the hooks in {safe(str(hooks_dir))}: {_named(also)} {relies} on them too "
        "(`landwatch uninstall` in the last repository they serve removes them)",
        file=out,
    )
    return False


def installed_for(hooks_dir: Path) -> set[Path]:
    """The repositories landwatch's hooks in `hooks_dir` were installed for (their headers)."""
    places = [hook_slots.where_ours(hooks_dir / event) for event in INSTALLED_EVENTS]
    return {path for place in places if place is not None for path in served(place)}


def forget_gone(hooks_dir: Path, out: TextIO) -> None:
    """The registered repositories landwatch's hooks in `hooks_dir` were installed for that are
    gone (where a moved one was) forgotten, as the hooks written or taken out now no longer
    name them (also_served names none): nothing could drain them."""
    for common in sorted(installed_for(hooks_dir).intersection(registry.registered())):
        problem = registry.problem_with(common)
        if problem is not None and registry.unregister(common):
            print(
                f"landwatch: forgot {safe(str(common))} ({problem}), which the hooks in "
                f"{safe(str(hooks_dir))} were installed for",
                file=out,
            )


def _named(repositories: Sequence[Path]) -> str:
    return listed([safe(str(path)) for path in repositories], 2)


def rewrite_older_hooks(out: TextIO | None = None) -> int:
    """An upgrade's last step: every other registered repository whose hooks an older landwatch
    wrote gets them written again where they were (they are copies, and the fixes in them since
    would not run there); how many. One that cannot be is said, and left as it was."""
    out = sys.stdout if out is None else out
    rewritten = 0
    for common in registry.registered():
        hooks_dir = hook_slots.recorded_hooks_dir(common)
        if hooks_dir is None or not coverage.older_events(hooks_dir):
            continue
        found = coverage.main_worktree(common)
        if found is None:
            continue
        top = found.where
        print(f"landwatch: {safe(str(top))}: hooks an older landwatch wrote", file=out)
        try:
            install(top, hooks_path=hooks_dir, out=out, git_dir=found.git_dir)
        except UserError as error:
            print(f"landwatch: {safe(str(top))}: left as it was: {error}", file=out)
            continue
        rewritten += 1
    return rewritten


def compile_secret_rules(out: TextIO | None = None) -> None:
    """The secret rules compiled into landwatch's state now (once: seconds), so that the first
    review reads them back; said in a line. Never a failed install: a review compiles them."""
    from landwatch.review.secrets import provider_rules, rule_cache

    out = sys.stdout if out is None else out
    where = rule_cache.directory()
    if where is None or not provider_rules.installed() or provider_rules.compiled():
        return
    shown = safe(str(where))
    print(f"landwatch: compiling the secret rules into {shown} (once, a few seconds)", file=out)
    provider_rules.available()
    if not provider_rules.compiled():
        print(
            f"landwatch: the secret rules could not be kept in {shown} (the log says why);"
            " a review compiles them when it needs them",
            file=out,
        )


def _prepare_data(repository: Repository) -> None:
    """The work directories marked as landwatch's, the sweep started at the reflogs' ends (what
    landed before is not reviewed; a reinstall goes on where it was), the worktree of a git dir
    kept apart remembered, the reviews kept by a landwatch without the push gate marked as its
    hook reads them, the lines said once forgotten."""
    for git_dir in registry.worktree_git_dirs(repository.common_dir):
        registry.mark_made(git_dir)
        private_directory(layout.SKIPPED.path(git_dir), trusted=git_dir)
        notice.start_told(git_dir)
    sweep.start_at_end(repository.common_dir, now=time.time(), keep=True)
    coverage.remember_main_worktree(repository)
    report_store.mark_every_blocking(repository.common_dir)
    for told in (layout.MOVED_TOLD, layout.DISPLACED_TOLD, layout.GONE_TOLD):
        with contextlib.suppress(OSError):  # mended now: the hooks say so again if it recurs
            remove(told.path(repository.common_dir), trusted=repository.common_dir)


def _set_aside_what_landwatch_did_not_make(repository: Repository, out: TextIO) -> None:
    """A work directory that came with the repository (copied, unpacked, planted) is moved aside
    before anything in it is read: its markers and reports would say commits were reviewed. A
    registered repository's are the person's, marked or not (made by a release before marks)."""
    if registry.is_registered(repository.common_dir):
        return
    for git_dir in registry.worktree_git_dirs(repository.common_dir):
        aside = registry.set_aside_unless_made(git_dir, now=time.time())
        if aside is not None:
            print(
                f"landwatch: {safe(str(layout.work_dir(git_dir)))} was not made by landwatch "
                f"here (it came with the repository); moved aside, unread, to {safe(str(aside))}",
                file=out,
            )


def _tell_of_what_it_asks(repository: Repository, out: TextIO) -> None:
    """What the repository asks that landwatch does not do, or not until you say so, said now:
    its settings (a copy's .git/config: each value landwatch cannot use, and auto-push and
    sharing where they are on, with the file that says so), its committed linter commands."""
    from landwatch.review.change import ChangeError
    from landwatch.review.config import ConfigError

    settings = layout.read_git_settings(repository.git_dir)
    said = [*settings.problems, *layout.turned_on(repository.git_dir, settings)]
    with contextlib.suppress(ChangeError, ConfigError):  # no commit yet, or a bad configuration
        where, pinned = trust.committed(repository.git_dir)
        if pinned.linters and not trust.is_trusted(repository.git_dir, pinned.digest):
            names = ", ".join(linter.name for linter in pinned.linters)
            said.append(
                f"{where} asks to run {len(pinned.linters)} linter command(s) ({names}); they "
                f"will not run until you review them: {trust.COMMAND}"
            )
    for line in said:
        print(f"landwatch: {safe(line)}", file=out)
