"""`landwatch completion bash|zsh|fish`: each script is accepted by its shell and, loaded as
the README says, completes landwatch's commands at a TAB in a real terminal; a shell that is
not installed skips its test, saying so."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import cli
from support.terminal import opened

# How each shell reads a script without running it.
CHECKS = {"bash": ["-n"], "zsh": ["-n"], "fish": ["--no-execute"]}
# Each shell started without the person's setup, and the script loaded as README.md says.
SESSIONS = {
    "bash": ("bash --norc --noprofile", "source {script}"),
    "zsh": ("zsh -f", "fpath=({directory} $fpath); autoload -Uz compinit; compinit -u -D"),
    "fish": ("fish --no-config", "source {script}"),
}
NAMES = {"bash": "landwatch.bash", "zsh": "_landwatch", "fish": "landwatch.fish"}


def commands() -> list[str]:
    """The commands `landwatch --help` lists (the hooks' own `notice` is not one of them)."""
    parser = cli.build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [listed.dest for listed in subparsers._choices_actions]


def script(shell: str, directory: Path) -> Path:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here (Debian's {shell}: apt-get install {shell})")
    printed = subprocess.run(
        [sys.executable, "-m", "landwatch", "completion", shell], capture_output=True, text=True
    )
    assert printed.returncode == 0 and printed.stderr == "", printed.stderr
    path = directory / NAMES[shell]
    path.write_text(printed.stdout)
    return path


@pytest.mark.parametrize("shell", list(CHECKS))
def test_each_shell_accepts_its_script(shell: str, tmp_path: Path) -> None:
    path = script(shell, tmp_path)
    checked = subprocess.run([shell, *CHECKS[shell], str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr


@pytest.mark.parametrize("shell", list(SESSIONS))
def test_each_shell_completes_the_commands_at_a_tab(shell: str, tmp_path: Path) -> None:
    path = script(shell, tmp_path)
    start, load = SESSIONS[shell]
    terminal = opened(start)
    try:
        terminal.write(load.format(script=path, directory=path.parent))
        terminal.press("Enter")
        terminal.write("landwatch ")
        terminal.press("Tab", "Tab")  # bash lists at the second
        names = commands()
        screen = terminal.shows(
            lambda screen: set(names) <= set(screen.split()), f"{shell} to list the commands"
        )
        assert "notice" not in screen.split() and "completion" in names
        terminal.press("C-u")
        terminal.write("landwatch service ")
        terminal.press("Tab", "Tab")
        actions = {"install", "uninstall", "start", "stop", "status"}
        terminal.shows(
            lambda screen: actions <= set(screen.partition("landwatch service")[2].split()),
            f"{shell} to list the service's actions",
        )
    finally:
        terminal.close()
