"""Where and how a linter runs (wall.workspace): a directory of its own per run holding what it
is given and the file it lints, nothing else; `./path`; Python kept from importing what is in
that directory; the environment scrubbed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch.wall.workspace import command_line, scrubbed_environment, workspace
from support.sandbox import AS_YOU

# Lists every file in its working directory (and where that is), one a line.
LISTING = ["sh", "-c", "pwd >&2; find . -type f | sort"]


def test_a_run_holds_what_it_is_given_and_the_file_it_lints(tmp_path: Path) -> None:
    given = {"pyproject.toml": b"[tool.ruff]\n", "tools/plugin.py": b"pass\n"}
    (tmp_path / "linting").mkdir(mode=0o700)
    with workspace(given, AS_YOU, tmp_path / "linting") as place:
        ran = place.run(tuple(LISTING), "sub/m.py", b"x = 1\n", timeout=60)
        assert ran.stdout.decode().split() == [
            "./pyproject.toml",
            "./sub/m.py",
            "./tools/plugin.py",
        ]
        where = Path(ran.stderr.decode().strip())
        assert where.is_relative_to((tmp_path / "linting").resolve())
        assert not where.exists()  # each run's directory goes with it
        # A file a tool would read as its configuration or as code is on stdin only.
        for path in ("sub/.pylintrc", "eslint.config.js", "conftest.py", ".npmrc"):
            alone = place.run(tuple(LISTING), path, b"x\n", timeout=60)
            assert f"./{path}" not in alone.stdout.decode().split()
        # ...unless it is pinned: then it is there as trusted (the linted content is the same).
        pinned = place.run(tuple(LISTING), "pyproject.toml", b"[tool.ruff]\n", timeout=60)
        assert pinned.stdout.decode().split()[0] == "./pyproject.toml"
    assert list((tmp_path / "linting").iterdir()) == []


def test_what_one_run_writes_the_next_never_reads(tmp_path: Path) -> None:
    with workspace({}, AS_YOU, None) as place:
        place.run(("sh", "-c", "echo planted > .pylintrc"), "a.py", b"", timeout=60)
        after = place.run(tuple(LISTING), "b.py", b"", timeout=60)
    assert after.stdout.decode().split() == ["./b.py"]


def test_a_path_is_never_an_option_and_python_never_imports_its_directory() -> None:
    assert command_line(("pylint", "{path}", "--x={path}"), "--init-hook=x.py") == [
        "pylint",
        "./--init-hook=x.py",
        "--x=./--init-hook=x.py",
    ]
    assert command_line(("python3", "-m", "ruff", "{path}"), "m.py")[:3] == ["python3", "-I", "-m"]
    assert command_line(("/usr/bin/python3.9", "-m", "x"), "m.py")[1] == "-I"
    assert command_line(("pypy3", "-I", "-m", "x"), "m.py").count("-I") == 1
    assert command_line(("ruff", "-"), "m.py") == ["ruff", "-"]


# Names a shell would read as code, or split, or expand, were they pasted into its script.
SHELL_NAMES = ("x$(id).sh", "a b.sh", "it's.sh", "`id`.sh", "x;id.sh", "$HOME.sh", "*", "a\nb.sh")


def test_a_path_within_a_shell_script_is_the_file_s_name_never_code() -> None:
    """`{path}` as a whole argument is the path as it is; within a longer one it is quoted for
    a shell, which then reads back the very name: what `sh -c "linter {path}"` needs."""
    for name in SHELL_NAMES:
        assert command_line(("shellcheck", "{path}"), name) == ["shellcheck", f"./{name}"]
        argv = command_line(("sh", "-c", "printf %s {path}"), name)
        said = subprocess.run(argv, capture_output=True, check=True, timeout=60)
        assert said.stdout.decode() == f"./{name}", argv
    assert command_line(("sh", "-c", "shellcheck {path} || true"), "lib/x$(id).sh") == [
        "sh",
        "-c",
        "shellcheck './lib/x$(id).sh' || true",
    ]


def test_a_python_m_linter_imports_the_real_module_not_the_linted_file(tmp_path: Path) -> None:
    """The linted file is named `json.py`, beside the linter, which imports json."""
    script = "import json, sys; print(json.__file__)"
    planted = b"raise SystemExit('the linted file was imported')\n"
    with workspace({}, AS_YOU, None) as place:
        direct = place.run((sys.executable, "-c", script), "json.py", planted, timeout=60)
        wrapped = f"exec {sys.executable} -c {json.dumps(script)}"
        indirect = place.run(("sh", "-c", wrapped), "json.py", planted, timeout=60)
    for ran in (direct, indirect):
        assert ran.returncode == 0, ran.stderr
        assert Path(ran.stdout.decode().strip()).parent.name != "tree"


def test_the_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/somewhere")
    monkeypatch.setenv("PYTHONPATH", "/planted")
    kept = scrubbed_environment()
    assert "GIT_DIR" not in kept and kept["PYTHONSAFEPATH"] == "1"
    assert kept["HOME"] == os.environ["HOME"] and "PYTHONPATH" not in kept
