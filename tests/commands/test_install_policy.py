"""Where install writes its hooks (commands.install_policy): the repository's own hooks
directory, a directory asked for, never one the project commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch.commands.install_policy import InstallError, hooks_path_policy
from landwatch.hooks import find_repository
from support.repos import Repo


def test_the_repository_s_own_hooks_directory_is_taken_and_made_where_missing(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "repo")
    own = repo.git_dir / "hooks"
    for hook in own.iterdir():
        hook.unlink()
    own.rmdir()  # a clone made without git's templates
    assert hooks_path_policy(find_repository(repo.path), None) == own
    assert own.is_dir()


def test_a_directory_the_project_commits_is_refused_even_asked_for(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    team = repo.path / "githooks"
    team.mkdir()
    (team / "pre-push").write_text("#!/bin/sh\ntrue\n")
    repo.git("add", "githooks")
    repo.land("the project's hooks", hooks=False)
    repo.git("config", "core.hooksPath", "githooks")
    repository = find_repository(repo.path)
    for asked in (None, team):
        with pytest.raises(InstallError, match="a directory the project commits"):
            hooks_path_policy(repository, asked)
    assert sorted(path.name for path in team.iterdir()) == ["pre-push"]


def test_a_generated_directory_is_named_and_written_only_when_asked(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    generated = repo.path / ".tool-hooks"
    generated.mkdir()
    repo.git("config", "core.hooksPath", ".tool-hooks")
    repository = find_repository(repo.path)
    with pytest.raises(InstallError, match="a directory inside the repository that a tool"):
        hooks_path_policy(repository, None)
    assert hooks_path_policy(repository, generated) == generated.resolve()
    with pytest.raises(InstallError, match="is not a directory"):
        hooks_path_policy(repository, repo.path / "nowhere")
