"""The tests mirror the package: every module under src/landwatch has a test file of its own at
the mirrored path (tests/<room path>/test_<module>.py; a package's __init__ is test_<package>.py
in its directory), unless EXCEPTIONS names the test file that covers it and says why; and every
test file mirrors a module, unless WHOLES says what whole it tests. Both tables stay short and
true: an entry that no longer holds is a failure too."""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path, PurePosixPath

from support import ROOT

SRC = ROOT / "src" / "landwatch"
TESTS = ROOT / "tests"

# Modules (their path under src/landwatch, without .py) with no test file of their own: the test
# file that covers each, and why it has none.
EXCEPTIONS: dict[str, tuple[str, str]] = {
    "__main__": (
        "tests/commands/test_prompt.py",
        "the front door: `landwatch prompt` answered before the parser is imported (test_prompt "
        "runs it as a person does, and looks at what it imported), as is the hooks' `landwatch "
        "notice` (test_notice, through the hooks), the plain forms of show and status "
        "(test_cli: what they import, plain_show against the parser), anything else handed to "
        "cli.main (test_cli's test_python_dash_m)",
    ),
    "commands/__init__": (
        "tests/test_architecture.py",
        "a docstring and nothing else; the architecture test reads it like every module",
    ),
    "daemon/__init__": (
        "tests/test_architecture.py",
        "a docstring and nothing else; the architecture test reads it like every module",
    ),
    "review/__init__": (
        "tests/test_architecture.py",
        "a docstring and nothing else; the architecture test reads it like every module",
    ),
    "wall/project_hooks/__init__": (
        "tests/test_architecture.py",
        "a docstring and nothing else; the architecture test reads it like every module",
    ),
    "review/project_hooks/__init__": (
        "tests/test_architecture.py",
        "a docstring and nothing else; the architecture test reads it like every module",
    ),
    "review/secrets/__init__": (
        "tests/review/test_report.py",
        "a docstring that imports nothing, so that reading a report compiles no detector: "
        "test_reading_a_report_imports_the_redactor_but_no_detector checks exactly that",
    ),
    "commands/ci_range": (
        "tests/commands/test_ci.py",
        "what `landwatch ci` reviews, apart from commands.ci for its size: test_ci runs ci on "
        "ranges as a CI job names them (pre-commit's refs, none, A..B, one that is no range)",
    ),
    "layout/user_places": (
        "tests/layout/test_places.py",
        "the per-user places, apart from layout.places for its size: test_places checks every "
        "place, these among them (their paths, the docs listing each)",
    ),
    "usage": (
        "tests/test_cli.py",
        "the help texts and examples cli.py shows: test_cli reads every command's --help as a "
        "person does, in 80 columns, and parses each example's command line",
    ),
    "daemon/landings": (
        "tests/daemon/test_sweep.py",
        "what one reflog entry lands, apart from daemon.sweep for its size: test_sweep writes "
        "each kind of entry as git writes it and sweeps it as the reviewer does",
    ),
    "kinds/push_branch": (
        "tests/kinds/test_push.py",
        "which branch an auto-push sends, apart from kinds.push for its size: test_push lands "
        "commits on branches made since, on a detached HEAD and beside a tag of the same name, "
        "and pushes them as the reviewer does",
    ),
    "daemon/watched": (
        "tests/daemon/test_watch.py",
        "watchdog's handlers, which only poke the loop: what each event means is seen as the "
        "watcher wakes a real reviewer for a landing and for a new worktree",
    ),
}

# Test files (globs under the checkout) that mirror no module: the whole each one tests.
WHOLES: dict[str, str] = {
    "tests/githooks/test_*.py": "githooks/hook.sh, as git runs it at every kind of landing",
    "tests/bench/test_*.py": "bench/, the bench's own consumer of the queue",
    "tests/test_install_script.py": "install.sh, as a person runs it",
    "tests/test_architecture.py": "the import flow and docs/architecture.md, over every module",
    "tests/test_sizes.py": "the size of every module and function",
    "tests/test_records.py": "how every module spells a record nothing changes once made",
    "tests/test_mirror.py": "this mirror, over every module and test file",
    "tests/work_item/test_crash.py": "the queue as a whole, killed after every file-system step",
    "tests/work_item/test_model.py": "the queue as a whole, against a model, step by step",
    "tests/work_item/test_soak.py": "the queue as a whole, raced by processes killed at random",
    "tests/kinds/test_a_new_kind.py": "a kind declared in the tests alone, from enqueue to settle",
    "tests/review/test_rules_as_data.py": "what the engine knows of a rule, over the review",
    "tests/commands/test_pre_push_input.py": "pre-push's stdin as git writes it, from the hook's "
    "quick path through the gate",
    "tests/commands/test_pre_push_many.py": "a push of thousands of refs, from the hook's quick "
    "path to the Python gate",
    "tests/review/test_support_changes.py": "the tests' own change builder (support/changes.py)",
    "tests/review/secrets/test_linear.py": "every secret detector's time, on adversarial lines",
    "tests/test_team.py": "a team of three developers sharing their reviews, each with a reviewer",
    "tests/test_team_notes.py": "a team's shared notes, forged and private, tried as an attacker",
    "tests/test_pre_commit_hooks.py": ".pre-commit-hooks.yaml, as pre-commit reads it",
}


