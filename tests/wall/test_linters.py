"""The linters a review allowed, run (wall.linters): each in a workspace of its own outside every
worktree, with no GIT_* of the caller, stopped with all it started past its timeout; the review's
policy carries the runner, and without one nothing runs."""

from __future__ import annotations

import json
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from landwatch import layout, report_store
from landwatch.review import engine
from landwatch.review.linters import LinterPolicy
from support.daemon import process_gone, run_reviewer, wait_for
from support.repos import Repo
from support.review import found, regex_linter, review, tool

# shellcheck's gcc format: `path:line:column: level: message [SCnnnn]`.
SHELLCHECK_LINE = r"^[^:]*:(?P<line>\d+):\d+: \w+: (?P<message>.*) \[(?P<code>SC\d+)\]$"


def test_linters_run_outside_the_worktree_without_git_variables(repo: Repo) -> None:
    script = (
        "import os,json,sys; sys.stdin.read(); print(json.dumps([{'code':'E1','message':"
        "os.getcwd()+' '+','.join(k for k in os.environ if k.startswith('GIT_')),"
        "'location':{'row':1}}]))"
    )
    repo.land(
        "change",
        {
            ".landwatch.toml": '[[linters]]\nname = "env"\n'
            f'command = [{json.dumps(sys.executable)}, "-c", {json.dumps(script)}]\n'
            'format = "ruff-json"\nfiles = ["*.py"]\n',
            "x.py": "x = 1\n",
        },
        hooks=False,
    )
    [finding] = [f for f in review(repo, linters=True).findings if f.rule == "env:E1"]
    cwd, _, git_vars = finding.message.partition(" ")
    assert not Path(cwd).resolve().is_relative_to(repo.path.resolve()) and git_vars == ""


def test_a_linter_past_its_timeout_is_stopped_with_all_it_started(
    repo: Repo, tmp_path: Path
) -> None:
    """Its workers keep its pipes open: the review neither waits for them nor leaves them."""
    pids = tmp_path / "pids"
    script = f"sleep 300 & echo $! > {pids}; cat > /dev/null; wait"
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "forks"
        command = ["sh", "-c", {json.dumps(script)}]
        format = "ruff-json"
        timeout = 0.5
        """)
    repo.land("change", {".landwatch.toml": config, "m.py": "x = 1\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert {run["status"] for run in report_.linters} == {"timeout"}
    wait_for(lambda: process_gone(int(pids.read_text())), "the linter's worker to be stopped")


def test_a_policy_without_a_runner_runs_nothing(repo: Repo, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "canary"
        command = ["sh", "-c", "touch {ran}; cat > /dev/null; echo '[]'"]
        format = "ruff-json"
        """)
    repo.land("change", {".landwatch.toml": config, "m.py": "x = 1\n"}, hooks=False)
    report_ = engine.review(repo.git_dir, "HEAD", linters=LinterPolicy(vet=lambda digest: None))
    assert report_.linters == [] and not ran.exists()
    assert found(report_) == []


def test_a_file_s_name_is_never_shell_code_in_the_person_s_own_linter(
    tmp_path: Path, repo: Repo
) -> None:
    """The audit's: the person's own linter written through a shell, which runs in every
    repository without trust (here as the person: no wall, as on macOS or without bubblewrap),
    and a committed file whose name is a command. `{path}` within the script was pasted in as
    it was, and the shell ran the name; quoted, it is the file shellcheck reads."""
    marker = tmp_path / "ran-by-a-file-name"
    script = f"{tool('shellcheck')} --format=gcc {{path}} || true"
    own = layout.OWN_CONFIG.path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(
        textwrap.dedent(f"""\
            [[linters]]
            name = "shellcheck"
            command = ["sh", "-c", {json.dumps(script)}]
            format = "regex"
            pattern = {json.dumps(SHELLCHECK_LINE)}
            files = ["*.sh"]
            """)
    )
    name = f"lib/x$(touch${{IFS}}{marker}).sh"
    oid = repo.land("a script", {name: "#!/bin/sh\necho $1\n"})
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None
    assert not marker.exists()
    assert [(f.rule, f.path) for f in stored.findings if f.rule.startswith("shellcheck")] == [
        ("shellcheck:SC2086", name)
    ], stored.linters


