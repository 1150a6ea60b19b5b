"""Nothing a repository commits runs until the person trusts exactly that (trust): a clone, a
pull, a fetched branch; the person's own linters run without asking."""

from __future__ import annotations

import json
from pathlib import Path

from landwatch import layout, report_store
from support.daemon import run_reviewer
from support.repos import Repo
from support.review import canary_linter


def test_a_fresh_clone_runs_no_committed_command_until_trusted(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("add a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    clone = Repo(tmp_path / "clone", clone_of=repo.path)
    said = clone.install()
    assert "asks to run 1 linter command(s) (canary)" in said and "landwatch trust" in said
    oid = clone.land("a change", {"m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    stored = report_store.read(clone.git_dir, oid)
    assert stored is not None and stored.linters == []
    assert any("`landwatch trust` shows them" in note for note in stored.notes)
    # The one line says so once, not at every landing.
    clone.land("next", {"m.py": "x = 2\n"})
    assert "linters committed in clone did not run" in clone.said
    assert "landwatch trust" in clone.said and clone.said.count("\n") == 1
    assert run_reviewer("--once").returncode == 0
    clone.land("again", {"m.py": "x = 3\n"})
    assert "did not run" not in clone.said


def test_a_pull_that_changes_the_command_needs_trust_again(tmp_path: Path, repo: Repo) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    repo.land("a linter", {".landwatch.toml": canary_linter(first)}, hooks=False)
    clone = Repo(tmp_path / "clone", clone_of=repo.path)
    clone.install()
    assert clone.landwatch("trust").returncode == 0
    changed = {".landwatch.toml": canary_linter(second), "t.py": "t = 1\n"}
    repo.land("the linter changes", changed, hooks=False)
    assert clone.run("pull", "-q", "--ff-only").returncode == 0
    assert run_reviewer("--once").returncode == 0
    assert not second.exists() and not first.exists()
    clone.land("next", {"m.py": "x = 1\n"})
    assert "did not run" in clone.said  # a new configuration is news
    # Back to the configuration trusted before: trusted again, without asking.
    repo.land("back", {".landwatch.toml": canary_linter(first), "u.py": "u = 1\n"}, hooks=False)
    assert clone.run("pull", "-q", "--no-rebase", "--no-edit").returncode == 0
    assert run_reviewer("--once").returncode == 0
    assert first.exists() and not second.exists()


def test_a_fetched_branch_is_reviewed_without_its_commands(tmp_path: Path, repo: Repo) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    repo.land("my linter", {".landwatch.toml": canary_linter(mine)}, hooks=False)
    assert repo.landwatch("trust").returncode == 0
    fork = Repo(tmp_path / "fork", clone_of=repo.path)
    fork.land("a contribution", {".landwatch.toml": canary_linter(theirs), "m.py": "x\n"})
    assert repo.run("fetch", "-q", str(fork.path), "main").returncode == 0
    reviewed = repo.landwatch("review", "FETCH_HEAD", "--json")
    assert reviewed.returncode == 0, reviewed.stderr
    assert not theirs.exists() and not mine.exists()
    assert any("landwatch trust" in note for note in json.loads(reviewed.stdout)["notes"])


def test_the_persons_own_linters_run_everywhere_without_asking(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "mine"
    own = layout.OWN_CONFIG.path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(canary_linter(canary, "mine"))
    repo.land("a change", {"m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert canary.exists()
    own.write_text("[[linters]]\nname = 'broken'\n")
    oid = repo.land("another", {"m.py": "x = 2\n"})
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None
    assert [f.message for f in stored.findings if f.rule == "CFG"] == [
        f"{own}: {own}: linters[1]: command is required"
    ]
