"""A hooks directory several repositories share (a global core.hooksPath, landwatch installed there
on purpose with `--hooks-path` in each): each records and none is told it moved, the push gate's
quick path holds in each, and uninstalling one (or installing it elsewhere) leaves the others
their hooks and their gate, said in one line; the last one's uninstall removes them."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from landwatch import coverage
from landwatch.commands import install, uninstall
from support.daemon import run_reviewer
from support.kinds import origin, pushed_by_the_hook_alone
from support.repos import Repo, sharing_hooks


def reviewed() -> None:
    done = run_reviewer("--once")
    assert done.returncode == 0, done.stderr


def left_for(shared: Path, repo: Repo) -> str:
    """The line that says the hooks in `shared` stay for `repo` alone."""
    return (
        f"landwatch: left the hooks in {shared}: {repo.git_dir.resolve()} relies on them too "
        "(`landwatch uninstall` in the last repository they serve removes them)\n"
    )


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


@pytest.mark.parametrize("keep_data", [False, True], ids=["data-removed", "data-kept"])
def test_uninstall_in_one_leaves_the_other_its_hooks_and_gate(
    tmp_path: Path, keep_data: bool
) -> None:
    shared = tmp_path / "global-hooks"
    a, b = sharing_hooks(shared, tmp_path / "a", tmp_path / "b")
    remotes = {repo.path.name: origin(repo, tmp_path / f"{repo.path.name}.git") for repo in (a, b)}
    out = io.StringIO()
    assert uninstall.uninstall(a.path, keep_data=keep_data, out=out) == 0
    assert left_for(shared, b) in out.getvalue()
    assert "hooks removed" not in out.getvalue()
    header = (shared / "post-commit").read_text().split("\n\n", 1)[0]
    assert f"LANDWATCH_REPOSITORY={b.git_dir.resolve()}\n" in header
    # B: its landings recorded, nothing said, its coverage whole, its gate quick.
    landed = b.land("still watched", {"a.py": "x = 1\n"})
    assert b.said == "" and b.pending() == [(landed, None)]
    assert coverage.inspect(b.git_dir).reach is coverage.Reach.HOOKS
    assert coverage.inspect(b.git_dir).gate is None
    reviewed()
    pushed_by_the_hook_alone(b, remotes["b"], tmp_path / "b-calls")
    # A: git still runs them there, and they record nothing, say nothing, gate nothing.
    a.land("not watched any more", {"a.py": "x = 1\n"})
    assert a.said == ""
    if keep_data:
        assert a.pending() == []
        assert "is not registered" not in a.landwatch("doctor").stdout
    else:
        assert not (a.git_dir / "landwatch").exists()
    pushed_by_the_hook_alone(a, remotes["a"], tmp_path / "a-calls")
    # The last one's uninstall removes them.
    out = io.StringIO()
    assert uninstall.uninstall(b.path, out=out) == 0
    assert f"landwatch: hooks removed from {shared}\n" in out.getvalue()
    assert list(shared.iterdir()) == []


def test_installing_one_elsewhere_leaves_the_others_their_hooks(tmp_path: Path) -> None:
    shared = tmp_path / "global-hooks"
    a, b = sharing_hooks(shared, tmp_path / "a", tmp_path / "b")
    out = io.StringIO()
    assert install.install(a.path, hooks_path=a.git_dir / "hooks", out=out) == 0
    assert left_for(shared, b) in out.getvalue()
    assert "took landwatch's hooks away" not in out.getvalue()
    landed = b.land("still watched")
    assert b.said == "" and b.pending() == [(landed, None)]