def test_a_linter_that_fails_or_is_not_there_is_not_a_clean_run(repo: Repo) -> None:
    """An audit: ruff refusing the project's configuration (a misspelt key: exit 2, nothing on
    stdout) read as an empty list, and a command the wall cannot find as well: each was told
    `ok`, no findings, so the unused import went untold. Each now says what happened."""
    ruff = [tool("ruff"), "check", "--no-fix", "--output-format=json"]
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "ruff"
        command = {json.dumps([*ruff, "--stdin-filename", "{path}", "-"])}
        format = "ruff-json"
        files = ["*.py"]

        [[linters]]
        name = "gone"
        command = ["no-such-linter-anywhere", "{{path}}"]
        format = "ruff-json"
        files = ["*.py"]
        """)
    settings = '[lint]\nselect = ["F"]\nextend-selct = ["B"]\n'
    repo.land("change", {".landwatch.toml": config, "ruff.toml": settings, "m.py": "import os\n"})
    runs = {run["linter"]: run for run in review(repo, linters=True).linters}
    assert runs["ruff"]["status"] == "failed" and "extend-selct" in runs["ruff"]["detail"]
    assert runs["ruff"]["detail"].startswith("exited 2: ruff failed")
    assert runs["gone"]["status"] == "missing" and "no-such-linter" in runs["gone"]["detail"]
    # A run that exits 1 with its findings is the linter's answer, as it always was.
    repo.land("fixed", {"ruff.toml": '[lint]\nselect = ["F"]\n'}, hooks=False)
    report_ = review(repo, "HEAD", repo.git("rev-parse", "HEAD~2"), linters=True)
    ran = {run["linter"]: run["status"] for run in report_.linters}
    assert ran["ruff"] == "ok" and "ruff:F401" in {finding.rule for finding in report_.findings}


def test_the_documented_ruff_linter_keeps_ruff_s_own_exclude(repo: Repo) -> None:
    """An audit: configuration.md's ruff command (`--stdin-filename {path} -`) linted a path
    the project's `extend-exclude` leaves out, where `ruff check .` and pre-commit's ruff hook
    say nothing: ruff applies its exclude to a path it is given only with --force-exclude."""
    page = (Path(__file__).parents[2] / "docs" / "configuration.md").read_text()
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    command = tomllib.loads(example)["linters"][0]["command"]
    assert command[0] == "ruff"
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "ruff"
        command = {json.dumps([tool("ruff"), *command[1:]])}
        format = "ruff-json"
        files = ["*.py"]
        """)
    settings = 'extend-exclude = ["migrations"]\n[lint]\nselect = ["F"]\n'
    files = {".landwatch.toml": config, "ruff.toml": settings}
    repo.land("change", {**files, "migrations/m1.py": "import os\n", "app.py": "import os\n"})
    report_ = review(repo, linters=True)
    assert {(f.path, f.rule) for f in report_.findings if f.rule.startswith("ruff:")} == {
        ("app.py", "ruff:F401")
    }


def test_a_grep_linter_s_clean_file_is_a_clean_run(repo: Repo) -> None:
    """A round-1 audit of the above: grep exits 1 where nothing matches, saying nothing, so
    every clean file of a grep linter was `failed`. A run that names nothing and says nothing
    is the linter's answer; one that says why it failed is not."""
    grep = ["grep", "-Hn", "--label=-", "TODO"]
    config = regex_linter("todo", grep, r"^-:(?P<line>\d+):(?P<message>.*)$", "*.py")
    repo.land("change", {".landwatch.toml": config, "clean.py": "x = 1\n", "dirty.py": "# TODO\n"})
    report_ = review(repo, linters=True)
    assert {run["path"]: run["status"] for run in report_.linters} == {
        "clean.py": "ok",
        "dirty.py": "ok",
    }
    assert [(f.path, f.rule) for f in report_.findings if f.rule.startswith("todo")] == [
        ("dirty.py", "todo")
    ]


@pytest.mark.parametrize(
    ("script", "detail"),
    [
        ("kill -SEGV $$", "killed by signal 11"),
        ("cat > /dev/null; echo '1 first of many'; kill -KILL $$", "killed by signal 9"),
        ("cat > /dev/null; echo 'x.py:1: unused'; exit 1", "exited 1: x.py:1: unused"),
    ],
)
def test_a_linter_that_crashes_or_whose_output_reads_as_nothing_is_no_clean_run(
    repo: Repo, script: str, detail: str
) -> None:
    """A round-2 audit: once a failure had to say why on stderr, a linter killed by a signal
    (saying nothing) and one exiting 1 with lines its pattern does not read were clean runs."""
    config = regex_linter("lint", ["sh", "-c", script], r"^(?P<line>\d+) (?P<message>.*)$", "*.py")
    repo.land("change", {".landwatch.toml": config, "x.py": "x = 1\n"})
    [run] = review(repo, linters=True).linters
    assert run["status"] == "failed" and run["detail"].startswith(detail), run
