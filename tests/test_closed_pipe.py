"""A command whose reader went away (landwatch.closed_pipe): what it writes goes nowhere, said
nowhere, and a command that changes things as it speaks finishes them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import hooks, registry
from landwatch.closed_pipe import carrying_on
from support.repos import Repo


def test_inside_carrying_on_a_closed_pipe_silences_stdout_and_the_work_goes_on() -> None:
    """In a child whose stdout is a pipe nobody reads: writes inside go nowhere, the code after
    them runs, and nothing fails at exit."""
    reading, writing = os.pipe()
    os.close(reading)
    code = (
        "import sys\n"
        "from landwatch.closed_pipe import carrying_on\n"
        "with carrying_on():\n"
        "    for n in range(3):\n"
        "        print('line', n, flush=True)\n"
        "    sys.stderr.write('finished\\n')\n"
    )
    try:
        ended = subprocess.run(
            [sys.executable, "-c", code], stdout=writing, stderr=subprocess.PIPE, check=False
        )
    finally:
        os.close(writing)
    assert (ended.returncode, ended.stderr) == (0, b"finished\n")


def test_not_wanted_it_leaves_stdout_as_it_is() -> None:
    before = sys.stdout
    with carrying_on(False):
        assert sys.stdout is before
    with carrying_on():
        assert sys.stdout is not before
    assert sys.stdout is before


@pytest.mark.parametrize("buffered", [False, True], ids=["unbuffered", "buffered"])
def test_install_and_uninstall_finish_when_their_reader_is_gone(
    tmp_path: Path, buffered: bool
) -> None:
    """`landwatch install | head -1` died at its first line after the first: the hooks written,
    the repository not registered, so nothing drained what they recorded; uninstall left its
    data (audit repro 5). Stdout buffered, both finished but failed at exit (status 120, Python's
    "Exception ignored"). Now each finishes, says nothing more, and exits with its own status."""
    repo = Repo(tmp_path / "repo")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env |= {} if buffered else {"PYTHONUNBUFFERED": "1"}  # a terminal's line at a time

    def cut_short(*command: str) -> subprocess.CompletedProcess[bytes]:
        reading, writing = os.pipe()
        os.close(reading)  # `| head -1` that has its line
        try:
            return subprocess.run(
                [sys.executable, "-m", "landwatch", *command],
                cwd=repo.path,
                env=env,
                stdout=writing,
                stderr=subprocess.PIPE,
            )
        finally:
            os.close(writing)

    ended = cut_short("install")
    assert (ended.returncode, ended.stderr) == (0, b"")
    assert registry.registered() == [repo.git_dir.resolve()]
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)]
    ended = cut_short("uninstall")
    assert (ended.returncode, ended.stderr) == (0, b"")
    assert registry.registered() == [] and not (repo.git_dir / "landwatch").exists()
    assert not hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
