"""Reading and writing our own files: exact modes whatever the umask, private directories, inside
a repository no link followed on the way and no FIFO waited on, and on a full disk the old content
stays whole with nothing left behind."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch.files import (
    held_lock,
    list_entries,
    private_directory,
    read_file,
    read_head,
    read_pointer,
    remove,
    write_atomic,
)
from support.queue import tmpfs
from support.timing import ends_by_itself


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def test_files_get_exactly_their_mode_in_private_directories(tmp_path: Path) -> None:
    with umask(0o022):
        state = write_atomic(tmp_path / "new" / "deeper" / "state.json", "{}", trusted=tmp_path)
        tool = write_atomic(tmp_path / "new" / "tool", "#!/bin/sh\n", trusted=None, mode=0o755)
    with umask(0o777):  # not even this takes anything away
        secret = write_atomic(tmp_path / "new" / "findings.json", b"[]", trusted=tmp_path)
    assert state.read_text() == "{}" and secret.read_bytes() == b"[]"
    assert (mode_of(state), mode_of(tool), mode_of(secret)) == (0o600, 0o755, 0o600)
    assert mode_of(tmp_path / "new" / "deeper") == 0o700 and mode_of(tmp_path / "new") == 0o700


def test_a_rewrite_replaces_the_whole_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "registry"
    write_atomic(target, "one\ntwo\n", trusted=None)
    write_atomic(target, "three\n", trusted=None, durable=False)
    assert read_file(target, trusted=None) == b"three\n"
    assert os.listdir(tmp_path) == ["registry"]


def test_a_link_at_the_path_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "ours").mkdir()
    planted = tmp_path / "ours" / "state.json"
    planted.symlink_to(victim)
    with pytest.raises(OSError, match="a link"):
        read_file(planted, trusted=tmp_path)
    write_atomic(planted, "ours\n", trusted=tmp_path)
    assert victim.read_text() == "precious\n"
    assert not planted.is_symlink() and planted.read_text() == "ours\n"


@pytest.mark.parametrize("linked", ["landwatch", "landwatch/reports"])
def test_no_link_below_the_trusted_directory_is_followed(tmp_path: Path, linked: str) -> None:
    git_dir, elsewhere = tmp_path / "repo" / ".git", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / linked).parent.mkdir(parents=True)
    (git_dir / linked).symlink_to(elsewhere)
    (elsewhere / "abc.json").write_text("theirs\n")
    report = git_dir / "landwatch" / "reports" / "abc.json"
    for attempt in (
        lambda: write_atomic(report, "{}", trusted=git_dir),
        lambda: private_directory(report.parent, trusted=git_dir),
        lambda: read_file(report, trusted=git_dir),
        lambda: remove(report, trusted=git_dir),
        lambda: list_entries(report.parent, trusted=git_dir),
    ):
        with pytest.raises(OSError, match="not following it"):
            attempt()
    assert sorted(os.listdir(elsewhere)) == ["abc.json"]
    assert (elsewhere / "abc.json").read_text() == "theirs\n"


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "boot-time"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it to read would wait forever
    with pytest.raises(OSError, match="not a regular file"):
        read_file(fifo, trusted=tmp_path)
    (tmp_path / "dir").mkdir()
    with pytest.raises(OSError):
        read_file(tmp_path / "dir", trusted=tmp_path)


def test_a_head_is_read_through_a_link_and_never_of_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"#!/bin/sh\n" + b"x" * 10_000)
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert read_head(tmp_path / "link", 10) == b"#!/bin/sh\n"
    os.mkfifo(tmp_path / "fifo")  # nobody ever writes to it
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    for planted in (tmp_path / "fifo", tmp_path / "to-fifo"):
        with pytest.raises(OSError, match="not a regular file"):
            ends_by_itself(functools.partial(read_head, planted, 10))


def test_a_pointer_is_read_only_from_a_small_regular_file_at_its_very_name(
    tmp_path: Path,
) -> None:
    # git's pointers (commondir, gitdir, a `.git` file) are what an archive can plant: a FIFO
    # held the reviewer, doctor and every shell prompt; a link to /dev/zero was read to
    # MemoryError.
    (tmp_path / "commondir").write_text("../..\n")
    assert read_pointer(tmp_path / "commondir") == "../.."
    (tmp_path / ".git").write_bytes(b"gitdir: /w/\xff/.git\r\n")  # not UTF-8: bytes kept
    assert read_pointer(tmp_path / ".git") == "gitdir: /w/\udcff/.git"
    os.mkfifo(tmp_path / "fifo")  # nobody ever writes to it
    (tmp_path / "to-zero").symlink_to("/dev/zero")
    (tmp_path / "to-file").symlink_to(tmp_path / "commondir")
    (tmp_path / "long").write_text("x" * 5000)
    (tmp_path / "nul").write_bytes(b"../..\0\n")
    (tmp_path / "blank").write_text(" \n")
    (tmp_path / "dir").mkdir()
    for name in ("fifo", "to-zero", "to-file", "long", "nul", "blank", "dir", "missing"):
        assert ends_by_itself(functools.partial(read_pointer, tmp_path / name)) is None, name


def test_entries_are_listed_without_following_them(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("")
    (tmp_path / "b").symlink_to(tmp_path / "nowhere")
    found = dict(list_entries(tmp_path, trusted=tmp_path))
    assert set(found) == {"a", "b"} and stat.S_ISLNK(found["b"].st_mode)
    assert list_entries(tmp_path / "missing", trusted=tmp_path) == []
    assert remove(tmp_path / "b", trusted=tmp_path) and not os.path.lexists(tmp_path / "b")
    assert not remove(tmp_path / "b", trusted=tmp_path)


def test_the_persons_own_directories_and_git_hooks_may_be_links(tmp_path: Path) -> None:
    # The hooks directory is git's (some link it to a directory in the repository), and the
    # person's own directories may be links of a dotfiles manager.
    real = tmp_path / "githooks"
    real.mkdir()
    (tmp_path / "hooks").symlink_to(real)
    hook = tmp_path / "hooks" / "post-commit"
    write_atomic(hook, "#!/bin/sh\n", trusted=None, mode=0o755, make_directory=False)
    assert (real / "post-commit").read_text() == "#!/bin/sh\n"
    with pytest.raises(FileNotFoundError):  # it must exist: nothing is created for it
        write_atomic(tmp_path / "missing" / "hook", "x", trusted=None, make_directory=False)
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (tmp_path / "config").symlink_to(dotfiles)
    write_atomic(tmp_path / "config" / "repositories", "/x\n", trusted=None)
    assert (dotfiles / "repositories").read_text() == "/x\n"


def test_a_full_disk_keeps_the_old_content_whole(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with tmpfs(disk, "64k"):
        target = write_atomic(disk / "report.json", "old\n", trusted=disk)
        with pytest.raises(OSError):
            write_atomic(target, b"x" * (1 << 20), trusted=disk)
        assert target.read_text() == "old\n"
        assert os.listdir(disk) == ["report.json"]


def test_a_write_refused_names_the_whole_path_not_its_last_part(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with tmpfs(disk, "64k"):
        with pytest.raises(OSError) as full:
            write_atomic(disk / "report.json", b"x" * (1 << 20), trusted=disk)
        assert full.value.errno == errno.ENOSPC and full.value.filename == str(disk / "report.json")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(OSError) as read_only:
            write_atomic(disk / "allowed" / "commit.json", "{}", trusted=disk)
        assert read_only.value.errno == errno.EROFS
        assert read_only.value.filename == str(disk / "allowed")  # was "allowed"


def test_a_path_given_as_text_reads_as_a_path_and_never_climbs_out(tmp_path: Path) -> None:
    inner = tmp_path / "repo" / "landwatch"
    inner.parent.mkdir()
    write_atomic(inner / "marker", b"said", trusted=tmp_path / "repo")
    (tmp_path / "outside").write_bytes(b"not ours")
    root = str(tmp_path / "repo")
    assert read_file(f"{root}/landwatch/marker", trusted=root) == b"said"
    assert [name for name, _ in list_entries(f"{root}/landwatch", trusted=root)] == ["marker"]
    for escaping in (f"{root}/../outside", f"{root}/landwatch/../../outside", str(tmp_path)):
        with pytest.raises(ValueError, match="is not below"):
            read_file(escaping, trusted=root)
    (inner / "up").symlink_to(tmp_path)
    with pytest.raises(OSError, match="not following it"):
        read_file(f"{root}/landwatch/up/outside", trusted=root)


def test_a_held_lock_is_read_and_a_free_one_or_a_fifo_is_none(tmp_path: Path) -> None:
    import fcntl

    lock = tmp_path / "reviewer.lock"
    lock.write_bytes(b'{"pid": 1}')
    assert held_lock(lock) is None  # nobody holds it
    with open(lock, "rb") as holding:
        fcntl.flock(holding, fcntl.LOCK_EX)
        assert held_lock(lock) == b'{"pid": 1}'
    os.mkfifo(tmp_path / "fifo")
    assert held_lock(tmp_path / "fifo") is None  # not opened to wait for a writer
    assert held_lock(tmp_path / "absent") is None
