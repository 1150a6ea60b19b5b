"""What `landwatch doctor` says of a repository's sharing: a refspec fetching into the local
notes, a remote that is gone, a fetch that does not bring the notes or that a ref pushed below
them can fail (a share by an older landwatch); `--fix` runs `landwatch share` where that mends
it, the person's config otherwise kept."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from landwatch import layout
from support.repos import Repo

PATTERN = "+refs/notes/landwatch*:refs/notes/remotes/origin/landwatch*"
EXCLUSION = "^refs/notes/landwatch/*"


def sharing(repo: Repo, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo.git("remote", "add", "origin", str(remote))
    assert repo.landwatch("share").returncode == 0


def notes_lines(repo: Repo) -> list[str]:
    return [line for line in repo.landwatch("doctor").stdout.splitlines() if "notes" in line]


def test_sharing_s_refspecs_are_checked_and_the_missing_one_mended(
    repo: Repo, tmp_path: Path
) -> None:
    sharing(repo, tmp_path)
    assert notes_lines(repo) == []
    repo.git("config", "--fixed-value", "--unset", "remote.origin.fetch", PATTERN)
    [line] = notes_lines(repo)
    assert "a fetch of origin does not bring its review notes" in line
    assert line.endswith("fix: landwatch share origin")
    repo.landwatch("doctor", "--fix")
    assert notes_lines(repo) == []
    fetches = repo.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert PATTERN in fetches and EXCLUSION in fetches
    # A refspec fetching straight into the local notes would replace them at the next fetch.
    repo.git("config", "--add", "remote.origin.fetch", "+refs/notes/landwatch:refs/notes/landwatch")
    [line] = [said for said in repo.landwatch("doctor").stdout.splitlines() if "replace" in said]
    assert "remote.origin.fetch fetches into refs/notes/landwatch" in line
    subprocess.run(shlex.split(line.rpartition("; fix: ")[2]), check=True)
    assert "replace" not in repo.landwatch("doctor").stdout
    repo.git("remote", "remove", "origin")
    assert "which is no remote here" in repo.landwatch("doctor").stdout


def test_a_share_by_an_older_landwatch_is_named_and_mended_keeping_the_person_s_config(
    repo: Repo, tmp_path: Path
) -> None:
    """An older share added the pattern alone, whose refs/notes/landwatch/x failed every fetch
    (tests/commands/test_share.py): doctor names it; --fix adds the negative refspec, recorded
    as share's, so that --off takes it out with the rest and keeps the person's own lines."""
    sharing(repo, tmp_path)
    repo.git("config", "--fixed-value", "--unset", "remote.origin.fetch", EXCLUSION)
    undo = layout.SHARE_UNDO.path(repo.git_dir)
    record = json.loads(undo.read_text())
    del record["exclusion_added"]  # as the older share recorded it
    undo.write_text(json.dumps(record))
    repo.git("config", "core.editor", "vi")  # the person's own, since
    [line] = notes_lines(repo)
    assert (
        "a fetch of origin fails once anyone who can push there puts a ref below "
        f"refs/notes/landwatch (the refspec {EXCLUSION} is missing from remote.origin.fetch: a "
        "share by an older landwatch did not add it); fix: landwatch share origin"
    ) in line
    fixed = repo.landwatch("doctor", "--fix").stdout
    assert f"sharing with origin already; added {EXCLUSION}" in fixed
    assert notes_lines(repo) == []
    assert repo.landwatch("share", "--off").returncode == 0
    assert repo.git("config", "core.editor") == "vi"
    assert repo.git("config", "--get-all", "remote.origin.fetch").splitlines() == [
        "+refs/heads/*:refs/remotes/origin/*"
    ]
    assert "landwatch.share" not in repo.git("config", "--list")


def test_sharing_turned_on_whose_setting_is_gone_is_named_and_mended(
    repo: Repo, tmp_path: Path
) -> None:
    """share.json says sharing is on, the setting is gone: nothing is shared, status says so,
    and doctor said all was well. It names the half-state; --fix runs share, which sets it."""
    sharing(repo, tmp_path)
    repo.git("config", "--unset", "landwatch.share.remote")
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    assert (
        f"landwatch: {repo.git_dir}: landwatch share turned sharing on with origin, but "
        "landwatch.share.remote is not set: the reviews are not shared; fix: landwatch share "
        "origin\n"
    ) in doctor.stdout
    repo.landwatch("doctor", "--fix")
    assert repo.git("config", "landwatch.share.remote") == "origin"
    assert "landwatch share turned" not in repo.landwatch("doctor").stdout
    # Another remote named by hand: which one is meant is the person's to say.
    repo.git("config", "landwatch.share.remote", "elsewhere")
    said = repo.landwatch("doctor").stdout.splitlines()
    [line] = [line for line in said if "landwatch share turned" in line]
    assert (
        "landwatch.share.remote is 'elsewhere', set since; fix: landwatch share origin (or" in line
    )


def test_sharing_a_copied_configuration_turns_on_is_said_by_install_and_doctor(
    repo: Repo, tmp_path: Path
) -> None:
    """Attack 69: a copy's .git/config saying `landwatch.share.remote = collect`, a remote of the
    copy's maker: every review and the person's user.email went there, and neither install nor
    doctor said a word. Both say it now, naming the remote and the file that turns it on."""
    collect = tmp_path / "collect.git"
    subprocess.run(["git", "init", "-q", "--bare", str(collect)], check=True)
    repo.git("remote", "add", "collect", str(collect))
    repo.git("config", "landwatch.share.remote", "collect")
    said = "sharing is on: each review, with your user.email, is pushed to 'collect'"
    where = f"(landwatch.share.remote, set in {repo.git_dir / 'config'}; `landwatch share --off`"
    installed = repo.install()
    assert said in installed and where in installed, installed
    doctor = repo.landwatch("doctor").stdout
    assert said in doctor and where in doctor, doctor
    repo.git("config", "--unset", "landwatch.share.remote")
    assert "sharing is on" not in repo.install() + repo.landwatch("doctor").stdout
