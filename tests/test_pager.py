"""The person's pager (landwatch.pager), chosen as git chooses it but never from a repository's own
configuration, given LESS=FRX as git gives it, used only on a terminal; a pager that cannot start
loses nothing of the text."""

from __future__ import annotations

import os
import pty
import select
from pathlib import Path

import pytest

from landwatch import pager
from support.repos import Repo

TEXT = "what runs\nwhat is pinned\n"


def test_the_pager_is_the_person_s_as_git_chooses_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GIT_PAGER", raising=False)
    monkeypatch.setenv("PAGER", "more")
    monkeypatch.chdir(repo.path)
    # A repository's own core.pager (a copied .git could hold one) is never asked.
    repo.git("config", "core.pager", "touch planted")
    assert pager.command() == "more"
    repo.git("config", "--global", "core.pager", "less -S")
    assert pager.command() == "less -S"
    monkeypatch.setenv("GIT_PAGER", "most")
    assert pager.command() == "most"
    for none in ("cat", ""):  # as git: nothing pages
        monkeypatch.setenv("GIT_PAGER", none)
        assert pager.command() is None
    assert not (repo.path / "planted").exists()


def test_nothing_is_paged_where_there_is_no_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_PAGER", f"touch {tmp_path / 'paged'}")
    with (tmp_path / "out").open("w") as out:
        assert not pager.pages(out)
        pager.page(TEXT, out)
    assert (tmp_path / "out").read_text() == TEXT and not (tmp_path / "paged").exists()


def on_a_terminal(text: str) -> str:
    """`text` paged where stdout is a terminal (a pty): what the terminal received."""
    leader, follower = pty.openpty()
    with os.fdopen(follower, "w") as out:
        assert pager.pages(out)
        pager.page(text, out)
    shown = b""
    while select.select([leader], [], [], 5)[0]:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: nothing left to read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown.decode().replace("\r\n", "\n")


def test_on_a_terminal_the_pager_gets_the_text_and_less_s_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LESS", raising=False)
    monkeypatch.setenv("GIT_PAGER", "printf 'LESS=%s\\n' \"$LESS\"; tr a-z A-Z")
    assert on_a_terminal(TEXT) == "LESS=FRX\nWHAT RUNS\nWHAT IS PINNED\n"
    monkeypatch.setenv("LESS", "-R")  # the person's own, kept
    assert on_a_terminal(TEXT).startswith("LESS=-R\n")


def test_a_pager_that_cannot_start_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_PAGER", "no-such-pager-here")
    assert on_a_terminal(TEXT) == TEXT  # sh's complaint on stderr, the text on the terminal


def test_the_pager_runs_away_from_the_repository(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pager reads what is where it runs (a key file, paths it is given): not the repository."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_PAGER", "pwd; cat > /dev/null")
    assert on_a_terminal(TEXT) == "/\n"
