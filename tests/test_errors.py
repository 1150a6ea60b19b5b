"""The one exception family a command turns into one line (errors): every error a person can act
on is a UserError, which the front door turns into one line on stderr and exit status 1; and the
front door catches it without importing any command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import cli
from landwatch.commands.install_policy import InstallError
from landwatch.commands.service import ServiceError
from landwatch.errors import UserError
from landwatch.git import GitError
from landwatch.hook_slots import SlotError
from landwatch.hooks import RepositoryError
from landwatch.kinds import KindError
from landwatch.review.change import ChangeError
from landwatch.review.config import ConfigError


def test_every_error_a_person_can_act_on_is_a_user_error() -> None:
    for error in (
        GitError,
        RepositoryError,
        InstallError,
        ServiceError,
        SlotError,
        KindError,
        ChangeError,
        ConfigError,
    ):
        assert issubclass(error, UserError), error


def test_a_user_error_of_a_command_is_one_line_and_exit_status_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # in no repository: git says so, as a GitError
    assert cli.main(["show"]) == 1
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("landwatch: ") and said.err.count("\n") == 1
    assert "not a git repository" in said.err


def test_the_family_is_caught_without_importing_a_command() -> None:
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys; import landwatch.errors;"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('landwatch'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(shown.stdout) == ["landwatch", "landwatch.errors"]
