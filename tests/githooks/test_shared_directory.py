"""A hooks directory several repositories share (a global core.hooksPath, landwatch installed there
on purpose with `--hooks-path` in each): each records and none is told it moved, and the push
gate's quick path holds in each."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.daemon import run_reviewer
from support.kinds import origin, pushed_by_the_hook_alone
from support.repos import Repo, sharing_hooks


def reviewed() -> None:
    done = run_reviewer("--once")
    assert done.returncode == 0, done.stderr


def test_each_repository_records_and_none_is_told_it_moved(tmp_path: Path) -> None:
    shared = tmp_path / "global-hooks"
    a, b = sharing_hooks(shared, tmp_path / "a", tmp_path / "b")
    header = (shared / "post-commit").read_text().split("\n\n", 1)[0]
    assert f"LANDWATCH_REPOSITORY='{a.git_dir.resolve()}\n{b.git_dir.resolve()}'\n" in header
    for number, repo in enumerate((a, b, a)):
        landed = repo.land(f"landing {number}")
        assert repo.said == ""
        assert (landed, None) in repo.pending()
    # A copy of one is none of them: told once, with the install that would make it one.
    copy = Repo.existing(tmp_path / "copy")
    subprocess.run(["cp", "-a", str(a.path), str(copy.path)], check=True)
    copy.land("in the copy")
    assert copy.said == (
        f"landwatch: this repository is none of those the shared hooks in {shared} were "
        "installed for: moved or copied, nothing reviews what lands here; run: landwatch install "
        f"--hooks-path {shared}\n"
    )
    # A repository landwatch was never installed in runs them too: nothing there.
    other = Repo(tmp_path / "other")
    other.land("not watched")
    assert other.said == "" and not (other.git_dir / "landwatch").exists()


def test_the_push_gate_takes_its_quick_path_in_each(tmp_path: Path) -> None:
    repos = sharing_hooks(tmp_path / "global-hooks", tmp_path / "a", tmp_path / "b")
    remotes = [origin(repo, tmp_path / f"{repo.path.name}.git") for repo in repos]
    for repo in repos:
        repo.land("clean", {"a.py": "x = 1\n"})
    reviewed()
    for repo, remote in zip(repos, remotes, strict=True):
        pushed_by_the_hook_alone(repo, remote, tmp_path / f"{repo.path.name}-calls")
