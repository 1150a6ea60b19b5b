"""`landwatch trust`: it shows the committed commands and approves exactly them, --show lists what
is trusted, --revoke withdraws it; the approvals are kept with the person, private, never in the
repository."""

from __future__ import annotations

import stat
from pathlib import Path

from landwatch import layout
from support.daemon import run_reviewer
from support.repos import Repo
from support.review import canary_linter


def test_trust_shows_the_commands_and_then_they_run(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("add a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    shown = repo.landwatch("trust")
    assert shown.returncode == 0, shown.stderr
    assert f"canary: sh -c 'touch {canary}; cat > /dev/null; echo '\"'\"'[]'\"'\"''" in shown.stdout
    assert "trusted exactly these" in shown.stdout
    repo.land("a change", {"m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert canary.exists()
    listed = repo.landwatch("trust", "--show").stdout
    assert "trusted" in listed and "canary: sh -c" in listed
    store = layout.TRUST.path()
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700
    assert repo.path not in store.parents  # kept with the person, never in the repository
    assert "withdrew 1 approval" in repo.landwatch("trust", "--revoke").stdout
    canary.unlink()
    repo.land("after revoking", {"m.py": "x = 2\n"})
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    assert "nothing is trusted" in repo.landwatch("trust", "--show").stdout
