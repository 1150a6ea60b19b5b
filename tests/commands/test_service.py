"""Service files and scheduler commands, with the scheduler mocked as git's tests mock
`git maintenance start` (support.scheduler); the detached fallback for real; the reviewer the
unit starts run as systemd would run it, given only what the unit declares."""

from __future__ import annotations

import getpass
import io
import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout, report_store, user_dirs
from landwatch.commands import install, service, uninstall
from landwatch.daemon.lock import holder
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE
from support.daemon import journal_lines, process_gone, wait_for
from support.repos import installed
from support.scheduler import MANAGER_CONFIG, MOCK, calls, mock_command

TEXT: dict[str, Any] = {"capture_output": True, "text": True, "timeout": 60}


def test_systemd_unit_and_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    systemctl, log = mock_command(tmp_path, "systemctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    install.write_entry_point()
    out = io.StringIO()
    assert service.service("install", out=out) == 0
    unit = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / service.UNIT
    assert unit.read_text() == (
        "[Unit]\n"
        "Description=landwatch reviewer: reviews the commits that land in your repositories\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        "# Your XDG directories as `landwatch service install` found them: where every\n"
        "# landwatch command keeps its state and reads your approvals.\n"
        + "".join(f'Environment="{name}={os.environ[name]}"\n' for name in user_dirs.XDG_HOMES)
        + f'ExecStart="{layout.ENTRY_POINT.path()}" reviewer\n'
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "# SIGTERM lets a running job finish within the reviewer's grace period.\n"
        "TimeoutStopSec=30\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )
    assert calls(log) == [
        "--user daemon-reload",
        "--user show --property=FragmentPath --value landwatch-reviewer.service",
        "--user enable landwatch-reviewer.service",
        "--user restart landwatch-reviewer.service",
        f"show-user {getpass.getuser()} --property=Linger",
    ]
    assert f"loginctl enable-linger {getpass.getuser()}" in out.getvalue()
    log.unlink()
    service.service("stop", out=out)
    service.service("start", out=out)
    service.service("uninstall", out=out)
    assert calls(log) == [
        "--user stop landwatch-reviewer.service",
        "--user start landwatch-reviewer.service",
        "--user disable --now landwatch-reviewer.service",
        "--user daemon-reload",
    ]
    assert not unit.exists()


def test_an_uninstall_where_no_user_manager_answers_removes_the_unit_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit: `uninstall --all` from a shell no systemd user session answers (`su -`, ssh)
    took the detached way and left the unit, enabled, running a removed entry point at the next
    login. The unit and its `enable` link go, and it says so."""
    systemctl, _ = mock_command(tmp_path, "systemctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    install.write_entry_point()
    assert service.service("install", out=io.StringIO()) == 0
    unit = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / service.UNIT
    wanted = unit.parent / "default.target.wants" / service.UNIT
    wanted.parent.mkdir()
    wanted.symlink_to(unit)  # what `systemctl --user enable` made
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", "detach")
    said = io.StringIO()
    uninstall.uninstall_everything(keep_data=False, yes=False, out=said, ask=io.StringIO())
    assert f"remove the systemd unit {unit}" in said.getvalue()  # in the plan (an audit)
    out = io.StringIO()
    assert service.service("uninstall", out=out) == 0
    assert not unit.exists() and not wanted.is_symlink()
    assert f"landwatch: removed the systemd unit {unit}" in out.getvalue()


def test_systemd_failure_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = tmp_path / "systemctl"
    failing.write_text("#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{failing}")
    with pytest.raises(service.ServiceError, match="Failed to connect to bus: No medium found"):
        service.service("install", out=io.StringIO())


def test_launchd_agent_and_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    launchctl, log = mock_command(tmp_path, "launchctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"launchd:{launchctl}")
    out = io.StringIO()
    service.service("install", out=out)
    plist = Path.home() / "Library" / "LaunchAgents" / "dev.landwatch.reviewer.plist"
    with plist.open("rb") as file:
        assert plistlib.load(file) == {
            "Label": "dev.landwatch.reviewer",
            "ProgramArguments": [str(layout.ENTRY_POINT.path()), "reviewer"],
            "EnvironmentVariables": {name: os.environ[name] for name in user_dirs.XDG_HOMES},
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},  # `service stop` stops it
            "ThrottleInterval": 60,
            "StandardErrorPath": str(layout.state_dir() / "reviewer.stderr.log"),
        }
    domain = f"gui/{os.getuid()}"
    assert calls(log) == [f"bootout {domain}/dev.landwatch.reviewer", f"bootstrap {domain} {plist}"]
    service.service("uninstall", out=out)
    assert calls(log)[-1] == f"bootout {domain}/dev.landwatch.reviewer"
    assert not plist.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="systemd is Linux only")
def test_systemd_is_chosen_only_where_a_user_session_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LANDWATCH_TEST_SCHEDULER", raising=False)
    systemctl, _ = mock_command(tmp_path, "systemctl", environment=1)
    monkeypatch.setenv("PATH", f"{systemctl.parent}{os.pathsep}{os.environ['PATH']}")
    assert isinstance(service.scheduler(), service.Detached)
    systemctl.write_text(MOCK.format(log=tmp_path / "log", environment=0, config=MANAGER_CONFIG))
    assert isinstance(service.scheduler(), service.Systemd)


def test_the_detached_fallback_runs_for_real(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", "detach")
    repo = installed(tmp_path / "repo")  # writes the entry point, registers the repository
    out = io.StringIO()
    service.service("install", out=out)
    assert "runs detached and will not come back after a reboot" in out.getvalue()
    running = holder()
    assert running is not None and running.mode == "detached" and running.pid is not None
    try:
        out = io.StringIO()
        service.service("status", out=out)
        assert f"running (pid {running.pid}, detached" in out.getvalue()
        assert "a detached process" in out.getvalue()
        service.service("start", out=out)
        assert "already running" in out.getvalue()
        assert repo.pending() == []
    finally:
        service.service("stop", out=io.StringIO())
        pid = running.pid
        wait_for(lambda: process_gone(pid), "the reviewer to stop")
    out = io.StringIO()
    service.service("status", out=out)
    assert "the reviewer is not running" in out.getvalue()
    assert journal_lines(tmp_path / "none") == []


@pytest.mark.parametrize("manager", ["systemd", "launchd"])
def test_installing_under_a_manager_stops_a_detached_reviewer_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manager: str
) -> None:
    """An audit: with a detached reviewer running, the manager's reviewer found the lock held,
    exited 1, and was started again every 5 s (systemd) or 10 s (launchd) for as long."""
    installed(tmp_path / "repo")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", "detach")
    service.service("start", out=io.StringIO())
    running = holder()
    assert running is not None and running.mode == "detached" and running.pid is not None
    command, _ = mock_command(tmp_path, "systemctl" if manager == "systemd" else "launchctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"{manager}:{command}")
    out = io.StringIO()
    service.service("install", out=out)
    assert f"asked the reviewer (pid {running.pid}) to stop" in out.getvalue()
    assert process_gone(running.pid) and holder() is None


def test_a_stop_returns_once_the_reviewer_ended_so_a_start_after_it_starts_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit: install.sh's upgrade runs `service stop` then `service install`. The stop only
    signalled the reviewer, which was still finishing its review when the start found its lock
    held and started none: once it ended, no reviewer ran, and install said the old one did."""
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", "detach")
    installed(tmp_path / "repo")
    for _ in range(2):
        service.service("start", out=io.StringIO())
        running = holder()
        assert running is not None and running.pid is not None
        service.service("stop", out=io.StringIO())
        assert holder() is None and process_gone(running.pid)


# The reviewer as the service manager starts it: without the shell's environment.

# What a systemd user manager gives every service of its own (systemd.exec(5)), stood in for here.
MANAGER_ENVIRONMENT = ("HOME", "XDG_RUNTIME_DIR")


def unit_words(value: str, *, command: bool) -> list[str]:
    """A unit file's value split into words as systemd splits Environment= and ExecStart=
    (systemd.syntax(7), systemd.service(5)): double-quoted words with C escapes, `%%` for a
    percent sign in every word, and `$$` for a dollar sign in a command's arguments, never in
    its executable, which systemd takes as written and refuses where it holds a quote, a
    backslash or a control character. Any other specifier or variable fails the test: landwatch
    writes none."""
    words: list[str] = []
    at = 0
    while at < len(value):
        if value[at] == " ":
            at += 1
            continue
        word = []
        quoted = value[at] == '"'
        at += quoted
        dollars = command and bool(words)  # an argument's, not the executable's
        while at < len(value) and (value[at] != '"' if quoted else value[at] != " "):
            char = value[at]
            if char == "\\":
                escape = value[at + 1]
                if escape == "x":
                    word.append(chr(int(value[at + 2 : at + 4], 16)))
                    at += 4
                    continue
                word.append({"n": "\n", "t": "\t"}.get(escape, escape))
                at += 2
                continue
            if char == "%" or (char == "$" and dollars):
                assert value[at + 1] == char, f"{char}{value[at + 1]} in {value!r}"
                at += 1
            word.append(char)
            at += 1
        at += quoted
        words.append("".join(word))
    if command:
        refused = [char for char in words[0] if char in "\"'\\" or ord(char) < 0x20]
        assert not refused, f"systemd refuses the executable {words[0]!r}"
    return words


def unit_service(text: str) -> tuple[dict[str, str], list[str]]:
    """The environment a unit declares (its Environment= lines) and its ExecStart= command."""
    environment: dict[str, str] = {}
    command: list[str] = []
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "Environment":
            for word in unit_words(value, command=False):
                name, _, given = word.partition("=")
                environment[name] = given
        elif key == "ExecStart":
            command = unit_words(value, command=True)
    return environment, command


def test_the_service_reviewer_keeps_its_state_where_every_command_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's shell sets XDG directories of its own (one with a space, a percent sign, a
    quote, a backslash and a dollar in it); systemd starts the reviewer with none of them. The
    unit `service install` writes declares them: its ExecStart, run under `env -i` with exactly
    what it declares beside what the manager gives (systemd's stand-in), reviews the landing,
    logs and keeps its state where the commands look, and leaves nothing under ~/.local. Before,
    the unit declared none: that reviewer read another registry (nothing reviewed), another
    trust.json (the person's approvals ignored), and kept its state where uninstall never
    looks."""
    home = Path.home()
    for name, where in zip(
        user_dirs.XDG_HOMES, ("data", "config", 'state 100% "x" \\ $HOME', "cache"), strict=True
    ):
        monkeypatch.setenv(name, str(home / "xdg" / where))
    systemctl, _ = mock_command(tmp_path, "systemctl")
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    repo = installed(tmp_path / "repo")
    service.service("install", out=io.StringIO())
    text = service.Systemd.unit_path().read_text()
    declared, command = unit_service(text)
    assert command == [str(layout.ENTRY_POINT.path()), "reviewer"]
    landed = repo.land("a change", {"m.py": "x = 1   \n"})
    given = {name: os.environ[name] for name in MANAGER_ENVIRONMENT}
    # The compiled secret rules every test's reviewer is given: compiling them takes seconds.
    given |= {"PATH": "/usr/bin:/bin", DIRECTORY_VARIABLE: os.environ[DIRECTORY_VARIABLE]}
    environment = [f"{name}={value}" for name, value in {**given, **declared}.items()]
    ran = subprocess.run(
        ["env", "-i", *environment, *command, "--once"], capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr
    assert report_store.read(repo.git_dir, landed) is not None
    assert declared == {name: os.environ[name] for name in user_dirs.XDG_HOMES}
    assert "reviewer started" in layout.REVIEWER_LOG.path().read_text()
    assert not (home / ".local" / "state").exists()
    # ~/.config holds the unit alone: where the user manager reads it, not the shell's.
    assert [path for path in (home / ".config").rglob("*") if path.is_file()] == [
        service.Systemd.unit_path()
    ]
    if analyze := shutil.which("systemd-analyze"):  # systemd's own reading of the unit
        checked = subprocess.run([analyze, "verify", str(service.Systemd.unit_path())], **TEXT)
        assert service.UNIT not in checked.stdout + checked.stderr, checked


def test_the_unit_runs_the_entry_point_whatever_its_path_holds(tmp_path: Path) -> None:
    """systemd takes a `$` in the executable as written and `$$` in an argument as one, and
    refuses an executable holding a quote, a backslash or a control character ("Executable name
    contains special characters"): an entry point under `data $HOME` was written `$$HOME` (no
    such program), one under `o'brien` made a unit systemd would not load. Each is run as
    systemd reads the unit, by the stand-in and by systemd-analyze verify where it is here
    (which looks for the program)."""
    for name in ("data $HOME ${X} 100%", 'o\'brien \\ "q"', "tab\tx"):
        entry = tmp_path / name / "bin" / "landwatch"
        entry.parent.mkdir(parents=True)
        entry.write_text('#!/bin/sh\necho ran "$@"\n')
        entry.chmod(0o755)
        unit = tmp_path / name / service.UNIT
        unit.write_text(service.Systemd.unit_text(entry, {}))
        _, command = unit_service(unit.read_text())
        assert command[-2:] == [str(entry), "reviewer"], command
        assert subprocess.run(command, **TEXT).stdout == "ran reviewer\n"
        if analyze := shutil.which("systemd-analyze"):
            checked = subprocess.run([analyze, "verify", str(unit)], **TEXT)
            assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), checked


def test_the_unit_is_where_the_user_manager_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit was written under the shell's $XDG_CONFIG_HOME, which the systemd user manager
    does not have: it reads ~/.config/systemd/user (systemd.unit(5)), so `enable` found no unit
    and the reviewer never ran as a service. It is written where the manager reads it, as the
    manager says (the unit's FragmentPath once loaded), install says why it is not under
    XDG_CONFIG_HOME, and an older release's unit there is removed; a manager started with that
    XDG_CONFIG_HOME reads it there; one that reads neither is said, and nothing is left."""
    shell = Path.home() / "elsewhere" / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(shell))
    older = shell / "systemd" / "user" / service.UNIT
    older.parent.mkdir(parents=True)
    older.write_text("[Service]\nExecStart=/bin/true\n")
    unit = Path.home() / ".config" / "systemd" / "user" / service.UNIT
    install.write_entry_point()
    for config, written, gone in (("$HOME/.config", unit, older), (str(shell), older, unit)):
        systemctl, log = mock_command(tmp_path, "systemctl", config=config)
        monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
        out = io.StringIO()
        service.service("install", out=out)
        assert written.is_file() and not gone.exists(), config
        assert service.Systemd.unit_path() == written
        assert f"({written})" in out.getvalue()
        told = (
            f"landwatch: not under your XDG_CONFIG_HOME ({shell}): your systemd user manager "
            f"does not have it, and reads its units from {unit.parent}"
        )
        assert (told in out.getvalue()) == (written == unit), out.getvalue()
        assert "--user enable landwatch-reviewer.service" in calls(log)
    systemctl, log = mock_command(tmp_path, "systemctl", config=str(tmp_path / "nowhere"))
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", f"systemd:{systemctl}")
    with pytest.raises(service.ServiceError) as raised:
        service.service("install", out=io.StringIO())
    assert str(raised.value) == (
        f"your systemd user manager does not read units from {unit.parent} or {older.parent}: "
        "`systemctl --user show --property=UnitPath` says where it does"
    )
    assert not unit.exists() and not older.exists()
