"""`landwatch ci` under GitHub Actions: the runner runs the workflow commands it reads in what a
step prints, on stdout and stderr; a repository's text (a path, a snippet, an error quoting it)
issues none, since all ci prints is inside the runner's own switch. Elsewhere nothing changes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

# The commands the runner knows (actions/runner's ActionCommandManager and its extensions).
KNOWN = {
    "stop-commands",
    "add-mask",
    "error",
    "warning",
    "notice",
    "debug",
    "group",
    "endgroup",
    "echo",
    "set-output",
    "save-state",
    "add-matcher",
    "remove-matcher",
    "add-path",
    "set-env",
}
# A file name the runner reads as an annotation, and a line it reads as a mask of `error`.
FORGED_NAME = "::error file=README.md,line=1,title=landwatch::all clear"
FORGED_LINE = "<<<<<<< ##[add-mask]error\n"


def run_by_the_runner(lines: list[str]) -> list[str]:
    """The workflow commands GitHub's runner runs in `lines`, as it reads them: `::name ...::` at
    the start (after blanks), else `##[name ...]` anywhere; while stopped, only the resume token
    (ActionCommand.TryParseV2 and TryParse, ActionCommandManager.TryProcessCommand)."""
    known, token, ran = set(KNOWN), "", []
    for line in lines:
        name, data = _command(line, known)
        if name is None:
            continue
        if token:
            if name == token:
                known.discard(token)
                token = ""
                ran.append("(resumed)")
            continue
        if name == "stop-commands":
            token = data.lower()
            known.add(token)
        ran.append(name)
    return ran


def _command(line: str, known: set[str]) -> tuple[str | None, str]:
    trimmed = line.lstrip()
    if trimmed.startswith("::") and (end := trimmed.find("::", 2)) >= 0:
        name = trimmed[2:end].split(" ", 1)[0].lower()
        if name in known:
            return name, trimmed[end + 2 :]
    if (start := line.find("##[")) >= 0 and (end := line.find("]", start)) >= 0:
        name = line[start + 3 : end].split(" ", 1)[0].lower()
        if name in known:
            return name, line[end + 1 :]
    return None, ""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def hostile(tmp_path: Path) -> Path:
    """A repository whose last commit adds a file named as an annotation, holding a mask."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / "README.md").write_text("hi\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "chore: init")
    git(repo, "branch", "base")
    (repo / FORGED_NAME).write_text(FORGED_LINE)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "feat: add notes")
    return repo


def ci(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "landwatch", "ci", *args, "--no-fetch"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **env},
    )


def test_a_repository_s_text_issues_no_workflow_command_under_github_actions(
    tmp_path: Path,
) -> None:
    """An audit: a file named `::error file=README.md,...::all clear` forged an annotation, and
    a snippet holding `##[add-mask]error` masked a word in every later line of the job's log."""
    repo = hostile(tmp_path)
    framed = ci(repo, "base..HEAD", GITHUB_ACTIONS="true")
    assert framed.returncode == 1  # the conflict marker: an error
    lines = framed.stdout.splitlines()
    assert FORGED_NAME in framed.stdout and "##[add-mask]error" in framed.stdout  # still shown
    token = lines[0].removeprefix("::stop-commands::")
    assert re.fullmatch("[0-9a-f]{32}", token) and lines[-1] == f"::{token}::"
    assert run_by_the_runner(lines) == ["stop-commands", "(resumed)"]
    assert framed.stderr == ""  # read apart from stdout, in no set order: nothing there
    # Elsewhere ci prints as it did, without the runner's switch.
    plain = ci(repo, "base..HEAD")
    assert plain.returncode == 1 and "::stop-commands::" not in plain.stdout
    assert run_by_the_runner(plain.stdout.splitlines()) == ["error", "add-mask"]


def test_what_ci_cannot_do_is_said_inside_the_switch(tmp_path: Path) -> None:
    """An error is said after the command's output, where the front door says it: inside the
    switch too (git's words, which may quote the repository, among them)."""
    repo = hostile(tmp_path)
    failed = ci(repo, f"base..{FORGED_NAME}", GITHUB_ACTIONS="true")
    assert failed.returncode == 1 and failed.stderr == ""
    lines = failed.stdout.splitlines()
    assert len(lines) == 3 and lines[1].startswith("landwatch: no commit '::error file=")
    assert run_by_the_runner(lines) == ["stop-commands", "(resumed)"]
