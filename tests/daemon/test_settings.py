"""The resident process's knobs and their defaults (daemon.settings): light enough that the
command line shows them without importing the process, the same defaults the kinds and the sweep
use, and a process's settings fixed once made."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from landwatch import cli, kinds
from landwatch.daemon.settings import SWEEP_GRACE, Settings

# What a command that only shows or reads settings must not pay for.
HEAVY = (
    "landwatch.daemon.loop",
    "landwatch.daemon.watch",
    "watchdog",
    "pygit2",
    "landwatch.review",
)


def test_the_settings_are_read_without_the_process_or_the_review() -> None:
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys; import landwatch.daemon.settings;"
            f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({HEAVY!r}))))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(shown.stdout) == []


def test_the_defaults_are_the_ones_the_kinds_and_the_sweep_use() -> None:
    defaults = Settings()
    assert defaults.lease == kinds.DEFAULT_LEASE
    assert defaults.max_tries == kinds.DEFAULT_MAX_TRIES
    assert defaults.sweep_grace == SWEEP_GRACE
    assert defaults.watch is True


def test_the_reviewer_s_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["reviewer", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    defaults = Settings()
    for option, value in (
        ("--lease", defaults.lease),
        ("--max-tries", defaults.max_tries),
        ("--rescan", defaults.rescan),
        ("--grace", defaults.grace),
    ):
        assert f"({value})" in shown.split(option, 2)[2].split("--", 1)[0], option


def test_a_process_s_settings_are_fixed_once_made() -> None:
    settings = Settings(lease=5.0)
    with pytest.raises(AttributeError):
        settings.lease = 10.0  # type: ignore[misc]
    assert settings._replace(grace=0.0) == Settings(lease=5.0, grace=0.0)
