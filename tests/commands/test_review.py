"""`landwatch review`: a commit or a range reviewed now, its exit status by --fail-level, the
terminal, JSON and SARIF forms, one line for a revision that names no commit."""

from __future__ import annotations

import json
from pathlib import Path

from support.repos import Repo
from support.terminal import Terminal, words


def test_review_command_exit_status_and_formats(repo: Repo) -> None:
    repo.land("change", {"a.py": "x = 1  \n"}, hooks=False)
    warned = repo.landwatch("review")
    assert warned.returncode == 0 and "a.py" in warned.stdout and "P001" in warned.stdout
    assert repo.landwatch("review", "--fail-level", "warning").returncode == 1
    data = json.loads(repo.landwatch("review", "--json").stdout)
    assert data["counts"]["warning"] == 1
    assert [f["line"] for f in data["findings"] if f["rule"] == "P001"] == [1]
    first = repo.git("rev-parse", "HEAD~1")
    ranged = json.loads(repo.landwatch("review", f"{first}..HEAD", "--json").stdout)
    assert ranged["shape"] == "range"
    assert json.loads(repo.landwatch("review", "--sarif").stdout)["version"] == "2.1.0"
    missing = repo.landwatch("review", "nope")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1


def test_review_finds_debuggers_beyond_python(repo: Repo) -> None:
    repo.land(
        "debuggers",
        {"src/app.js": "function f() {\n  debugger;\n}\n", "lib/task.rb": "binding.pry\n"},
        hooks=False,
    )
    shown = repo.landwatch("review")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(repo.landwatch("review", "--json").stdout)
    found = [(f["rule"], f["path"], f["line"]) for f in data["findings"] if f["rule"] == "P007"]
    assert found == [("P007", "lib/task.rb", 1), ("P007", "src/app.js", 2)]
    assert "P007 debug-statement" in shown.stdout


SUBJECT = "Add the cart total, with a subject long enough to run past the eighty columns"
CART = (
    "def total(items):\n"
    "    import pdb; pdb.set_trace()\n"
    "    return sum(item.price_with_the_tax_included_and_rounded for item in items)   \n"
)


def test_review_at_80_columns_wraps_at_words(repo: Repo, terminal: Terminal) -> None:
    # C002, off unless a project turns it on, is the finding whose message wraps.
    turned_on = '[rules]\nsource-without-tests = "info"\n'
    repo.land(SUBJECT, {"app/cart.py": CART, ".landwatch.toml": turned_on}, hooks=False)
    screen = terminal.landwatch(repo.path, "review", "--no-linters")
    shown = words(screen)
    for said in (
        "(commit): 3 warnings, 1 info",
        "3 added lines checked",
        "C002 source-without-tests: source changed (app/cart.py) but no test file did",
        SUBJECT,
        CART.splitlines()[2],
    ):
        assert set(said.split()) <= shown, screen
    # A finding's message goes on under its own start; a line of code under its bar.
    lines = screen.splitlines()
    assert any(line.startswith("           ") and "did" in line for line in lines), screen
    assert any(line.startswith("    │ ") and "items)" in line for line in lines), screen


def test_a_review_without_linters_or_plugins_imports_neither_the_wall_nor_their_lookup(
    repo: Repo,
) -> None:
    """Issue 40: the wall is chosen only when a linter is to run, and importlib.metadata is
    asked for plug-in rules only when a package names their group: a review by hand of a
    repository with neither pays for neither."""
    import subprocess
    import sys

    repo.land("change", {"a.py": "x = 1\n"}, hooks=False)
    ran = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "landwatch", "review", "HEAD"],
        cwd=repo.path,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    imported = {line.rpartition("|")[2].strip() for line in ran.stderr.splitlines()}
    assert "landwatch.review.engine" in imported
    assert (
        imported & {"importlib.metadata", "landwatch.wall.door", "landwatch.wall.linters"} == set()
    )
    # Nor what pins trust (only where linters run), pre-commit's file tags (only where its
    # configuration scopes a finding), or another command's module.
    assert imported & {"landwatch.review.pinned", "identify", "landwatch.commands.show"} == set()


def test_sarif_names_the_worktree_the_review_was_asked_in(repo: Repo, tmp_path: Path) -> None:
    """A linked worktree's SARIF log names that worktree, where its paths are, not the main
    repository's `.git/worktrees` (the git dir's parent)."""
    repo.land("change", {"a.py": "x = 1  \n"}, hooks=False)
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    sarif = json.loads(Repo.existing(linked).landwatch("review", "--sarif").stdout)
    provenance = sarif["runs"][0]["versionControlProvenance"][0]
    assert provenance["repositoryUri"] == linked.resolve().as_uri()
