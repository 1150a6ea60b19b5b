"""Nothing a repository commits runs until the person trusts exactly that (trust): a clone, a
pull, a fetched branch; the person's own linters run without asking, given the repository's
configuration only where it is trusted. And what issue 22 found running the attacker's code
after an ordinary pull, with the trusted configuration unchanged, each tried again for real:
real git, the real reviewer, real ruff and pylint; the planted code never runs, the commit is
still reviewed."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

from landwatch import layout, report_store, trust
from landwatch.review.report import Report
from support.daemon import run_reviewer
from support.repos import Repo
from support.review import canary_linter, pylint_linter


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
    assert clone.landwatch("trust", "--yes").returncode == 0
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
    assert repo.landwatch("trust", "--yes").returncode == 0
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


def reviewed_pull(clone: Repo, upstream: Repo, message: str, files: dict[str, str]) -> Report:
    """What `upstream` lands, pulled into `clone` and reviewed by the reviewer: its report."""
    oid = upstream.land(message, files, hooks=False)
    pulled = clone.run("pull", "-q", "--ff-only")
    assert pulled.returncode == 0, pulled.stderr
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(clone.git_dir, oid)
    assert stored is not None, "the pulled commit was not reviewed"
    return stored


def trusted_clone(tmp_path: Path, upstream: Repo, config: str) -> Repo:
    """A clone of `upstream` with `config` as its committed linters, which the person trusts."""
    upstream.land("the linters", {".landwatch.toml": config, "m.py": "x = 1\n"}, hooks=False)
    clone = Repo(tmp_path / "clone", clone_of=upstream.path)
    clone.install()
    trusted = clone.landwatch("trust", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    return clone


def rules_of(report: Report, path: str) -> set[str]:
    return {finding.rule for finding in report.findings if finding.path == path}


def test_a_committed_module_never_shadows_a_trusted_python_m_linter(
    tmp_path: Path, repo: Repo
) -> None:
    """`python3 -m ruff` puts its working directory first on sys.path: a `ruff.py` committed
    upstream would run instead of ruff. Neither run directly (-I) nor from a wrapper
    (PYTHONSAFEPATH) does it."""
    marker = tmp_path / "shadowed"
    ruff = ["check", "--no-cache", "--output-format=json", "--select=F"]
    wrapped = f'exec {sys.executable} -m ruff {" ".join(ruff)} --stdin-filename "$0" -'
    direct = [sys.executable, "-m", "ruff", *ruff, "--stdin-filename", "{path}", "-"]
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "ruff"
        command = {json.dumps(direct)}
        format = "ruff-json"
        files = ["*.py"]

        [[linters]]
        name = "wrapped"
        command = ["sh", "-c", {json.dumps(wrapped)}, "{{path}}"]
        format = "ruff-json"
        files = ["*.py"]
        """)
    clone = trusted_clone(tmp_path, repo, config)
    planted = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\nprint('[]')\n"
    stored = reviewed_pull(
        clone, repo, "a module named ruff", {"ruff.py": planted, "m.py": "import os\n"}
    )
    assert not marker.exists()
    # The real ruff ran, on both files, by both commands.
    assert {"ruff:F401", "wrapped:F401"} <= rules_of(stored, "m.py")
    assert {run["status"] for run in stored.linters} == {"ok"} and len(stored.linters) == 4
    # They ran in the person's own directory, private, and left nothing there.
    linting = layout.LINTING.path()
    assert stat.S_IMODE(linting.stat().st_mode) == 0o700 and list(linting.iterdir()) == []


def test_a_linters_configuration_holding_code_asks_for_trust_again(
    tmp_path: Path, repo: Repo
) -> None:
    """pylint reads `[tool.pylint.main] init-hook` from pyproject.toml and runs it: a change to
    the configuration a linter is given is a change to what was trusted. A configuration file
    in a directory below the root is never given at all."""
    marker = tmp_path / "hooked"
    clone = trusted_clone(tmp_path, repo, pylint_linter())
    hook = f"import pathlib; pathlib.Path({str(marker)!r}).touch()"
    below = {
        "sub/pyproject.toml": f"[tool.pylint.main]\ninit-hook = {json.dumps(hook)}\n",
        "sub/.pylintrc": f"[MAIN]\ninit-hook={hook}\n",
        "sub/n.py": "import os\n",
    }
    stored = reviewed_pull(clone, repo, "configuration below the root", below)
    assert not marker.exists()
    assert "pylint:W0611" in rules_of(stored, "sub/n.py")  # pylint ran, without it
    planted = f"[project]\nname = 'm'\n\n[tool.pylint.main]\ninit-hook = {json.dumps(hook)}\n"
    stored = reviewed_pull(clone, repo, "a hook", {"pyproject.toml": planted, "m.py": "x = 2\n"})
    assert not marker.exists() and stored.linters == []
    assert any("landwatch trust" in note for note in stored.notes)
    asked = clone.landwatch("trust", "--show").stdout
    assert f"+init-hook = {json.dumps(hook)}" in asked and "pyproject.toml" in asked


def test_a_file_name_is_never_read_as_an_option(tmp_path: Path, repo: Repo) -> None:
    """`{path}` is given as `./path`: a file named like an option is a file to pylint."""
    clone = trusted_clone(tmp_path, repo, pylint_linter())
    name = '--init-hook=import os;os.system("cd;touch MARKER")#.py'  # the marker in $HOME
    stored = reviewed_pull(clone, repo, "an odd name", {name: "import os\n"})
    assert not (Path(os.environ["HOME"]) / "MARKER").exists()
    assert "pylint:W0611" in rules_of(stored, name)  # linted as the file it is


def test_your_own_linters_get_no_configuration_of_an_untrusted_repository(
    tmp_path: Path, repo: Repo
) -> None:
    """Your own pylint runs in a fresh clone without asking, and without the clone's
    configuration; once you trusted that, it is given to it."""
    marker = tmp_path / "hooked"
    hook = f"import pathlib; pathlib.Path({str(marker)!r}).touch()"
    planted = f"[tool.pylint.main]\ninit-hook = {json.dumps(hook)}\n"
    repo.land("a hook", {"pyproject.toml": planted}, hooks=False)
    own = layout.OWN_CONFIG.path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(pylint_linter("mine"))
    clone = Repo(tmp_path / "clone", clone_of=repo.path)
    clone.install()
    assert "nothing is trusted" in clone.landwatch("trust", "--show").stdout
    oid = clone.land("a change", {"m.py": "import os\n"})
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(clone.git_dir, oid)
    assert stored is not None and not marker.exists()
    assert "mine:W0611" in rules_of(stored, "m.py")
    assert any(
        "without this repository's configuration (pyproject.toml)" in n for n in stored.notes
    )
    assert clone.landwatch("trust", "--yes").returncode == 0  # the person allows it
    clone.land("another", {"m.py": "import sys\n"})
    assert run_reviewer("--once").returncode == 0
    assert marker.exists()  # the configuration they trusted, hook and all, is given now


def test_held_back_linters_and_hooks_are_told_once_each(repo: Repo) -> None:
    from landwatch.commands.notice import untrusted

    trust.held_back(repo.git_dir, "a" * 64)
    trust.held_back(repo.git_dir, "b" * 64, trust.HOOKS)
    assert trust.held_back_subjects(repo.git_dir) == [trust.LINTERS, trust.HOOKS]
    said = untrusted(repo.git_dir)
    assert said is not None
    assert "the linters and the project's hooks committed in repo did not run" in said.plain
    trust.mark_told(repo.git_dir)
    trust.held_back(repo.git_dir, "a" * 64)
    trust.held_back(repo.git_dir, "b" * 64, trust.HOOKS)
    assert untrusted(repo.git_dir) is None  # the same digests: told already
    trust.held_back(repo.git_dir, "c" * 64, trust.HOOKS)  # the hooks changed again
    said = untrusted(repo.git_dir)
    assert said is not None and "the project's hooks in repo did not run" in said.plain
    trust.mark_told(repo.git_dir)
    trust.held_back(repo.git_dir, "a" * 64)  # the linters' told digest was kept
    assert untrusted(repo.git_dir) is None


