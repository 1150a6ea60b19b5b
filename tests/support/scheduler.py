"""The user's service manager stood in for, as git's tests stand in for `git maintenance start`'s:
a command that notes each call and answers as systemctl, loginctl or launchctl would."""

from __future__ import annotations

from pathlib import Path

MOCK = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in show-user*) echo "Linger=no" ;; *show-environment*) exit {environment} ;; esac
exit 0
"""


def mock_command(tmp_path: Path, name: str, *, environment: int = 0) -> tuple[Path, Path]:
    """The stand-in `name` (in a directory of its own) and the log of its calls."""
    log = tmp_path / f"{name}.log"
    command = tmp_path / "mocks" / name
    command.parent.mkdir(exist_ok=True)
    command.write_text(MOCK.format(log=log, environment=environment))
    command.chmod(0o755)
    return command, log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []
