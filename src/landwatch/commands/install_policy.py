"""Where `landwatch install` writes its hooks: the directory git runs them from when that is
the repository's own or husky's, else one the person names; never one the project commits.

docs/hooks.md's core.hooksPath table says the same, row by row.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from landwatch import coverage, hook_slots
from landwatch.errors import UserError
from landwatch.git import is_inside
from landwatch.hooks import Repository


class InstallError(UserError):
    """Installing cannot go on; the message says what to do."""


def hooks_path_policy(repository: Repository, requested: Path | None) -> Path:
    """The directory to write into, or InstallError saying exactly what to do. A `.git/hooks`
    that is a link elsewhere is judged as a core.hooksPath naming where it leads. Never one the
    project commits, even asked: landwatch's hooks, the person's path in them, would go to all."""
    effective, named = repository.hooks_dir, f"core.hooksPath points to {repository.hooks_dir}"
    own = repository.common_dir.resolve() / "hooks"
    if requested is not None:
        if requested.resolve() == own:  # what install says to do beside a committed directory
            own.mkdir(parents=True, exist_ok=True)
        if not requested.is_dir():
            raise InstallError(f"{requested} is not a directory; nothing written")
        effective, named = requested, str(requested)
    elif effective.resolve() == own:
        effective.mkdir(parents=True, exist_ok=True)  # a clone made without git's templates
        return effective
    link = repository.default_hooks_dir
    if requested is None and link.is_symlink() and link.resolve() == effective.resolve():
        named = f"{link} is a link to {effective}"  # git names where it leads
    if committed := coverage.project_commits(effective, repository):
        raise InstallError(
            f"{named}, {committed}; landwatch did not write there: the next `git commit -a` "
            "would give its hooks to everyone, your home's path in them.\n"
            f"  Instead:  {coverage.beside_committed(repository)}"
        )
    if requested is not None or hook_slots.is_husky_dir(effective):
        return effective.resolve()
    inside = is_inside(effective, repository.top)
    what = (
        "a directory inside the repository that a tool generates"
        if inside
        else "a directory outside the repository, shared by other repositories"
    )
    raise InstallError(
        f"{named}, {what}; landwatch did not write there.\n"
        "  To install there on purpose:  landwatch install --hooks-path "
        f"{shlex.quote(str(effective))}"
    )
