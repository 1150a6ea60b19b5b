"""Reviewing commits in tests: the whole review of a repository's commit or of a change the
builder made (support.changes), and the findings of a report as tuples to compare."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from landwatch.review import engine
from landwatch.review.change import Change
from landwatch.review.linters import NO_LINTERS, LinterPolicy
from landwatch.review.report import Report
from landwatch.wall.linters import runner
from support.repos import Repo
from support.sandbox import AS_YOU

# Two AWS access key ids (well formed, fake, never written whole): findings of S002.
KEY_ID = "AKIA" + "QX7ZR4M2" * 2
OTHER_ID = "AKIA" + "LM3NP5QR" * 2

# Tests of the linters themselves trust whatever a commit configures, and run them without the
# wall, which would hide the files under /tmp they look at (wall/test_sandbox.py's own).
TRUST_ANY = LinterPolicy(vet=lambda digest: None, sandboxed=False, runner=runner(AS_YOU))


def review(
    repo: Repo, revision: str = "HEAD", base: str | None = None, *, linters: bool = False
) -> Report:
    return engine.review(repo.git_dir, revision, base, linters=TRUST_ANY if linters else NO_LINTERS)


def reviewed(change: Change, *, linters: bool = False) -> Report:
    """The whole review of a change the builder made, as the reviewer runs it on a commit."""
    return engine.review(
        change.repo.path, str(change.commit.id), linters=TRUST_ANY if linters else NO_LINTERS
    )


def found(
    report: Report, rule: str | None = None, *, ignore: tuple[str, ...] = ("C002",)
) -> list[tuple[str, str | None, int | None]]:
    """(rule, path, line) of the findings, optionally of one rule (by id or name).

    Tests of other rules leave out C002 (source changed without tests), which most of their
    one-file commits rightly earn.
    """
    return [
        (f.rule, f.path, f.line)
        for f in report.findings
        if (rule is None and f.rule not in ignore) or rule in (f.rule, f.name)
    ]


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


def regex_linter(name: str, command: list[str], pattern: str, files: str, extra: str = "") -> str:
    """A committed linter whose lines `pattern` reads (a TOML literal string: written as the
    regex is), run as `command`; `extra`, more keys of the entry."""
    return (
        textwrap.dedent(f"""\
        [[linters]]
        name = "{name}"
        command = {json.dumps(command)}
        format = "regex"
        pattern = '{pattern}'
        files = ["{files}"]
        """)
        + extra
    )


def tool(name: str) -> str:
    """A linter of the test extra, from the environment running the tests."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


# pylint's parseable lines: `path:line: [C0114(missing-module-docstring), ] message`.
PYLINT_LINE = r"^.*?:(?P<line>\d+): \[(?P<code>[A-Z]\d+)\([^)]*\), [^\]]*\] (?P<message>.*)$"


def pylint_linter(name: str = "pylint") -> str:
    """pylint on the file it is given by path (it reads the file, not stdin), as people
    configure it."""
    command = [tool("pylint"), "--output-format=parseable", "{path}"]
    return textwrap.dedent(f"""\
        [[linters]]
        name = "{name}"
        command = {json.dumps(command)}
        format = "regex"
        pattern = {json.dumps(PYLINT_LINE)}
        files = ["*.py"]
        filter = "file"
        """)


def reviewed_apart(repo: Repo, *, linters: bool = False) -> Report:
    """The review of HEAD (with the linters trusted, where `linters`), in a process of its own
    stopped past two minutes: a hang (a pattern's backtracking, a FIFO opened) fails the test,
    where in this process it would hold the run. Each case that uses it takes milliseconds."""
    policy = "TRUST_ANY" if linters else "NO_LINTERS"
    code = (
        "import json, sys; from landwatch.review import engine; "
        f"from support.review import {policy}; "
        f"print(json.dumps(engine.review({str(repo.git_dir)!r}, 'HEAD', "
        f"linters={policy}).as_dict()))"
    )
    tests = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("the review did not end within two minutes") from None
    assert done.returncode == 0, done.stderr
    return Report.from_dict(json.loads(done.stdout))
