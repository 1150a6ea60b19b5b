"""The user's service manager stood in for, as git's tests stand in for `git maintenance start`'s:
a command that notes each call and answers as systemctl, loginctl or launchctl would."""

from __future__ import annotations

from pathlib import Path

MOCK = """#!/bin/sh
echo "$*" >> "{log}"
unit="{config}/systemd/user/landwatch-reviewer.service"
case "$*" in
show-user*) echo "Linger=no" ;;
*show-environment*) exit {environment} ;;
*FragmentPath*) if [ -f "$unit" ]; then echo "$unit"; fi ;;
esac
exit 0
"""
# Where a systemd user manager reads a person's units: under its own XDG_CONFIG_HOME, which is
# ~/.config unless it was started with another (systemd.unit(5)), whatever a shell sets.
MANAGER_CONFIG = "$HOME/.config"


def mock_command(
    tmp_path: Path, name: str, *, environment: int = 0, config: str = MANAGER_CONFIG
) -> tuple[Path, Path]:
    """The stand-in `name` (in a directory of its own) and the log of its calls; as systemctl,
    its manager reads units under `config` (its FragmentPath: the unit there, if any)."""
    log = tmp_path / f"{name}.log"
    command = tmp_path / "mocks" / name
    command.parent.mkdir(exist_ok=True)
    command.write_text(MOCK.format(log=log, environment=environment, config=config))
    command.chmod(0o755)
    return command, log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []
