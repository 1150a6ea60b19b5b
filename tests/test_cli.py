"""The front door (cli, and `python -m landwatch`): it answers as `landwatch` and as `git
landwatch`, every command and option has its help, a bad value exits 2 naming the option, and a
reader that went away ends a command quietly."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from landwatch import __version__, cli, usage
from landwatch.__main__ import plain_show
from support.daemon import run_reviewer
from support.repos import Repo


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"landwatch {__version__}"
    assert cli.main([]) == 0
    assert "usage: landwatch" in capsys.readouterr().out


def test_git_finds_git_landwatch_on_path(tmp_path: Path) -> None:
    script = shutil.which("git-landwatch", path=str(Path(sys.executable).parent))
    assert script is not None, "the git-landwatch console script is not installed"
    env = {**os.environ, "PATH": f"{Path(script).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["git", "landwatch", "-h"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: git landwatch")


def test_python_dash_m(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "landwatch", "--version"], capture_output=True, text=True
    )
    assert result.stdout.strip() == f"landwatch {__version__}"


@pytest.mark.parametrize("command", [["rules", "--markdown"], ["rules"], ["--help"]])
def test_a_reader_that_went_away_ends_the_command_quietly(command: list[str]) -> None:
    reading, writing = os.pipe()
    os.close(reading)  # `| head` that already has its lines
    try:
        ended = subprocess.run(
            [sys.executable, "-m", "landwatch", *command], stdout=writing, stderr=subprocess.PIPE
        )
    finally:
        os.close(writing)
    assert ended.stderr == b""
    assert ended.returncode == (0 if command == ["--help"] else 1)  # help: argparse's, at exit


def test_every_command_and_option_has_help_and_notice_stays_hidden() -> None:
    parser = cli.build_parser()
    top = parser.format_help()
    assert "SUPPRESS" not in top and "notice" not in top
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in subparsers.choices.items():
        if name == "notice":
            continue
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert all(sub.description for sub in action.choices.values()), name
                continue
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


@pytest.mark.parametrize(
    "args",
    [
        ["reviewer", "--lease", "-5"],
        ["reviewer", "--lease", "0"],
        ["reviewer", "--lease", "nan"],
        ["reviewer", "--max-tries", "-1"],
        ["reviewer", "--rescan", "0"],
        ["reviewer", "--grace", "inf"],
    ],
)
def test_bad_values_exit_2_naming_the_option(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(args)
    assert exited.value.code == 2
    assert f"argument {args[1]}" in capsys.readouterr().err


@pytest.mark.parametrize("written", ["0", "0.0", "00", "-0"])
def test_a_grace_of_nothing_is_zero_however_it_is_written(written: str) -> None:
    assert usage.grace_seconds(written) == 0.0
    with pytest.raises(argparse.ArgumentTypeError):
        usage.grace_seconds("-1")


def test_the_reviewer_takes_a_handler_by_its_first_option_name_too() -> None:
    parser = cli.build_parser()
    spec = "review=support.handlers:Noop"
    for option in ("--handler", "--kind"):
        assert parser.parse_args(["reviewer", option, spec]).handlers == [spec]
    assert "--kind" not in parser.parse_args(["reviewer"]).__dict__
    reviewer_help = help_of("reviewer")
    assert "--handler KIND=MODULE:CLASS" in reviewer_help and "--kind" not in reviewer_help


def help_of(command: str) -> str:
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return str(subparsers.choices[command].format_help())


def test_every_command_s_help_says_what_it_is_for_with_examples_in_80_columns() -> None:
    listed = next(
        a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    env = {**os.environ, "COLUMNS": "80"}
    for name in [None, *(choice.dest for choice in listed._choices_actions)]:
        asked = [sys.executable, "-m", "landwatch", *([name] if name else []), "--help"]
        shown = subprocess.run(asked, capture_output=True, text=True, env=env)
        assert shown.returncode == 0 and shown.stderr == "", shown.stderr
        lines = shown.stdout.splitlines()
        assert all(len(line) <= 80 for line in lines), shown.stdout
        if name is None:
            assert "quick start, in a repository:" in lines, shown.stdout
            continue
        said = lines[lines.index("") + 1]  # after the usage, what the command is for
        assert said[:1].isupper() and said.endswith("."), f"{name}: {said!r}"
        examples = lines[lines.index("examples:") + 1 :]
        # Each example a line saying what, then what to type: landwatch with real options.
        typed = [line.strip() for line in examples if not line.lstrip().startswith("#")]
        assert examples and examples[0].lstrip().startswith("# "), name
        tried = [line for line in typed if line.startswith("landwatch")]
        assert tried and all(line.split()[1] == name for line in tried), name
        for line in tried:
            words = line.split(">")[0].split()[1:]
            with contextlib.redirect_stdout(io.StringIO()):
                assert cli.build_parser().parse_args(words).command == name, line


def _imported(*asked: str, cwd: Path | None = None) -> tuple[str, set[str]]:
    """What `landwatch ASKED` printed (run in `cwd`), and every module it imported."""
    ran = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "landwatch", *asked],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout, {line.rpartition("|")[2].strip() for line in ran.stderr.splitlines()}


def test_help_does_not_import_the_completion_library() -> None:
    for asked in (["--help"], ["show", "--help"]):
        _, imported = _imported(*asked)
        assert "landwatch.cli" in imported and "shtab" not in imported, asked


def test_the_version_is_said_before_the_parser_or_anything_heavy_is_imported() -> None:
    said, imported = _imported("--version")
    assert said == f"landwatch {__version__}\n"
    heavy = {
        "argparse",
        "landwatch.cli",
        "landwatch.layout",
        "pygit2",
        "rich",
        "dataclasses",
        "typing",
    }
    assert imported & heavy == set()


def test_plain_show_and_status_are_answered_without_the_parser(repo: Repo) -> None:
    """Issue 40: `landwatch show` and `landwatch status`, as typed most, import neither argparse
    nor the command line (about 7 ms of each); anything else still goes to the parser."""
    repo.land("one", {"a.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    for asked in (["show"], ["show", "HEAD", "--json"], ["status"], ["status", "--json"]):
        _, imported = _imported(*asked, cwd=repo.path)
        assert imported & {"argparse", "landwatch.cli"} == set(), asked
    _, imported = _imported("show", "--jso", "--help")
    assert "argparse" in imported


# The words a `show` command line is made of, for plain_show's property below.
SHOW_WORDS = ["HEAD", "a", "", "x y", "--json", "--sarif", "--patch", "--unread", "--jso", "-"]


@given(st.lists(st.sampled_from([*SHOW_WORDS, "--", "-h", "--unr"]), max_size=4))
def test_a_plain_show_is_read_as_its_parser_reads_it(words: list[str]) -> None:
    """What the front door answers without the parser is exactly what the parser would run:
    the same REV, --unread and form; what the parser alone can read (or refuse) goes to it."""
    plain = plain_show(words)
    if plain is None:
        return
    with contextlib.redirect_stderr(io.StringIO()):
        parsed = cli.build_parser().parse_args(["show", *words])
    assert (parsed.revision, parsed.unread, parsed.form) == plain


def test_a_plain_show_is_taken_in_the_forms_people_type() -> None:
    assert plain_show([]) == (None, False, "text")
    assert plain_show(["HEAD~1", "--json"]) == ("HEAD~1", False, "json")
    assert plain_show(["--unread", "--sarif"]) == (None, True, "sarif")
    for handed_on in (["--jso"], ["--json", "--json"], ["a", "b"], ["--json", "--sarif"], ["--"]):
        assert plain_show(handed_on) is None, handed_on


def test_what_a_command_is_told_where_it_cannot_work_names_the_real_reason(tmp_path: Path) -> None:
    """Messages that misled (issue 39): each says what is wrong where it is, with its exit."""

    def landwatch(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        asked = [sys.executable, "-m", "landwatch", *args]
        return subprocess.run(asked, cwd=cwd, capture_output=True, text=True)

    outside = tmp_path / "nowhere"
    outside.mkdir()
    enqueued = landwatch(outside, "enqueue", "HEAD")
    assert enqueued.returncode == 1
    assert "is not in a git repository: enqueue records a commit of the repository" in (
        enqueued.stderr
    )
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    removed = landwatch(bare, "uninstall")
    assert removed.returncode == 1 and "install landwatch in a clone" not in removed.stderr
    assert "is a bare repository" in removed.stderr and "nothing to uninstall" in removed.stderr
    trusted = landwatch(bare, "trust")
    assert trusted.returncode == 1 and "no commit" not in trusted.stderr
    assert "is a bare repository: nothing lands there" in trusted.stderr
    # An option a command does not know: that command's usage, exit 2.
    shown = landwatch(outside, "show", "--jsn")
    assert shown.returncode == 2
    assert shown.stderr.startswith("usage: landwatch show ")
    assert "landwatch show: error: unrecognized arguments: --jsn" in shown.stderr


# --- exit statuses (README, "Exit codes"): 1 when a command could not, 2 for a command line ---

# Where a case runs: a directory in no repository, a bare repository, a repository landwatch is
# installed in, one whose first commit's tree is gone, and `state` (the installed repository with
# the state directory a file, where nothing of landwatch's state can be made).
COULD_NOT = [
    ("outside", ["install"], "is not in a git repository"),
    ("bare", ["install"], "is a bare repository"),
    ("bare", ["uninstall"], "nothing to uninstall"),
    ("outside", ["enqueue"], "is not in a git repository"),
    ("repo", ["enqueue", "nosuch"], "no commit 'nosuch'"),
    ("repo", ["review", "nosuch"], "no commit 'nosuch'"),
    ("corrupt", ["review", "HEAD"], "git fsck names what is missing"),
    ("outside", ["show"], "not a git repository"),
    ("repo", ["show", "nosuch"], "no commit 'nosuch'"),
    ("repo", ["allow", "nosuch", "--reason", "false-positive"], "is neither the fingerprint"),
    ("outside", ["share"], "not a git repository"),
    ("corrupt", ["share"], "landwatch is not installed here"),
    ("outside", ["ci"], "not a git repository"),
    ("repo", ["ci"], "cannot tell origin's default branch"),
    ("repo", ["ci", "nosuch..HEAD"], "no commit 'nosuch'"),
    ("corrupt", ["ci", "HEAD"], "git fsck names what is missing"),
    ("outside", ["rules", "--explain"], "not a git repository"),
    ("bare", ["trust"], "is a bare repository"),
    ("repo", ["retry", "--all"], "nothing given up to retry here"),
    ("repo", ["retry", "nosuch"], "no commit 'nosuch'"),
    ("outside", ["forget", "."], "is not registered"),
    ("state", ["reviewer", "--once"], "Not a directory"),
    ("broken", ["install"], "git cannot read the repository at "),
    ("broken", ["enqueue"], "bad config line"),
    ("broken", ["uninstall"], "git cannot read the repository at "),
]


@pytest.fixture
def places(tmp_path: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Each place a case runs in: its directory and what its environment changes."""
    from support.repos import Repo, installed

    outside = tmp_path / "nowhere"
    outside.mkdir()
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    corrupt = Repo(tmp_path / "corrupt")
    first = corrupt.git("rev-parse", "HEAD^{tree}")
    corrupt.land("second", "other", hooks=False)
    (corrupt.git_dir / "objects" / first[:2] / first[2:]).unlink()  # loose, never packed
    state = tmp_path / "state-is-a-file"
    state.write_text("")
    broken = Repo(tmp_path / "broken")
    with (broken.git_dir / "config").open("a") as config:
        config.write("[core\nbad")
    repo = installed(tmp_path / "repo").path
    return {
        "outside": (outside, {}),
        "bare": (bare, {}),
        "repo": (repo, {}),
        "corrupt": (corrupt.path, {}),
        "state": (repo, {"XDG_STATE_HOME": str(state)}),
        "broken": (broken.path, {}),
    }


