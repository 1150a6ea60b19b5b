"""`landwatch review`: a commit or a range reviewed now, its exit status by --fail-level, the
terminal, JSON and SARIF forms, one line for a revision that names no commit."""

from __future__ import annotations

import json

from support.repos import Repo


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
