"""`landwatch doctor`: quiet on a healthy setup; `--fix` registers a moved repository and starts
the reviewer; it reads the repository's settings by the rule the hooks follow, names a value
landwatch cannot use with the command that mends it, and waits as long as staleAfter; and it
tells whether linters run sandboxed (review/test_sandbox.py: when they do)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from landwatch import registry
from support.daemon import run_reviewer
from support.repos import Repo, back_date


def test_a_setting_landwatch_cannot_use_is_named_with_the_command_that_mends_it(
    repo: Repo,
) -> None:
    repo.git("config", "landwatch.maintenance.interval", "90.5")
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    [line] = [line for line in doctor.stdout.splitlines() if "interval" in line]
    assert "landwatch.maintenance.interval = '90.5' is not a whole number of seconds" in line
    assert "landwatch uses 3600" in line
    fix = line.rpartition("; fix: ")[2]
    assert fix.endswith("config --unset landwatch.maintenance.interval")
    subprocess.run(shlex.split(fix), check=True)
    assert "interval" not in repo.landwatch("doctor").stdout


def test_items_wait_as_long_as_stale_after_allows_before_doctor_tells(repo: Repo) -> None:
    repo.git("config", "landwatch.staleAfter", "3600")
    repo.land("waits")
    back_date(repo, 1000)  # past doctor's old fixed 600 s, within the repository's bound
    assert "item(s) wait" not in repo.landwatch("doctor").stdout
    back_date(repo, 4000)
    assert "1 item(s) wait" in repo.landwatch("doctor").stdout


def test_doctor_fix_registers_a_moved_repository_and_starts_the_reviewer(
    repo: Repo, tmp_path: Path
) -> None:
    old_place = repo.git_dir.resolve()
    moved = Repo.existing(tmp_path / "elsewhere")
    shutil.move(repo.path, moved.path)
    moved.land("after the move")
    try:
        fixed = moved.landwatch("doctor", "--fix")
        assert "forgot" in fixed.stdout and str(old_place) in fixed.stdout
        assert fixed.returncode == 0, fixed.stdout
        assert registry.registered() == [moved.git_dir.resolve()]
    finally:
        moved.landwatch("service", "stop")


def test_doctor_on_a_healthy_setup_is_quiet(repo: Repo, tmp_path: Path) -> None:
    bare = tmp_path / "bin"  # a PATH with git and no bwrap, whatever the machine has
    bare.mkdir()
    (bare / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    run_reviewer("--detach")
    try:
        doctor = repo.landwatch("doctor")
        assert doctor.returncode == 0, doctor.stdout
        assert doctor.stdout.startswith("landwatch doctor: all well: 1 repository covered")
        # And whether linters run sandboxed, which is told, never a problem.
        assert doctor.stdout.count("\n") == 2
        assert doctor.stdout.splitlines()[1].startswith("landwatch doctor: linters run without")
        repo.git("config", "landwatch.sandbox", "true")
        without = subprocess.run(
            [sys.executable, "-m", "landwatch", "doctor"],
            cwd=repo.path,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": str(bare)},
        )
        assert without.returncode == 0, without.stdout
        assert without.stdout.splitlines()[1] == (
            "landwatch doctor: linters run without a sandbox: bubblewrap (bwrap) is not "
            "installed; with it they run with no network and the system read-only"
        )
    finally:
        repo.landwatch("service", "stop")
