"""The one atomic write: exact modes whatever the umask, private directories, no link followed,
and on a full disk the old content stays whole with nothing left behind."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch.files import private_directory, write_atomic


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
        state = write_atomic(tmp_path / "new" / "deeper" / "state.json", "{}")
        tool = write_atomic(tmp_path / "new" / "tool", "#!/bin/sh\n", mode=0o755)
    with umask(0o777):  # not even this takes anything away
        secret = write_atomic(tmp_path / "new" / "findings.json", b"[]")
    assert state.read_text() == "{}" and secret.read_bytes() == b"[]"
    assert (mode_of(state), mode_of(tool), mode_of(secret)) == (0o600, 0o755, 0o600)
    assert mode_of(tmp_path / "new" / "deeper") == 0o700 and mode_of(tmp_path / "new") == 0o700


def test_a_rewrite_replaces_the_whole_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "registry"
    write_atomic(target, "one\ntwo\n")
    write_atomic(target, "three\n", durable=False)
    assert target.read_text() == "three\n"
    assert os.listdir(tmp_path) == ["registry"]


def test_a_link_at_the_path_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "ours").mkdir()
    planted = tmp_path / "ours" / "state.json"
    planted.symlink_to(victim)
    write_atomic(planted, "ours\n")
    assert victim.read_text() == "precious\n"
    assert not planted.is_symlink() and planted.read_text() == "ours\n"


def test_a_linked_directory_of_ours_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "reports").symlink_to(elsewhere)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "reports" / "abc.json", "{}")
    with pytest.raises(OSError):
        private_directory(tmp_path / "reports")
    assert os.listdir(elsewhere) == []


def test_a_directory_of_someone_elses_may_be_a_link(tmp_path: Path) -> None:
    # The hooks directory is git's (some link it to a directory in the repository), and the
    # person's own directories may be links of a dotfiles manager.
    real = tmp_path / "githooks"
    real.mkdir()
    (tmp_path / "hooks").symlink_to(real)
    hook = tmp_path / "hooks" / "post-commit"
    write_atomic(hook, "#!/bin/sh\n", mode=0o755, make_directory=False, follow_links=True)
    assert (real / "post-commit").read_text() == "#!/bin/sh\n"
    with pytest.raises(FileNotFoundError):  # it must exist: nothing is created for it
        write_atomic(tmp_path / "missing" / "hook", "x", make_directory=False, follow_links=True)
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (tmp_path / "config").symlink_to(dotfiles)
    write_atomic(tmp_path / "config" / "repositories", "/x\n", follow_links=True)
    assert (dotfiles / "repositories").read_text() == "/x\n"


def test_a_full_disk_keeps_the_old_content_whole(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        target = write_atomic(disk / "report.json", "old\n")
        with pytest.raises(OSError):
            write_atomic(target, b"x" * (1 << 20))
        assert target.read_text() == "old\n"
        assert os.listdir(disk) == ["report.json"]
    finally:
        subprocess.run(["umount", str(disk)], check=True)
