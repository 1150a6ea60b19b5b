"""`landwatch forget PATH`: a registered repository that is gone dropped from the reviewer's list,
by any path to it, its worktree's too; one line on stderr and exit 1 for one that is not
registered, or that is still there (`landwatch uninstall` takes it out)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from landwatch import cli, hooks, registry
from support.repos import installed


def test_a_repository_gone_is_forgotten_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept, gone = installed(tmp_path / "kept"), installed(tmp_path / "gone")
    gone_dir = gone.git_dir.resolve()
    shutil.rmtree(gone.path)
    assert cli.main(["forget", str(gone_dir)]) == 0
    assert capsys.readouterr().out == f"landwatch: forgot {gone_dir}\n"
    assert registry.registered() == [kept.git_dir.resolve()]
    assert cli.main(["forget", str(gone_dir)]) == 1
    said = capsys.readouterr()
    assert said.out == "" and said.err == f"landwatch: {gone_dir} is not registered\n"


def test_a_repository_is_forgotten_by_any_path_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = installed(tmp_path / "repo")
    (tmp_path / "link").symlink_to(repo.path)
    shutil.rmtree(repo.path)
    assert cli.main(["forget", str(tmp_path / "link" / ".git")]) == 0
    assert registry.registered() == []


def test_a_vanished_repository_is_forgotten_by_its_worktree_path(tmp_path: Path) -> None:
    kept, gone = installed(tmp_path / "kept"), installed(tmp_path / "gone")
    shutil.rmtree(gone.path)
    forgot = kept.landwatch("forget", str(gone.path))
    assert forgot.returncode == 0, forgot.stderr
    assert forgot.stdout == f"landwatch: forgot {(gone.path / '.git').resolve()}\n"
    assert registry.registered() == [kept.git_dir.resolve()]


def test_a_repository_still_there_is_not_forgotten_but_uninstalled(tmp_path: Path) -> None:
    """Forgotten, its hooks would go on recording into a queue nobody drains, unseen by
    `uninstall --all`: forget points to `landwatch uninstall` there, and changes nothing."""
    repo = installed(tmp_path / "repo")
    for named in (repo.path, repo.git_dir):
        refused = repo.landwatch("forget", str(named))
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr == (
            f"landwatch: {repo.git_dir.resolve()} is still there, and its hooks would go on "
            f"recording; to stop reviewing it, take them out too: cd {repo.path.resolve()} && "
            "landwatch uninstall\n"
        )
    assert registry.registered() == [repo.git_dir.resolve()]
    assert hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
