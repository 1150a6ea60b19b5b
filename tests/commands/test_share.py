"""`landwatch share` and `share --off`: two lines of the repository's git config and nothing
else, undone byte for byte (or, when the config changed since, line by line); a remote that is
not there refused; uninstall stops sharing too."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from landwatch import layout
from support.team import developer, seeded_remote


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


def test_share_off_puts_the_config_back_byte_for_byte(tmp_path: Path, remote: Path) -> None:
    a = developer(tmp_path, "a", remote)
    config = a.git_dir / "config"
    before = config.read_bytes()
    assert a.landwatch("share").returncode == 0
    assert a.git("config", "landwatch.share.remote") == "origin"
    fetches = a.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert "+refs/notes/landwatch*:refs/notes/remotes/origin/landwatch*" in fetches
    a.git("fetch", "-q")  # brings nothing yet, but would
    shown = a.landwatch("status").stdout
    assert "sharing reviews with origin" in shown and "reviews not shared" not in shown
    off = a.landwatch("share", "--off")
    assert off.returncode == 0 and "byte for byte" in off.stdout
    assert config.read_bytes() == before
    assert not layout.SHARE_UNDO.path(a.git_dir).exists()
    # Changed since by hand: only what share added goes, the person's change stays.
    a.landwatch("share", check=True)
    a.git("config", "core.editor", "vi")
    off = a.landwatch("share", "--off")
    assert off.returncode == 0 and "only what share added" in off.stdout
    assert a.git("config", "core.editor") == "vi"
    assert a.run("git", "config", "landwatch.share.remote", check=False).returncode == 1
    fetches = a.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert fetches == ["+refs/heads/*:refs/remotes/origin/*"]
    assert a.landwatch("share", "--off").stdout.startswith("landwatch: sharing is not on here")
    # Uninstalling landwatch stops sharing too: nothing of it is left in the config.
    before = config.read_bytes()
    a.landwatch("share", check=True)
    uninstalled = a.landwatch("uninstall")
    assert uninstalled.returncode == 0 and "sharing with origin is off" in uninstalled.stdout
    assert config.read_bytes() == before


def test_share_refuses_a_remote_that_is_not_there(tmp_path: Path, remote: Path) -> None:
    a = developer(tmp_path, "a", remote)
    refused = a.landwatch("share", "elsewhere")
    assert refused.returncode == 1
    assert "no remote named 'elsewhere'" in refused.stderr
    assert a.run("git", "config", "landwatch.share.remote", check=False).returncode == 1


def test_a_ref_pushed_below_the_shared_notes_fails_no_teammate_s_fetch(
    tmp_path: Path, remote: Path
) -> None:
    """An audit: anyone who can push to the remote (no right on its branches needed) swapped
    refs/notes/landwatch for refs/notes/landwatch/x, which the fetch refspec's pattern took too,
    into a tracking ref below the one there: every sharing teammate's `git fetch` and `git pull`
    failed (cannot lock ref), and `landwatch ci`'s fetch of the notes with them."""
    a, b = developer(tmp_path, "a", remote), developer(tmp_path, "b", remote)
    assert b.landwatch("share").returncode == 0
    a.git("notes", "--ref=landwatch", "add", "-m", "{}", "HEAD")
    a.git("push", "-q", "origin", "refs/notes/landwatch")
    b.git("fetch", "-q")
    assert b.git("rev-parse", "refs/notes/remotes/origin/landwatch")
    a.git(
        "push",
        "-q",
        "origin",
        ":refs/notes/landwatch",
        "refs/notes/landwatch:refs/notes/landwatch/x",
    )
    tip = a.commit("More", {"more.txt": "more\n"})
    a.git("push", "-q", "origin", "main")
    pulled = b.run("git", "pull", "-q", check=False)
    assert pulled.returncode == 0, pulled.stderr
    assert b.git("rev-parse", "HEAD") == tip
    checked = b.landwatch("ci", "HEAD~1..HEAD")
    assert checked.returncode == 0 and "could not fetch" not in checked.stdout, checked.stdout


def test_a_git_too_old_for_the_negative_refspec_gets_the_pattern_alone(
    tmp_path: Path, remote: Path
) -> None:
    """git before 2.29 refuses a negative refspec, every fetch of the remote with it: share adds
    the pattern alone there, as before, and says what that leaves open."""
    shim = tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    (shim / "git").write_text(
        f'#!/bin/sh\n[ "$1" = version ] && echo "git version 2.25.1" && exit 0\nexec {real} "$@"\n'
    )
    (shim / "git").chmod(0o755)
    a = developer(tmp_path, "a", remote)
    older = {"PATH": f"{shim}:{os.environ['PATH']}", "COLUMNS": "200"}
    shared = a.run(sys.executable, "-m", "landwatch", "share", env=older)
    assert "git 2.25.1 reads no negative refspec" in shared.stdout
    fetches = a.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert fetches[1:] == ["+refs/notes/landwatch*:refs/notes/remotes/origin/landwatch*"]
    doctor = a.run(sys.executable, "-m", "landwatch", "doctor", env=older, check=False)
    assert "notes" not in doctor.stdout


def test_share_sets_the_setting_it_made_again_once_it_is_gone(tmp_path: Path, remote: Path) -> None:
    """An audit: with landwatch.share.remote unset by hand (or a config restored) and share.json
    left, `landwatch share` said "sharing with origin already" and set nothing, while status said
    the reviews were not shared. It sets it again, as it adds a missing refspec again."""
    a = developer(tmp_path, "a", remote)
    assert a.landwatch("share").returncode == 0
    a.git("config", "--unset", "landwatch.share.remote")
    again = a.landwatch("share")
    assert again.returncode == 0
    assert again.stdout == (
        "landwatch: sharing with origin already; landwatch.share.remote was not set, set to "
        "origin again\n"
    )
    assert a.git("config", "landwatch.share.remote") == "origin"
    shown = a.landwatch("status").stdout
    assert "sharing reviews with origin" in shown and "reviews not shared" not in shown
    assert a.landwatch("share").stdout == "landwatch: sharing with origin already\n"
    assert a.landwatch("share", "--off").returncode == 0
    assert a.run("git", "config", "landwatch.share.remote", check=False).returncode == 1


def test_a_share_record_a_newer_release_wrote_is_never_written_over(
    tmp_path: Path, remote: Path
) -> None:
    """share.json of a newer release (landwatch downgraded) holds what undoes its sharing:
    `share` and `share --off` refuse in one line naming it and what to do, and leave it and the
    config as they were. Before, `share` took it for none and wrote its own over it."""
    a = developer(tmp_path, "a", remote)
    a.landwatch("share", check=True)
    record = layout.SHARE_UNDO.path(a.git_dir)
    newer = record.read_text().replace('"format": 1', '"format": 2').encode()
    record.write_bytes(newer)
    config = (a.git_dir / "config").read_bytes()
    for args, doing in ((("share",), "turned on"), (("share", "--off"), "turned off")):
        refused = a.landwatch(*args)
        assert refused.returncode == 1
        assert refused.stderr.startswith(
            f"landwatch: {record} was written by a newer landwatch (format 2; this one reads 1): "
            f"sharing was not {doing}, so as not to lose what it holds; upgrade landwatch"
        ), refused.stderr
        assert record.read_bytes() == newer and (a.git_dir / "config").read_bytes() == config
    assert f"{record} was written by a newer landwatch" in a.landwatch("doctor").stdout
