"""The one door (wall.door): where bubblewrap is, which wall a setting and a PATH give and what
runs without one; a person's tool asked a question outside every repository; git making a
checkout with no configuration but landwatch's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch.wall.door import (
    choose,
    find,
    kept_environment,
    outside,
    preparing,
    walled,
)
from landwatch.wall.sandbox import Reach
from support.queue import tmpfs
from support.sandbox import AS_YOU, WITH_BWRAP, needs_bwrap, usable


def test_a_question_to_a_tool_is_asked_in_an_empty_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m x` imports x.py from its working directory: a repository's, were it there.
    (tmp_path / "planted.py").write_text("print('the repository ran')\n")
    monkeypatch.chdir(tmp_path)
    asked = outside([sys.executable, "-m", "planted"], timeout=30)
    assert not asked.ok and "the repository ran" not in asked.stdout
    where = outside(["pwd"], timeout=30).stdout.strip()
    assert where != str(tmp_path) and not Path(where).exists()  # gone with the question


def test_git_preparing_a_checkout_reads_none_of_the_person_s_configuration(
    tmp_path: Path,
) -> None:
    ran = tmp_path / "ran"
    hook = tmp_path / "hooks" / "post-checkout"
    hook.parent.mkdir()
    hook.write_text(f"#!/bin/sh\ntouch {ran}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "config", "--global", "core.hooksPath", str(hook.parent)], check=True)
    subprocess.run(["git", "config", "--global", "init.templateDir", str(tmp_path)], check=True)
    made = preparing(["init", "-q", str(tmp_path / "checkout")], tmp_path, timeout=30)
    assert made.ok, made.stderr
    said = preparing(["config", "--get", "core.hooksPath"], tmp_path / "checkout", timeout=30)
    assert said.stdout.strip() == "/dev/null" and not ran.exists()


def test_which_wall_and_what_runs_without_one(tmp_path: Path) -> None:
    assert choose(True, str(tmp_path))[0] is None  # nothing of a repository runs
    off, said = choose(False, str(tmp_path))
    assert off is not None and off.sandbox is None and "landwatch.sandbox is false" in said
    ran = walled(
        AS_YOU,
        ["sh", "-c", "pwd"],
        Reach(tmp_path),
        env={"PATH": "/usr/bin:/bin"},
        input=b"",
        timeout=30,
    )
    assert ran.stdout.decode().strip() == str(tmp_path)


# A hook saying a line, then writing 40 MB where it may write, on a disk of 64 MB: past half the
# free. Then it waits (stopped while it runs), or exits, most often before the watch looked (told
# when it ended, as an audit found a `fallocate` or a build writing and exiting was not).
WRITING = "echo writing; for n in 1 2 3 4; do head -c 10000000 /dev/zero > f$n; done"
WAITING = f"{WRITING}; sleep 120"


@pytest.mark.parametrize("script", [WAITING, WRITING], ids=["running", "ended"])
@pytest.mark.parametrize("behind", [True, False], ids=["behind the wall", "as you"])
def test_a_run_that_takes_half_a_disk_s_free_space_is_stopped(
    tmp_path: Path, behind: bool, script: str
) -> None:
    """Attack 104 (left open at stop 62): a trusted hook, or a linter, writing into its checkout
    until the disk was full; while it ran the person's editor could save nothing. It is stopped
    once it took half the space free on a disk it writes to, with what it said kept."""
    wall = usable() if behind else AS_YOU
    if wall is None:
        pytest.skip("bubblewrap is not here, or cannot run here")
    disk = tmp_path / "disk"
    with tmpfs(disk, "64m"):
        ran = walled(
            wall,
            ["sh", "-c", script],
            Reach(disk, writable=(disk,)),
            env={"PATH": "/usr/bin:/bin"},
            input=b"",
            timeout=120,
        )
        assert (ran.over, ran.timed_out) == ("took half the 64 MB free on its disk", False)
        assert ran.stdout == b"writing\n"
        left = os.statvfs(disk)
        assert left.f_bavail * left.f_frsize > 20 << 20  # never full


@pytest.mark.parametrize("behind", [True, False], ids=["behind the wall", "as you"])
def test_a_run_that_takes_half_a_disk_s_free_files_is_stopped(tmp_path: Path, behind: bool) -> None:
    """Files count as space does (an audit's angle): a disk of few inodes filled with empty
    files, its bytes all free, makes none of the person's files either."""
    wall = usable() if behind else AS_YOU
    if wall is None:
        pytest.skip("bubblewrap is not here, or cannot run here")
    disk = tmp_path / "disk"
    with tmpfs(disk, "64m", files=1000):
        ran = walled(
            wall,
            ["sh", "-c", "i=0; while [ $i -lt 600 ]; do : > f$i; i=$((i + 1)); done; sleep 120"],
            Reach(disk, writable=(disk,)),
            env={"PATH": "/usr/bin:/bin"},
            input=b"",
            timeout=120,
        )
        assert re.fullmatch(r"took half the 99\d files free on its disk", ran.over), ran
        assert not ran.timed_out and os.statvfs(disk).f_favail > 300


@needs_bwrap
def test_behind_the_wall_a_program_has_its_installation_and_not_the_person_s_home(
    tmp_path: Path,
) -> None:
    wall = choose(True, WITH_BWRAP)[0]
    assert wall is not None and wall.sandbox is not None
    home = os.environ["HOME"]
    probe = f"import os, sys; print(os.path.isdir(sys.prefix), os.path.exists({home!r}))"
    ran = walled(
        wall,
        [sys.executable, "-c", probe],
        Reach(tmp_path, writable=(tmp_path,)),
        env=kept_environment(),
        input=b"",
        timeout=60,
    )
    assert ran.stdout.decode().split() == ["True", "False"], ran.stderr


def test_a_bwrap_older_than_0_8_is_a_whole_wall(
    tmp_path: Path,
) -> None:
    """Before 0.8.0 bwrap has no `--size`, which the wall no longer asks: what it shows empty
    is on disk (attack 106), so an older bwrap leaves nothing unbounded to tell."""
    older = tmp_path / "bwrap"
    older.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.6.1"; exit 0; }\n'
        'for argument; do [ "$argument" = --size ] && exit 1; done\nexit 0\n'
    )
    older.chmod(0o755)
    jail, said = find(str(tmp_path))
    assert jail is not None and jail.version == "bubblewrap 0.6.1"
    assert said.startswith("a repository's code runs behind the wall, bubblewrap 0.6.1 (")
    assert said.endswith("only its own files writable")
