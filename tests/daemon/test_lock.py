"""One reviewer per user (daemon.lock): a second one exits naming the first, whatever its
environment says of the runtime dir."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.daemon import (
    reviewer_command,
    reviewer_env,
    run_reviewer,
    running,
)
from support.repos import installed


def test_a_second_reviewer_exits_naming_the_first(tmp_path: Path, journal: Path) -> None:
    installed(tmp_path / "repo")
    with running("--handler", "review=support.handlers:Noop", env=reviewer_env(journal)) as first:
        second = run_reviewer("--once", journal=journal)
        assert second.returncode == 1
        assert second.stderr.count("\n") == 1
        assert f"already running (pid {first.pid}, foreground" in second.stderr


def test_one_reviewer_whatever_the_environment_says_of_its_runtime_dir(
    tmp_path: Path, journal: Path
) -> None:
    installed(tmp_path / "repo")
    env = reviewer_env(journal)
    with running("--handler", "review=support.handlers:Noop", env=env) as first:
        bare = {k: v for k, v in env.items() if k != "XDG_RUNTIME_DIR"}  # cron, a GUI session
        elsewhere = {**env, "XDG_RUNTIME_DIR": str(tmp_path / "another-run")}
        for other in (bare, elsewhere):
            second = subprocess.run(
                reviewer_command("--once"), env=other, capture_output=True, text=True, timeout=120
            )
            assert second.returncode == 1 and f"already running (pid {first.pid}" in second.stderr
            status = subprocess.run(
                [sys.executable, "-m", "landwatch", "service", "status"],
                env=other,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert f"pid {first.pid}" in status.stdout + status.stderr
