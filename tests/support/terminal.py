"""A terminal as a person sees it: tmux at 80 columns, a command typed into its shell, the screen
read back as it shows (wrapped where the terminal wrapped it, colours left out).

tmux is Debian's package; a machine without it skips the tests that need it, and says why.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from support.daemon import wait_for

_SESSIONS = itertools.count()


class Terminal:
    """One tmux server of the test's own, running a shell (`sh` unless told) in a window of
    `width` columns."""

    def __init__(self, tmux: str, shell: str = "sh", width: int = 80, height: int = 50) -> None:
        self.tmux = tmux
        self.socket = f"landwatch-test-{os.getpid()}-{next(_SESSIONS)}"
        self.commands = itertools.count()
        # The shell and what it runs have the test's environment (its own HOME).
        size = ("-x", str(width), "-y", str(height))
        self._tmux("-f", "/dev/null", "new-session", "-d", *size, shell)
        if shell == "sh":
            self._tmux("send-keys", "PS1='$ '", "Enter")
        self.socket_path = Path(self._tmux("display-message", "-p", "#{socket_path}").strip())

    def _tmux(self, *args: str) -> str:
        # Without COLUMNS (conftest sets one for lines compared whole): what runs in the
        # terminal measures the window, as it does for a person.
        env = {name: value for name, value in os.environ.items() if name != "COLUMNS"}
        return subprocess.run(
            [self.tmux, "-L", self.socket, *args],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout

    def screen(self) -> str:
        """The window and what scrolled out of it, as shown."""
        return self._tmux("capture-pane", "-p", "-S", "-")

    def type(self, command: str, cwd: Path) -> str:
        """`command` typed in `cwd`; what it printed on the screen once it has ended."""
        number = next(self.commands)
        self._tmux("send-keys", "clear", "Enter")
        # Once the shell has cleared the screen (on a busy machine it may not have read its
        # input yet): what it shows next is the command's alone, and the history is emptied
        # of what tmux pushed into it as the screen was cleared.
        wait_for(lambda: "clear" not in self.screen(), "the screen cleared", timeout=120)
        self._tmux("clear-history")
        # Printed as `begin-N` and `end-N` only when run: the typed line, wrapped as it may be,
        # reads otherwise.
        typed = (
            f"cd {shlex.quote(str(cwd))} && printf 'beg%s\\n' in-{number} && {command}; "
            f"printf 'en%s\\n' d-{number}"
        )
        self._tmux("send-keys", "-l", typed)
        self._tmux("send-keys", "Enter")
        begin, end = f"begin-{number}", f"end-{number}"
        wait_for(lambda: end in self.screen().split("\n"), f"{command!r} to end", timeout=120)
        shown = self.screen().split("\n")
        return "\n".join(shown[shown.index(begin) + 1 : shown.index(end)])

    def write(self, text: str) -> None:
        """`text` typed as it is."""
        self._tmux("send-keys", "-l", text)

    def press(self, *keys: str) -> None:
        """Keys pressed, by tmux's names: `Tab`, `Enter`, `C-u`."""
        self._tmux("send-keys", *keys)

    def shows(self, condition: Callable[[str], bool], what: str) -> str:
        """The screen, once `condition` holds of it."""
        wait_for(lambda: condition(self.screen()), what, timeout=60)
        return self.screen()

    def landwatch(self, cwd: Path, *args: str) -> str:
        """`landwatch ARGS` typed in `cwd`: what the screen shows of it."""
        command = shlex.join([sys.executable, "-m", "landwatch", *args])
        return self.type(command, cwd)

    def close(self) -> None:
        subprocess.run([self.tmux, "-L", self.socket, "kill-server"], capture_output=True)
        self.socket_path.unlink(missing_ok=True)  # tmux leaves it behind


def opened(shell: str = "sh") -> Terminal:
    """A terminal of 80 columns, as most people's is at its narrowest, running `shell`; the
    test is skipped, saying why, where tmux is not installed."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed (Debian's tmux: apt-get install tmux)")
    return Terminal(tmux, shell)


def words(screen: str) -> set[str]:
    """Every word the screen shows whole: a word the terminal broke shows as two others."""
    return set(screen.split())