# trust.json as another release wrote it: nothing this release cannot read is lost by its writes.

# An approval as a newer release might keep it: its pinned files as objects, not pairs.
NEWER_APPROVAL = {
    "repository": "/elsewhere/.git",
    "digest": "d1",
    "commands": ["ruff: ruff check"],
    "approved": 1796000000.0,
    "files": [{"path": "ruff.toml", "oid": "0123", "mode": "100644"}],
    "subject": "linters",
    "revs": [],
}


def kept_approvals() -> list[object]:
    kept: list[object] = json.loads(layout.TRUST.path().read_text())["approvals"]
    return kept


def test_an_approval_this_release_cannot_read_is_kept_by_every_write(
    tmp_path: Path, repo: Repo
) -> None:
    """An approval of another shape in trust.json (a newer release's) stays as written when the
    person approves here and when uninstall withdraws what was trusted here. Before, the next
    write kept only what this release could read: that approval was lost, unsaid."""
    repo.land("a linter", {".landwatch.toml": canary_linter(tmp_path / "ran")}, hooks=False)
    layout.TRUST.path().parent.mkdir(parents=True, exist_ok=True)
    layout.TRUST.path().write_text(json.dumps({"format": 1, "approvals": [NEWER_APPROVAL]}))
    assert repo.landwatch("trust", "--yes").returncode == 0
    assert [approval.repository for approval in trust.approvals()] == [
        trust.repository_key(repo.git_dir)
    ]
    assert kept_approvals()[0] == NEWER_APPROVAL and len(kept_approvals()) == 2
    assert repo.landwatch("uninstall").returncode == 0
    assert kept_approvals() == [NEWER_APPROVAL]


def test_a_trust_file_this_release_cannot_read_is_never_written_over(
    tmp_path: Path, repo: Repo
) -> None:
    """trust.json a newer release wrote (landwatch downgraded), or one that is no JSON: nothing
    in it is trusted; `landwatch trust` refuses before asking, in one line naming the file and
    what to do; uninstall goes on and says so; doctor names it; its bytes stay. Before, the next
    approval anywhere wrote it over with that one alone, and nothing said so."""
    repo.land("a linter", {".landwatch.toml": canary_linter(tmp_path / "ran")}, hooks=False)
    path = layout.TRUST.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    newer = json.dumps({"format": 2, "approvals": [NEWER_APPROVAL]}).encode()
    upgrade, mend = "upgrade landwatch to the release that wrote it", "mend it"
    for content, why, fix in (
        (newer, "was written by a newer landwatch (format 2; this one reads 1)", upgrade),
        (b'{"format": 1, "approvals": [', "cannot be read (not JSON)", mend),
    ):
        path.write_bytes(content)
        assert trust.approvals() == []
        said = repo.landwatch("trust", "--yes")
        assert said.returncode == 1 and "trusted exactly these" not in said.stdout
        assert said.stderr == (
            f"landwatch: {path} {why}: nothing was approved, so as not to lose what it holds; "
            f"{fix}, or move it aside to start afresh (mv {path} {path}.aside)\n"
        )
        assert f"landwatch: {path} {why}" in repo.landwatch("doctor").stdout
        assert path.read_bytes() == content
    uninstalled = repo.landwatch("uninstall")
    assert uninstalled.returncode == 0, uninstalled.stderr
    assert f"{path} cannot be read (not JSON): nothing trusted here was withdrawn" in (
        uninstalled.stdout
    )
    assert "hooks removed from" in uninstalled.stdout and path.read_bytes() == content