def _landwatch(place: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    cwd, env = place
    asked = [sys.executable, "-m", "landwatch", *args]
    return subprocess.run(
        asked, cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, check=False
    )


@pytest.mark.parametrize(
    ("where", "args", "said"), COULD_NOT, ids=[f"{w}: {' '.join(a)}" for w, a, _ in COULD_NOT]
)
def test_a_command_that_could_not_exits_1_saying_why_in_one_line(
    places: dict[str, tuple[Path, dict[str, str]]], where: str, args: list[str], said: str
) -> None:
    ran = _landwatch(places[where], *args)
    assert ran.returncode == 1, ran.stderr
    assert "is not in a git repository" not in ran.stderr or where == "outside"
    assert ran.stderr.startswith("landwatch") and ran.stderr.count("\n") == 1, ran.stderr
    assert said in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["show", "--jsn"],  # argparse's own
        ["retry"],  # what argparse cannot tell: options that do not go together, or none
        ["show", "HEAD", "--unread"],
        ["uninstall", "--yes"],
        ["share", "--off", "origin"],
        ["enqueue", "--kind", "Not A Kind"],
        ["ci", "a...b"],
    ],
)
def test_a_command_line_not_understood_exits_2_with_the_command_s_usage(
    places: dict[str, tuple[Path, dict[str, str]]], args: list[str]
) -> None:
    ran = _landwatch(places["repo"], *args)
    assert ran.returncode == 2
    assert ran.stderr.startswith(f"usage: landwatch {args[0]} ")
    assert f"\nlandwatch {args[0]}: error: " in ran.stderr and "Traceback" not in ran.stderr


def test_a_command_s_run_builds_its_own_parser_alone_and_the_same_one() -> None:
    """Issue 40: a run makes one command's parser, not all of them; it is the very parser the
    whole command line has (its help, option for option), and what no command names (an option
    first, a mistake) gets the whole line."""

    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return dict(action.choices)

    whole = subparsers(cli.build_parser())
    for name, full in whole.items():
        alone = subparsers(cli.build_parser("landwatch", name))
        assert list(alone) == [name]
        assert alone[name].format_help() == full.format_help(), name
    assert cli._command_asked(["--help"]) is None and cli._command_asked(["nosuch"]) is None
    assert cli._command_asked(["status", "--json"]) == "status"
