"""`landwatch forget PATH`: a registered repository dropped from the reviewer's list, by any path
to it; one line on stderr and exit 1 for one that is not registered."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from landwatch import cli, registry
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
    assert cli.main(["forget", str(tmp_path / "link" / ".git")]) == 0
    assert registry.registered() == []
