"""`landwatch install` / `uninstall`: the hooks into a repository, chained with what was there.

A foreign hook is moved aside and run first by ours, with the same arguments and stdin;
uninstall puts it back exactly. core.hooksPath pointing elsewhere is respected, not overwritten.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import landwatch
from landwatch import layout, registry, trust, work_item
from landwatch.errors import UserError
from landwatch.files import write_atomic
from landwatch.git import GitError, git, is_inside
from landwatch.text import safe

HOOK_EVENTS = ("post-commit", "post-merge", "post-rewrite", "post-applypatch")
MARKER = "# landwatch-hook"
HOOK_FORMAT = 1


class InstallError(UserError):
    """Installing cannot go on; the message says what to do."""


@dataclass(frozen=True)
class Repository:
    git_dir: Path
    common_dir: Path
    hooks_dir: Path  # where git runs hooks from (core.hooksPath honoured)
    default_hooks_dir: Path
    top: Path


def find_repository(cwd: Path) -> Repository:
    if "\n" in str(cwd.resolve()):
        raise InstallError(
            f"{safe(str(cwd.resolve()))} has a newline in its path, which the hooks cannot "
            "record; move the repository to a path without one"
        )
    try:
        bare = git("rev-parse", "--is-bare-repository", cwd=cwd)
    except GitError as error:
        raise InstallError(f"{cwd} is not in a git repository ({error})") from None
    if bare == "true":
        raise InstallError(
            f"{cwd} is a bare repository: nothing lands there by commit; "
            "install landwatch in a clone"
        )
    git_dir, common_dir, hooks_dir, top = git(
        "rev-parse",
        "--path-format=absolute",
        "--git-dir",
        "--git-common-dir",
        "--git-path",
        "hooks",
        "--show-toplevel",
        cwd=cwd,
    ).split("\n")
    return Repository(
        Path(git_dir), Path(common_dir), Path(hooks_dir), Path(common_dir) / "hooks", Path(top)
    )


def hook_body() -> str:
    """githooks/hook.sh: inside the installed package, or in the source checkout."""
    package = Path(landwatch.__file__).parent
    for candidate in (
        package / "githooks" / "hook.sh",
        package.parents[1] / "githooks" / "hook.sh",
    ):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    raise InstallError(f"the hook script is missing from {package}; reinstall landwatch")


def render_hook(event: str, entry: Path, host: str) -> str:
    return (
        "#!/bin/sh\n"
        f"{MARKER} {HOOK_FORMAT}: written by `landwatch install`; `landwatch uninstall`\n"
        "# removes it and puts back the hook it replaced. Edits are lost on the next install.\n"
        f"LANDWATCH_EVENT={event}\n"
        f"LANDWATCH_ENTRY={shlex.quote(str(entry))}\n"
        f"LANDWATCH_HOST={shlex.quote(host)}\n"
        "\n" + hook_body()
    )


def is_ours(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(512)
    except OSError:
        return False
    return MARKER.encode() in head


def chained_path(hook: Path) -> Path:
    return hook.with_name(hook.name + layout.CHAINED_SUFFIX)


def write_entry_point(python: str = sys.executable) -> Path:
    """A stable per-user command for the hooks, so they never depend on PATH or a project venv.

    `-I` keeps the hook's working directory (a repository's files) off sys.path.
    """
    entry = layout.entry_point()
    text = (
        "#!/bin/sh\n"
        "# The landwatch command for git hooks, written by `landwatch install`.\n"
        f'exec {shlex.quote(python)} -I -m landwatch "$@"\n'
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


def install(cwd: Path, *, hooks_path: Path | None = None, out: TextIO = sys.stdout) -> int:
    repository = find_repository(cwd)
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
            render_hook(event, entry, host),
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
