"""`landwatch install` / `uninstall`: the hooks into a repository, chained with what was there.

A foreign hook is moved aside and run first by ours, with the same arguments and stdin;
uninstall puts it back exactly. core.hooksPath pointing elsewhere is respected, not overwritten.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from pathlib import Path
from typing import TextIO

from landwatch import layout, registry, trust, work_item
from landwatch.daemon import sweep
from landwatch.errors import UserError
from landwatch.files import private_directory, remove, write_atomic
from landwatch.git import git, is_inside
from landwatch.hooks import (
    HOOK_EVENTS,
    Repository,
    chained_path,
    find_repository,
    is_ours,
    render_hook,
)
from landwatch.text import safe


class InstallError(UserError):
    """Installing cannot go on; the message says what to do."""


def write_entry_point(python: str = sys.executable) -> Path:
    """A stable per-user command for the hooks, so they never depend on PATH or a project venv.

    `-I` keeps the hook's working directory (a repository's files) off sys.path. A Python gone
    (its virtual environment removed) is one line that says what to do, not the shell's own.
    """
    entry = layout.entry_point()
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


def _hooks_path_policy(repository: Repository, requested: Path | None) -> Path:
    """The directory to write into, or InstallError saying exactly what to do."""
    effective = repository.hooks_dir
    if requested is not None:
        return requested.resolve()
    if effective.resolve() == repository.default_hooks_dir.resolve():
        return effective
    inside = is_inside(effective, repository.top)
    what = (
        "a directory inside the repository that a tool generates (husky's .husky/_ is one)"
        if inside
        else "a directory outside the repository, shared by other repositories"
    )
    raise InstallError(
        f"core.hooksPath points to {effective}, {what}; landwatch did not write there.\n"
        "  To install there on purpose:  landwatch install --hooks-path "
        f"{shlex.quote(str(effective))}\n"
        "  To use the repository's own hooks directory instead:  git config --unset core.hooksPath"
    )


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


def install(cwd: Path, *, hooks_path: Path | None = None, out: TextIO = sys.stdout) -> int:
    repository = find_repository(cwd)
    _readable_by_the_review(repository)
    hooks_dir = _hooks_path_policy(repository, hooks_path)
    hooks_dir.mkdir(parents=True, exist_ok=True)
    plans = []
    for event in HOOK_EVENTS:
        hook = hooks_dir / event
        foreign = os.path.lexists(hook) and not is_ours(hook)
        if foreign and os.path.lexists(chained_path(hook)):
            raise InstallError(
                f"{hook} is not landwatch's, and {chained_path(hook).name} already holds the hook "
                "landwatch chained before; move one of them away and run install again"
            )
        plans.append((event, hook, foreign))
    entry = write_entry_point()
    host = work_item.this_producer()[0]
    for event, hook, foreign in plans:
        if foreign:
            os.rename(hook, chained_path(hook))
            print(
                f"landwatch: kept your {event} hook as {chained_path(hook).name}; "
                "it still runs first",
                file=out,
            )
        # The hooks directory is git's, not ours: hooks are executable as git's own are.
        write_atomic(
            hook,
            render_hook(event, entry, host, repository.common_dir.resolve()),
            trusted=None,
            mode=0o755,
            make_directory=False,
        )
    print(f"landwatch: hooks {', '.join(HOOK_EVENTS)} written to {hooks_dir}", file=out)
    if hooks_dir != repository.hooks_dir.resolve():
        print(
            f"landwatch: git runs hooks from {repository.hooks_dir}; call the hooks in "
            f"{hooks_dir} from there",
            file=out,
        )
    for git_dir in registry.worktree_git_dirs(repository.common_dir):
        work_item.ensure_work_directory(git_dir)
        private_directory(layout.skipped_dir(git_dir), trusted=git_dir)
    # Nothing that landed before the install is reviewed; a reinstall goes on where it was.
    sweep.start_at_end(repository.common_dir, keep=True)
    for told in (layout.moved_told_file, layout.displaced_told_file):
        with contextlib.suppress(OSError):  # mended now: the hooks say so again if it recurs
            remove(told(repository.common_dir), trusted=repository.common_dir)
    if registry.register(repository.common_dir):
        print(f"landwatch: registered {repository.common_dir} with your reviewer", file=out)
    print(f"landwatch: hooks call {entry}", file=out)
    _tell_of_committed_linters(repository, out)
    return 0


def _tell_of_committed_linters(repository: Repository, out: TextIO) -> None:
    """Committed linter commands run only once trusted: say so now, not at the first finding."""
    from landwatch.review.change import ChangeError
    from landwatch.review.config import ConfigError, linters_digest

    try:
        where, linters = trust.committed_linters(repository.git_dir)
    except (ChangeError, ConfigError):
        return  # no commit yet, or a configuration the first review reports
    if not linters or trust.is_trusted(repository.git_dir, linters_digest(linters)):
        return
    names = ", ".join(safe(linter.name) for linter in linters)
    print(
        f"landwatch: {safe(where)} asks to run {len(linters)} linter command(s) ({names}); "
        f"they will not run until you review them: {trust.COMMAND}",
        file=out,
    )


def uninstall(cwd: Path, *, hooks_path: Path | None = None, out: TextIO = sys.stdout) -> int:
    repository = find_repository(cwd)
    hooks_dir = (hooks_path or repository.hooks_dir).resolve()
    for event in HOOK_EVENTS:
        hook = hooks_dir / event
        chained = chained_path(hook)
        if os.path.lexists(hook) and not is_ours(hook):
            print(f"landwatch: {hook} is not landwatch's; left as it is", file=out)
            continue
        if os.path.lexists(hook):
            hook.unlink()
        if os.path.lexists(chained):
            os.rename(chained, hook)
            print(f"landwatch: restored your {event} hook", file=out)
    if registry.unregister(repository.common_dir):
        print(f"landwatch: unregistered {repository.common_dir}", file=out)
    if trust.forget(repository.git_dir):
        print("landwatch: withdrew what you trusted here; no committed linter runs", file=out)
    print(
        f"landwatch: hooks removed from {hooks_dir}; the queue and reports stay in "
        f"{repository.common_dir / work_item.WORK_DIRECTORY}",
        file=out,
    )
    return 0