def mirrored(module: str) -> str:
    """The test file of `module` (its path under src/landwatch): `commands/show.py` ->
    `tests/commands/test_show.py`; a package's `kinds/__init__.py` -> `tests/kinds/test_kinds.py`;
    the package's own `__init__.py` -> `tests/test_landwatch.py`."""
    path = PurePosixPath(module)
    name = path.stem
    if name == "__init__":
        name = path.parent.name or SRC.name
    return str(PurePosixPath("tests", path.parent, f"test_{name}.py"))


def problems(
    modules: Iterable[str],
    tests: Collection[str],
    exceptions: Mapping[str, tuple[str, str]],
    wholes: Mapping[str, str],
) -> list[str]:
    """Every way `modules` (paths under src/landwatch) and `tests` (test files under the
    checkout) fail to mirror each other, given the two tables; empty when they do."""
    found = []
    modules = sorted(modules)
    keys = {module.removesuffix(".py"): module for module in modules}
    for module in modules:
        key, own = module.removesuffix(".py"), mirrored(module)
        if key not in exceptions:
            if own not in tests:
                found.append(f"src/landwatch/{module} has no test file of its own: {own}")
        elif own in tests:
            found.append(f"src/landwatch/{module} is in EXCEPTIONS but has {own} of its own")
    for key, (covered_by, why) in sorted(exceptions.items()):
        if key not in keys:
            found.append(f"EXCEPTIONS names {key}, which is no module of src/landwatch")
        elif covered_by not in tests or not why:
            found.append(f"EXCEPTIONS says {covered_by} covers {key}: no such test file, or no why")
    owned = {mirrored(module) for module in modules}
    for test in sorted(tests):
        if test not in owned and not any(fnmatch.fnmatchcase(test, glob) for glob in wholes):
            found.append(f"{test} mirrors no module of src/landwatch and is in no table of wholes")
    for glob in sorted(wholes):
        matched = [test for test in tests if fnmatch.fnmatchcase(test, glob)]
        if not matched or any(test in owned for test in matched):
            found.append(f"WHOLES names {glob}: it must match test files that mirror no module")
    return found


def source_modules() -> list[str]:
    return sorted(str(path.relative_to(SRC).as_posix()) for path in SRC.rglob("*.py"))


def checked_test_files() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT).as_posix())
        for path in TESTS.rglob("test_*.py")
        if "support" not in path.relative_to(TESTS).parts
    )


def test_every_module_has_a_test_file_and_every_test_file_a_module() -> None:
    found = problems(source_modules(), checked_test_files(), EXCEPTIONS, WHOLES)
    assert found == [], "\n".join(found)


def test_the_mirror_of_each_kind_of_module() -> None:
    assert mirrored("git.py") == "tests/test_git.py"
    assert mirrored("commands/show.py") == "tests/commands/test_show.py"
    assert mirrored("work_item/claims.py") == "tests/work_item/test_claims.py"
    assert mirrored("kinds/__init__.py") == "tests/kinds/test_kinds.py"
    assert mirrored("review/secrets/redaction.py") == "tests/review/secrets/test_redaction.py"
    assert mirrored("__init__.py") == "tests/test_landwatch.py"


def test_the_check_catches_a_module_without_tests_and_a_test_of_no_module() -> None:
    modules = ["__init__.py", "__main__.py", "cli.py", "commands/show.py", "kinds/__init__.py"]
    tests = [
        "tests/test_landwatch.py",
        "tests/test_cli.py",
        "tests/kinds/test_kinds.py",
        "tests/test_stray.py",
        "tests/githooks/test_events.py",
    ]
    exceptions = {"__main__": ("tests/test_cli.py", "two lines")}
    wholes = {"tests/githooks/test_*.py": "the hook"}
    assert problems(modules, tests, exceptions, wholes) == [
        "src/landwatch/commands/show.py has no test file of its own: tests/commands/test_show.py",
        "tests/test_stray.py mirrors no module of src/landwatch and is in no table of wholes",
    ]
    fixed = [*tests[:3], "tests/commands/test_show.py", "tests/githooks/test_events.py"]
    assert problems(modules, fixed, exceptions, wholes) == []


def test_the_check_catches_table_entries_that_no_longer_hold() -> None:
    modules, tests = ["cli.py", "hooks.py"], ["tests/test_cli.py", "tests/test_hooks.py"]
    exceptions = {
        "cli": ("tests/test_cli.py", "it has its own now"),
        "gone": ("tests/test_cli.py", "the module was removed"),
        "hooks": ("tests/test_nowhere.py", "covered by a file that does not exist"),
    }
    wholes = {"tests/bench/test_*.py": "nothing left there", "tests/test_hooks.py": "a mirror"}
    assert problems(modules, tests, exceptions, wholes) == [
        "src/landwatch/cli.py is in EXCEPTIONS but has tests/test_cli.py of its own",
        "src/landwatch/hooks.py is in EXCEPTIONS but has tests/test_hooks.py of its own",
        "EXCEPTIONS names gone, which is no module of src/landwatch",
        "EXCEPTIONS says tests/test_nowhere.py covers hooks: no such test file, or no why",
        "WHOLES names tests/bench/test_*.py: it must match test files that mirror no module",
        "WHOLES names tests/test_hooks.py: it must match test files that mirror no module",
    ]


def test_the_checkout_is_what_the_check_reads() -> None:
    modules, tests = source_modules(), checked_test_files()
    assert "commands/show.py" in modules and "__init__.py" in modules
    assert "tests/test_mirror.py" in tests and "tests/conftest.py" not in tests
    assert all(Path(ROOT, test).is_file() for test in tests)
