"""`landwatch share` and `share --off`: two lines of the repository's git config and nothing
else, undone byte for byte (or, when the config changed since, line by line); a remote that is
not there refused; uninstall stops sharing too."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import layout
from support.team import developer, seeded_remote


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


def test_share_off_puts_the_config_back_byte_for_byte(tmp_path: Path, remote: Path) -> None:
    a = developer(tmp_path, "a", remote)
    config = a.git_dir / "config"
    before = config.read_bytes()
    assert a.landwatch("share").returncode == 0
    assert a.git("config", "landwatch.share.remote") == "origin"
    fetches = a.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert "+refs/notes/landwatch*:refs/notes/remotes/origin/landwatch*" in fetches
    a.git("fetch", "-q")  # brings nothing yet, but would
    shown = a.landwatch("status").stdout
    assert "sharing reviews with origin" in shown and "reviews not shared" not in shown
    off = a.landwatch("share", "--off")
    assert off.returncode == 0 and "byte for byte" in off.stdout
    assert config.read_bytes() == before
    assert not layout.SHARE_UNDO.path(a.git_dir).exists()
    # Changed since by hand: only what share added goes, the person's change stays.
    a.landwatch("share", check=True)
    a.git("config", "core.editor", "vi")
    off = a.landwatch("share", "--off")
    assert off.returncode == 0 and "only what share added" in off.stdout
    assert a.git("config", "core.editor") == "vi"
    assert a.run("git", "config", "landwatch.share.remote", check=False).returncode == 1
    fetches = a.git("config", "--get-all", "remote.origin.fetch").splitlines()
    assert fetches == ["+refs/heads/*:refs/remotes/origin/*"]
    assert a.landwatch("share", "--off").stdout.startswith("landwatch: sharing is not on here")
    # Uninstalling landwatch stops sharing too: nothing of it is left in the config.
    before = config.read_bytes()
    a.landwatch("share", check=True)
    uninstalled = a.landwatch("uninstall")
    assert uninstalled.returncode == 0 and "sharing with origin is off" in uninstalled.stdout
    assert config.read_bytes() == before


def test_share_refuses_a_remote_that_is_not_there(tmp_path: Path, remote: Path) -> None:
    a = developer(tmp_path, "a", remote)
    refused = a.landwatch("share", "elsewhere")
    assert refused.returncode == 1
    assert "no remote named 'elsewhere'" in refused.stderr
    assert a.run("git", "config", "landwatch.share.remote", check=False).returncode == 1
