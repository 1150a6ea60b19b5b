"""Git notes of each review, when asked for."""

from __future__ import annotations

from support.daemon import run_reviewer
from support.repos import Repo
from support.tokens import github_token


def test_notes_are_written_when_asked(repo: Repo) -> None:
    repo.git("config", "landwatch.notes", "true")
    repo.land("noted", {"a.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    note = repo.git("notes", "--ref", "landwatch", "show", "HEAD")
    assert note.startswith("landwatch: 1 warning") and "P001 a.txt:1" in note


def test_a_token_in_a_file_name_is_redacted_in_the_note(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    repo.git("config", "landwatch.notes", "true")
    repo.land("noted", {f"{token}.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    note = repo.git("notes", "--ref", "landwatch", "show", "HEAD")
    assert "P001 ghp_….txt:1" in note and token not in note
