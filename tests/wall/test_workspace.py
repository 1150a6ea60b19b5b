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
from support.sandbox import AS_YOU, holding

PREFIX = "landwatch-lint-"  # what a workspace's name starts with (wall.workspace)

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


def test_a_workspace_left_by_a_review_ended_mid_run_is_removed_by_the_next(tmp_path: Path) -> None:
    """An audit: a review's worker ended past its budget (or the reviewer killed) left its
    workspace, now with its linters' /tmp and /dev/shm in it, and nothing removed it: each such
    review added to it. The next workspace removes those nobody holds, never a running one's."""
    parent = tmp_path / "linting"
    parent.mkdir(mode=0o700)
    with holding(parent, PREFIX) as (_, held), holding(parent, PREFIX) as (killed, left):
        killed.kill()
        killed.wait()
        assert sorted(parent.iterdir()) == sorted([left, held])
        with workspace({}, AS_YOU, parent) as place:
            assert sorted(parent.iterdir()) == sorted([held, place.root])
        assert list(parent.iterdir()) == [held] and (held / "tmp-left").exists()


def test_a_file_deeper_than_any_project_is_linted_from_stdin_alone(tmp_path: Path) -> None:
    """An audit (attack 101): a pulled commit's file 1,000 directories down, with the person's
    own linter for its kind: writing it made mkdir recurse past Python's limit, and the whole
    review (its secret findings too) failed at every try. Past MOST_DEPTH it is left out of
    the run's tree, as a name that cannot be written is: the linter has it on stdin."""
    deep = "/".join(["d"] * 1000) + "/m.py"
    (tmp_path / "linting").mkdir(mode=0o700)
    with workspace({}, AS_YOU, tmp_path / "linting") as place:
        ran = place.run(("sh", "-c", "find . -type f | wc -l; cat"), deep, b"x = 1\n", timeout=60)
    assert ran.stdout.decode().split() == ["0", "x", "=", "1"]
    assert list((tmp_path / "linting").iterdir()) == []


def test_what_a_run_left_unwritable_and_deep_is_removed(tmp_path: Path) -> None:
    """Attacks 102-103 (an audit): a run that made its directory unwritable (`chmod 555`) left
    it, and a run that made one 1,100 levels deep failed the removal with RecursionError; as
    the person (no capability overriding a file's mode) both are now removed, links never
    followed (files.remove_tree)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "k").write_text("k")
    (tmp_path / "linting").mkdir(mode=0o700)
    script = (
        "mkdir -p junk/a && echo x > junk/a/f && ln -s " + str(kept) + " junk/link && "
        "mkfifo junk/fifo && d=deep && i=0 && while [ $i -lt 1100 ]; do mkdir $d/n 2>/dev/null"
        " || mkdir -p $d; d=$d/n; i=$((i+1)); done; chmod 555 junk/a junk"
    )
    code = (
        "import sys; from pathlib import Path; from landwatch.wall.workspace import workspace; "
        "from support.sandbox import AS_YOU\n"
        f"with workspace({{}}, AS_YOU, Path({str(tmp_path / 'linting')!r})) as place:\n"
        f"    place.run(('sh', '-c', {script!r}), 'm.py', b'', timeout=60)\n"
    )
    person = "-dac_override,-dac_read_search,-fowner"
    tests = str(Path(__file__).resolve().parents[1])
    ran = subprocess.run(
        ["setpriv", f"--inh-caps={person}", f"--bounding-set={person}", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")]),
        },
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert list((tmp_path / "linting").iterdir()) == []
    assert (kept / "k").read_text() == "k"


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
