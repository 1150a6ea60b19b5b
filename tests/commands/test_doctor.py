"""`landwatch doctor` reads the repository's settings by the rule the hooks follow: it names a
value landwatch cannot use, with the command that mends it, and waits as long as staleAfter."""

from __future__ import annotations

import shlex
import subprocess

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
