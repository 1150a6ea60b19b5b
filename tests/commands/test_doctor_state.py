"""What doctor says of landwatch's own state: each versioned state file this release cannot read,
or a newer one wrote, named with what it stops and what to do; a reviewer service given other XDG
directories than the command line has, or a unit where the user manager does not read it, named
and mended by `doctor --fix`."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from landwatch import layout, user_dirs
from landwatch.commands import service
from landwatch.commands.doctor import doctor, problems
from support.repos import Repo
from support.scheduler import mock_command


def said(cwd: Path) -> list[str]:
    return [f"{problem.what}; fix: {problem.fix}" for problem in problems(cwd)]


def test_each_state_file_that_cannot_be_read_is_named_with_what_it_stops(repo: Repo) -> None:
    """trust.json a newer release wrote, sweep.json garbage, share.json of no format: each one
    line, naming the file, what it stops, and what to do (the sweep's mends itself: the next
    pass writes it anew, so `reviewer --once` is what to run)."""
    trust, sweep, share = (
        layout.TRUST.path(),
        layout.SWEEP_STATE.path(repo.git_dir),
        layout.SHARE_UNDO.path(repo.git_dir),
    )
    trust.parent.mkdir(parents=True, exist_ok=True)
    trust.write_text('{"format": 3, "approvals": []}')
    sweep.write_bytes(b"\x00garbage{")
    share.write_text('{"remote": "origin"}')
    lines = said(repo.path)
    assert (
        f"{trust} was written by a newer landwatch (format 3; this one reads 1): nothing in it is "
        "trusted (committed linters and project hooks are held back), and `landwatch trust` "
        "neither approves nor withdraws; fix: upgrade landwatch to the release that wrote it, or "
        f"move it aside to start afresh (mv {trust} {trust}.aside)"
    ) in lines
    assert (
        f"{sweep} cannot be read (not JSON): the reviewer's next sweep reads every reflog again "
        "from when it was last written, and writes it anew; fix: landwatch reviewer --once (or "
        "the reviewer running: its next sweep)"
    ) in lines
    assert (
        f"{share} cannot be read (not a file landwatch wrote: no format): `landwatch share` and "
        "`share --off` change nothing here; fix: mend it, or move it aside to start afresh "
        f"(mv {share} {share}.aside)"
    ) in lines


def test_a_service_given_other_directories_is_named_and_installed_again(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit installed before the person's shell set its own XDG_STATE_HOME (or by a release
    that gave the unit none): its reviewer keeps its state elsewhere and reads no approval
    given here. Doctor names it, and `--fix` writes the unit again and starts it anew."""
    systemctl, log = mock_command(tmp_path, "systemctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    service.service("install", out=io.StringIO())
    assert not [line for line in said(repo.path) if "reviewer's service" in line]
    monkeypatch.setenv("XDG_STATE_HOME", str(Path.home() / "elsewhere" / "state"))
    unit = service.Systemd.unit_path()
    [line] = [line for line in said(repo.path) if "reviewer's service" in line]
    assert line == (
        f"the reviewer's service ({unit}) is not given your XDG_STATE_HOME as this command line "
        "has it: it keeps its state and log elsewhere, and reviews without the approvals you "
        "gave (landwatch trust); fix: landwatch service install"
    )
    log.unlink()
    doctor(repo.path, fix=True, out=io.StringIO())
    assert "--user restart landwatch-reviewer.service" in log.read_text()
    assert f'Environment="XDG_STATE_HOME={os.environ["XDG_STATE_HOME"]}"' in unit.read_text()
    assert not [line for line in said(repo.path) if "reviewer's service" in line]
    # A variable the shell no longer sets is one the unit must not give either.
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert [line for line in said(repo.path) if "not given your XDG_CACHE_HOME" in line]
    assert service.Systemd().apart() == ["XDG_CACHE_HOME"]
    assert set(user_dirs.xdg_homes()) == set(user_dirs.XDG_HOMES) - {"XDG_CACHE_HOME"}


def test_a_unit_where_the_user_manager_does_not_read_it_is_named_and_installed_again(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older release wrote the unit under the shell's $XDG_CONFIG_HOME, which the systemd
    user manager does not read (it reads ~/.config/systemd/user): the reviewer never ran as a
    service. Doctor names it (the manager asked where it read the unit from), and `--fix`
    writes it where the manager reads it."""
    shell = Path.home() / "elsewhere" / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(shell))
    older = shell / "systemd" / "user" / service.UNIT
    older.parent.mkdir(parents=True)
    older.write_text("[Service]\nExecStart=/bin/true\n")
    systemctl, _ = mock_command(tmp_path, "systemctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    assert [line for line in said(repo.path) if "reviewer's unit" in line] == [
        f"the reviewer's unit ({older}) is where your systemd user manager does not read it: "
        "the reviewer never starts as a service; fix: landwatch service install"
    ]
    doctor(repo.path, fix=True, out=io.StringIO())
    assert (Path.home() / ".config" / "systemd" / "user" / service.UNIT).is_file()
    assert not older.exists()
    assert not [line for line in said(repo.path) if "reviewer's" in line]
