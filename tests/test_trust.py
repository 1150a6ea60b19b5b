"""Nothing a repository commits runs until the person trusts exactly that: a clone, a pull, a
fetched branch; the person's own linters run without asking; uninstall withdraws everything."""

from __future__ import annotations

import json
import stat
import textwrap
from pathlib import Path

from landwatch import layout, registry, report_store, trust, work_item
from landwatch.daemon.loop import Daemon
from landwatch.daemon.settings import Settings
from landwatch.kinds.review import ReviewHandler
from support.daemon import run_reviewer
from support.kinds import FakeClock
from support.repos import Repo, installed


def canary_linter(canary: Path, name: str = "canary") -> str:
    """A committed linter whose running leaves a file behind (and reports nothing)."""
    script = f"touch {canary}; cat > /dev/null; echo '[]'"
    return textwrap.dedent(f"""\
        [[linters]]
        name = "{name}"
        command = ["sh", "-c", {json.dumps(script)}]
        format = "ruff-json"
        files = ["*.py"]
        """)


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


def test_uninstall_withdraws_everything_at_once(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    assert repo.landwatch("trust").returncode == 0
    oids = [repo.land(f"waiting {n}", {"m.py": f"x = {n}\n"}) for n in range(3)]
    said = repo.landwatch("uninstall").stdout
    assert "withdrew what you trusted here" in said
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    assert [oid for oid, _ in repo.pending()] == oids  # still there for a later install
    assert trust.approvals() == []
    repo.install()
    assert run_reviewer("--once").returncode == 0
    assert repo.pending() == [] and not canary.exists()  # reviewed, trust not restored


def test_the_reviewer_takes_nothing_more_once_a_repository_is_uninstalled(
    tmp_path: Path, repo: Repo
) -> None:
    other = installed(tmp_path / "other")
    oid = repo.land("waiting")
    elsewhere = other.land("elsewhere")
    clock = FakeClock()
    daemon = Daemon(
        {"review": ReviewHandler(clock=clock)},
        Settings(watch=False),
        clock=clock,
        state_file=tmp_path / "state.json",
    )
    daemon.reload()
    registry.unregister(repo.git_dir)  # between the reload and the next claim
    daemon.dispatch()
    daemon.queues["review"].wait_idle(120)
    daemon.shutdown()
    assert repo.pending() == [(oid, None)]
    assert work_item.entries(repo.git_dir, work_item.CLAIMED) == []
    assert other.pending() == [] and report_store.read(other.git_dir, elsewhere) is not None
