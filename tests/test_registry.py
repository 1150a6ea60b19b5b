"""The repositories a user's reviewer drains (registry): one real path of a common git dir per
line, kept whole under a lock so that registrations at the same moment lose none; a path with a
newline refused; a registered repository that cannot be drained says why."""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import layout, registry
from support.queue import T, new_repository
from support.repos import ENDLESS, FIFO, Repo, planted_worktree
from support.timing import ends_by_itself


def test_a_repository_is_registered_once_by_its_real_path(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    (tmp_path / "link").symlink_to(tmp_path / "repo")
    assert registry.registered() == []
    assert registry.register(tmp_path / "link" / ".git")
    assert not registry.register(repo.git_dir)  # the same repository, by another path
    assert registry.registered() == [repo.git_dir.resolve()]
    assert registry.unregister(tmp_path / "link" / ".git")
    assert not registry.unregister(repo.git_dir)
    assert registry.registered() == []


def test_registrations_at_the_same_moment_are_all_kept(tmp_path: Path) -> None:
    children, each = 6, 15
    go_read, go_write = os.pipe()
    pids = []
    for child in range(children):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.close(go_write)
                os.read(go_read, 1)  # all start together, when the pipe closes
                for number in range(each):
                    registry.register(tmp_path / f"repo-{child}-{number}")
            except BaseException:
                os._exit(1)
            os._exit(0)
        pids.append(pid)
    os.close(go_read)
    os.close(go_write)
    for pid in pids:
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert len(registry.registered()) == children * each
    assert set(registry.registered()) == {
        (tmp_path / f"repo-{child}-{number}").resolve()
        for child in range(children)
        for number in range(each)
    }


def test_a_path_with_a_newline_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    kept = Repo(tmp_path / "kept")
    registry.register(kept.git_dir)
    with pytest.raises(ValueError, match="newline"):
        registry.register(tmp_path / "line\nbreak" / ".git")
    assert registry.registered() == [kept.git_dir.resolve()]
    assert layout.REGISTRY.path().read_text() == f"{kept.git_dir.resolve()}\n"


def test_a_path_that_is_not_utf8_is_kept_as_it_is(tmp_path: Path) -> None:
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9"))
    assert registry.register(odd)
    assert registry.registered() == [odd.resolve()]


def test_what_is_not_an_absolute_path_in_the_file_is_no_repository(tmp_path: Path) -> None:
    registry.register(tmp_path / "repo")
    with layout.REGISTRY.path().open("a") as file:
        file.write("\nrelative/path\n# a comment\n")
    assert registry.registered() == [(tmp_path / "repo").resolve()]


def test_a_line_that_is_no_path_is_kept_by_every_write(tmp_path: Path) -> None:
    """A line this release cannot read (a newer release's registration, garbage) drains nothing
    and stays as written when a repository is registered or unregistered; one written with a
    trailing slash is still that repository. Before, the next write dropped every such line."""
    layout.REGISTRY.path().parent.mkdir(parents=True)
    layout.REGISTRY.path().write_bytes(b"\xff\xfe\x00junk\nlater:~/src/app\n/a\x00b/.git\n")
    one, other = (tmp_path / "one").resolve(), (tmp_path / "other").resolve()
    assert registry.register(one) and registry.register(other)
    assert registry.unregister(one) and registry.registered() == [other]
    # A NUL is in no path: an audit found `status` failing on it ("embedded null byte").
    assert (
        layout.REGISTRY.path().read_bytes()
        == b"\xff\xfe\x00junk\nlater:~/src/app\n/a\x00b/.git\n" + (f"{other}\n".encode())
    )
    with layout.REGISTRY.path().open("a") as file:
        file.write(f"{one}/\n")
    assert not registry.register(one) and registry.unregister(one)
    assert registry.registered() == [other]


def test_every_worktree_of_a_repository_is_drained(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    (repo.git_dir / "worktrees" / "half-made").mkdir()  # no HEAD yet: not a worktree
    assert registry.worktree_git_dirs(repo.git_dir) == [
        repo.git_dir,
        repo.git_dir / "worktrees" / "linked",
    ]
    assert registry.worktree_git_dirs(Repo(tmp_path / "alone").git_dir) == [
        tmp_path / "alone" / ".git"
    ]


@pytest.mark.parametrize("planted", [FIFO, ENDLESS])
def test_a_worktree_entry_whose_commondir_is_no_pointer_to_the_repository_is_no_worktree(
    tmp_path: Path, planted: str
) -> None:
    # An archive can plant .git/worktrees/NAME: an entry is a worktree of the repository when
    # its commondir, read as git's pointers are, names it; one still being made is none, unsaid.
    repo = Repo(tmp_path / "repo")
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    evil = planted_worktree(repo.git_dir, "commondir", planted)
    elsewhere = repo.git_dir / "worktrees" / "elsewhere"
    shutil.copytree(repo.git_dir / "worktrees" / "linked", elsewhere)
    (elsewhere / "commondir").write_text(f"{tmp_path / 'other' / '.git'}\n")
    making = repo.git_dir / "worktrees" / "making"
    making.mkdir()
    (making / "HEAD").write_text("0" * 40 + "\n")  # `git worktree add` writes commondir next
    skipped: list[tuple[Path, str]] = []
    found = ends_by_itself(lambda: registry.worktree_git_dirs(repo.git_dir, skipped))
    assert found == [repo.git_dir, repo.git_dir / "worktrees" / "linked"]
    assert skipped == [
        (elsewhere, f"its commondir names {tmp_path / 'other' / '.git'}, not this repository"),
        (evil, "its commondir is no file git wrote (a link, a FIFO, or no path)"),
    ]


def test_why_a_registered_repository_cannot_be_drained(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    assert registry.problem_with(repo.git_dir) is None
    assert registry.problem_with(tmp_path / "gone") == "it vanished"
    (tmp_path / "file").write_text("x\n")
    assert registry.problem_with(tmp_path / "file") == "it is not a directory"
    (tmp_path / "plain").mkdir()
    assert registry.problem_with(tmp_path / "plain") == "it is not a git repository"


@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a directory to another uid")
def test_a_repository_of_another_user_cannot_be_drained(tmp_path: Path) -> None:
    git_dir = Repo(tmp_path / "repo").git_dir
    os.chown(git_dir, 4321, 4321)
    assert registry.problem_with(git_dir) == "it belongs to uid 4321, not to you"


def test_a_work_directory_is_marked_as_made_here_and_a_copy_is_not(tmp_path: Path) -> None:
    """The mark is the directory's inode signed with the person's key: a `mv` keeps it, a copy
    (a tarball, `cp -r`) of even the person's own carries a mark that does not hold."""
    first = new_repository(tmp_path / "first")
    assert not registry.made_here(first)
    registry.mark_made(first)
    assert registry.made_here(first)
    key = layout.WORK_KEY.path()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    moved = tmp_path / "moved"
    shutil.move(first.parent, moved)
    assert registry.made_here(moved / ".git")
    copy = tmp_path / "copy"
    shutil.copytree(moved, copy, symlinks=True)
    assert not registry.made_here(copy / ".git")
    aside = registry.set_aside_unless_made(copy / ".git", now=T)
    assert aside == copy / ".git" / f"landwatch.not-made-here.{int(T * 1e6)}"
    assert not (copy / ".git" / "landwatch").exists() and (aside / "made").exists()
    assert registry.set_aside_unless_made(moved / ".git", now=T) is None
    key.write_text(secrets.token_hex(32) + "\n")
    assert not registry.made_here(moved / ".git")  # under another person's key


def test_a_registry_that_is_no_file_is_one_line_with_what_mends_it(tmp_path: Path) -> None:
    path = layout.REGISTRY.path()
    path.mkdir(parents=True)
    with pytest.raises(registry.RegistryError) as raised:
        registry.registered()
    said = str(raised.value)
    assert said.count(str(path)) == 3  # named once, and in the command that moves it aside
    assert f"mv {path} {path}.bad" in said and "landwatch install" in said
    shown = subprocess.run(
        [sys.executable, "-m", "landwatch", "status"], capture_output=True, text=True
    )
    assert shown.returncode == 1 and shown.stderr.count("\n") == 1
    assert shown.stderr.startswith("landwatch: the registry of your repositories, ")
