"""Service files and scheduler commands, with the scheduler mocked as git's tests mock
`git maintenance start`; the detached fallback for real."""

from __future__ import annotations

import getpass
import io
import os
import plistlib
import sys
from pathlib import Path

import pytest

from landwatch import layout
from landwatch.commands import install, service
from landwatch.daemon.lock import holder
from support.daemon import journal_lines, process_gone, wait_for
from support.repos import installed

MOCK = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in show-user*) echo "Linger=no" ;; *show-environment*) exit {environment} ;; esac
exit 0
"""


def mock_command(tmp_path: Path, name: str, *, environment: int = 0) -> tuple[Path, Path]:
    log = tmp_path / f"{name}.log"
    command = tmp_path / "mocks" / name
    command.parent.mkdir(exist_ok=True)
    command.write_text(MOCK.format(log=log, environment=environment))
    command.chmod(0o755)
    return command, log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


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
        f'ExecStart="{layout.ENTRY_POINT.path()}" reviewer\n'
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
        "--user enable --now landwatch-reviewer.service",
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
            "RunAtLoad": True,
            "KeepAlive": True,
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
    systemctl.write_text(MOCK.format(log=tmp_path / "log", environment=0))
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
