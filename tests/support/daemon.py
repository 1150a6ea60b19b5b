"""Running the resident process for real in tests: to its end, or in the background while a test
acts; waits are for events (a file appears, a process ends) with a deadline, never a sleep
standing in for time passing."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from landwatch import layout, work_item
from landwatch.work_item import DONE

TESTS = Path(__file__).resolve().parents[1]
# A reviewer whose review handler only writes what it was asked to review to the journal.
RECORDING = ("--handler", "review=support.handlers:Recording")


def wait_for(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)  # polling for an event, not standing in for time


def reviewer_env(journal: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a reviewer that can load tests/support/handlers.py's handlers."""
    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    if journal is not None:
        env["LANDWATCH_TEST_JOURNAL"] = str(journal)
    return {**env, **extra}


def reviewer_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "landwatch", "reviewer", *args]


def run_reviewer(
    *args: str, journal: Path | None = None, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    """`landwatch reviewer ARGS` to its end (with --once, --detach, or refused)."""
    return subprocess.run(
        reviewer_command(*args),
        env=reviewer_env(journal, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextlib.contextmanager
def running(*args: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """A reviewer in the background, once it has written its state; SIGTERM at the end."""
    state = layout.REVIEWER_STATE.path()
    state.unlink(missing_ok=True)
    process = subprocess.Popen(
        reviewer_command(*args), env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: state.exists() or process.poll() is not None, "the reviewer")
        assert process.poll() is None, process.communicate()
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.communicate(timeout=120)


def journal_lines(journal: Path) -> list[list[str]]:
    return [line.split() for line in journal.read_text().splitlines()] if journal.exists() else []


def done_ids(git_dir: Path) -> list[str]:
    return sorted(work_item.id_of_entry(name) for name in work_item.entries(git_dir, DONE))


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # reparented daemons can linger as zombies until init reaps them
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def reviewed(journal: Path) -> list[tuple[str, str | None]]:
    """(commit, base) of every review the handler was asked for, in order."""
    return [
        (words[1], None if words[2] == "-" else words[2])
        for words in journal_lines(journal)
        if words[0] == "reviewed"
    ]
