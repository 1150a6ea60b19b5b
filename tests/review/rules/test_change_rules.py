"""Change rules on landed changes: size, tests alongside source, manifests and their lockfiles.

Each rule's findings sit beside the near misses it must let through.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from landwatch.review.change import MAX_LINE_CHECK_BYTES
from landwatch.review.findings import Finding, Severity
from landwatch.review.rules.base import ChangeRule
from landwatch.review.rules.change_rules import (
    RULES,
    ChangeTooLarge,
    ManifestLockfile,
    SourceWithoutTests,
)
from support.changes import Branch, Changes, Landing


@pytest.fixture
def branch(changes: Changes) -> Branch:
    """A line of commits of its own, each change landing on the one before."""
    return changes.branch()


def check(rule: ChangeRule, branch: Branch, files: Landing) -> list[Finding]:
    return list(rule.check_change(branch.land(files)))


def lines(count: int) -> str:
    return "".join(f"line {number}\n" for number in range(count))


def test_every_rule_is_registered_with_docs_and_an_example() -> None:
    assert [rule.id for rule in RULES] == ["C001", "C002", "C003", "C004"]
    for rule in RULES:
        assert rule.doc() and rule.example


def test_change_too_large_by_lines(branch: Branch) -> None:
    rule = ChangeTooLarge(max_lines=10)
    assert check(rule, branch, {"a.txt": lines(6), "b.txt": lines(4)}) == []
    # Only added lines count: growing a 6-line file to 12 adds 6.
    assert check(rule, branch, {"a.txt": lines(12)}) == []
    (finding,) = check(rule, branch, {"c.txt": lines(11)})
    assert (finding.rule, finding.path, finding.severity) == ("C001", None, Severity.INFO)
    assert "11 lines added (limit 10)" in finding.message


def test_change_too_large_by_files(branch: Branch) -> None:
    rule = ChangeTooLarge(max_files=3)
    assert check(rule, branch, {f"{n}.txt": "x\n" for n in range(3)}) == []
    (finding,) = check(rule, branch, {f"d/{n}.txt": "x\n" for n in range(4)})
    assert "across 4 files (limit 3)" in finding.message


def test_change_too_large_defaults(branch: Branch) -> None:
    assert check(ChangeTooLarge(), branch, {"a.txt": lines(1000)}) == []
    assert len(check(ChangeTooLarge(), branch, {"b.txt": lines(1001)})) == 1


def test_source_without_tests_is_off_unless_the_project_turns_it_on() -> None:
    """Issue 42: few of its findings were worth telling on projects nobody tuned on."""
    assert SourceWithoutTests.severity is Severity.OFF


def test_source_without_tests(branch: Branch) -> None:
    rule = SourceWithoutTests()
    (finding,) = check(rule, branch, {"src/pkg/parse.py": "x = 1\n"})
    assert (finding.rule, finding.path) == ("C002", None)
    assert "src/pkg/parse.py" in finding.message
    assert check(rule, branch, {"src/pkg/parse.py": "x = 2\n", "tests/test_parse.py": "\n"}) == []


@pytest.mark.parametrize(
    "files",
    [
        {"README.md": "docs\n"},  # no source
        {"tests/test_parse.py": "assert True\n"},  # a test is not source
        {"pkg/parse.go": "package pkg\n", "pkg/parse_test.go": "package pkg\n"},
        {"web/app.ts": "x\n", "web/app.spec.ts": "x\n"},
        {"web/app.js": "x\n", "web/__tests__/app.js": "x\n"},
        {"tool.py": "x\n", "test_tool.py": "x\n"},
    ],
)
def test_source_without_tests_lets_through(branch: Branch, files: Mapping[str, str]) -> None:
    assert check(SourceWithoutTests(), branch, files) == []


def test_source_without_tests_skips_deletions_and_pure_renames(branch: Branch) -> None:
    rule = SourceWithoutTests()
    branch.land({"src/old.py": "x = 1\n", "src/moved.py": "y = 1\n", "tests/test_x.py": "\n"})
    assert check(rule, branch, {"src/old.py": None}) == []
    assert check(rule, branch, {"src/moved.py": None, "src/renamed.py": "y = 1\n"}) == []


def test_lines_only_deleted_from_source_are_a_source_change(branch: Branch) -> None:
    rule = SourceWithoutTests()
    branch.land({"src/parse.py": "x = 1\ny = 2\n", "src/logo.png": "\x89PNG\r\n\x1a\n\0\0"})
    (finding,) = check(rule, branch, {"src/parse.py": "x = 1\n"})
    assert "src/parse.py" in finding.message
    assert check(rule, branch, {"src/logo.png": "\x89PNG\r\n\x1a\n\0\1"}) == []  # no behaviour


def test_source_without_tests_sees_rust_inline_tests(branch: Branch) -> None:
    rule = SourceWithoutTests()
    inline = "fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn f() {}\n}\n"
    assert check(rule, branch, {"crate/src/lib.rs": inline}) == []
    assert len(check(rule, branch, {"crate/src/main.rs": "fn main() {}\n"})) == 1


def test_source_without_tests_options(branch: Branch) -> None:
    rule = SourceWithoutTests(source=["*.rb"], tests=["*_spec.rb"])
    assert check(rule, branch, {"src/ignored.py": "x\n"}) == []
    assert len(check(rule, branch, {"lib/a.rb": "x\n"})) == 1
    assert check(rule, branch, {"lib/a.rb": "y\n", "lib/a_spec.rb": "x\n"}) == []


def package_json(dependencies: dict[str, str], **extra: Any) -> str:
    return json.dumps({"name": "web", "dependencies": dependencies, **extra}, indent=2) + "\n"


def package_lock(dependencies: dict[str, str]) -> str:
    packages = {
        f"node_modules/{name}": {"version": v.lstrip("^")} for name, v in dependencies.items()
    }
    return json.dumps({"lockfileVersion": 3, "packages": packages}, indent=2) + "\n"


@pytest.fixture
def npm(branch: Branch) -> Branch:
    deps = {"left-pad": "^1.3.0"}
    branch.land({"package.json": package_json(deps), "package-lock.json": package_lock(deps)})
    return branch


def test_a_dependency_the_lockfile_does_not_lock(npm: Branch) -> None:
    deps = {"left-pad": "^1.3.0", "lodash": "^4.17.21"}
    (finding,) = check(ManifestLockfile(), npm, {"package.json": package_json(deps)})
    assert (finding.rule, finding.path, finding.severity) == (
        "C003",
        "package.json",
        Severity.WARNING,
    )
    assert finding.message == "package.json adds lodash, which package-lock.json does not lock"


def test_a_lockfile_past_the_cap_is_let_through_unread(branch: Branch) -> None:
    """A lockfile larger than a changed file's content may be (8 MB) is not read: a tree's
    1 GB lockfile took the reviewer's memory and seconds for one manifest line."""
    deps = {"left-pad": "^1.3.0"}
    padded = package_lock(deps).replace("{", "{" + " " * MAX_LINE_CHECK_BYTES, 1)
    branch.land({"package.json": package_json(deps), "package-lock.json": padded})
    added = {**deps, "lodash": "^4.17.21"}
    assert check(ManifestLockfile(), branch, {"package.json": package_json(added)}) == []


def test_npm_shrinkwrap_is_the_lockfile_npm_installs_from(branch: Branch) -> None:
    deps = {"left-pad": "^1.3.0"}
    branch.land({"package.json": package_json(deps), "npm-shrinkwrap.json": package_lock(deps)})
    added = {**deps, "lodash": "^4.17.21"}
    (finding,) = check(ManifestLockfile(), branch, {"package.json": package_json(added)})
    assert "npm-shrinkwrap.json" in finding.message and "lodash" in finding.message


def test_manifest_dependency_change_with_its_lockfile(npm: Branch) -> None:
    deps = {"left-pad": "^1.3.0", "lodash": "^4.17.21"}
    files = {"package.json": package_json(deps), "package-lock.json": package_lock(deps)}
    assert check(ManifestLockfile(), npm, files) == []


def test_a_version_asked_that_the_locked_one_does_not_satisfy(npm: Branch) -> None:
    rule = ManifestLockfile()
    # The lock holds 1.3.0: ^1.2.0 and ~1.3 are met, ^1.3.1 and 2.x are not.
    for met in ("^1.2.0", "~1.3", ">=1.0.0 <2", "1.x", "*"):
        assert check(rule, npm, {"package.json": package_json({"left-pad": met})}) == [], met
    (finding,) = check(rule, npm, {"package.json": package_json({"left-pad": "^1.3.1"})})
    assert finding.message == (
        "package.json asks for left-pad ^1.3.1 (locked: 1.3.0), which package-lock.json does not "
        "satisfy"
    )
    assert len(check(rule, npm, {"package.json": package_json({"left-pad": "2.x"})})) == 1


def test_manifest_scripts_and_formatting_are_not_dependencies(npm: Branch) -> None:
    rule = ManifestLockfile()
    scripts = package_json({"left-pad": "^1.3.0"}, scripts={"test": "jest"}, version="1.0.1")
    assert check(rule, npm, {"package.json": scripts}) == []
    compact = json.dumps(
        {"dependencies": {"left-pad": "^1.3.0"}, "name": "web", "devDependencies": {}}
    )
    assert check(rule, npm, {"package.json": compact}) == []


def test_manifest_without_a_lockfile_is_not_reported(branch: Branch) -> None:
    rule = ManifestLockfile()
    branch.land({"package.json": package_json({"a": "1"})})
    assert check(rule, branch, {"package.json": package_json({"a": "2"})}) == []


def test_unparsable_manifest_is_skipped(npm: Branch) -> None:
    assert check(ManifestLockfile(), npm, {"package.json": '{"dependencies": {"a": '}) == []


def test_a_lockfile_refreshed_alone_is_normal_upkeep(npm: Branch) -> None:
    # What `npm update` does: versions move within the ranges, package.json stays.
    update = {"package-lock.json": package_lock({"left-pad": "1.3.1"})}
    assert check(ManifestLockfile(), npm, update) == []
    again = {"package-lock.json": package_lock({"left-pad": "1.3.2"})}
    (finding,) = check(ManifestLockfile(lockfile_alone=True), npm, again)
    assert (finding.path, finding.message) == (
        "package-lock.json",
        "package-lock.json changed but package.json did not",
    )


def test_lockfile_with_a_metadata_change_of_its_manifest(npm: Branch) -> None:
    # `npm version patch` rewrites both files without touching dependencies.
    files = {
        "package.json": package_json({"left-pad": "^1.3.0"}, version="1.0.1"),
        "package-lock.json": package_lock({"left-pad": "1.3.0"}) + "\n",
    }
    assert check(ManifestLockfile(), npm, files) == []


def test_a_lockfile_deleted_while_its_manifest_has_dependencies(npm: Branch) -> None:
    rule = ManifestLockfile()
    # Switching package managers: another lockfile takes over.
    switch = {"package-lock.json": None, "yarn.lock": 'left-pad@^1.3.0:\n  version "1.3.0"\n'}
    assert check(rule, npm, switch) == []
    (finding,) = check(rule, npm, {"yarn.lock": None})
    assert finding.message == (
        "yarn.lock deleted while package.json still has dependencies: nothing locks them now"
    )


def test_a_lockfile_deleted_with_its_manifest(npm: Branch) -> None:
    assert check(ManifestLockfile(), npm, {"package-lock.json": None, "package.json": None}) == []


def test_manifest_in_a_subdirectory(branch: Branch) -> None:
    deps = {"left-pad": "^1.3.0"}
    branch.land(
        {
            "web/package.json": package_json(deps),
            "web/pnpm-lock.yaml": "lockfileVersion: 9\npackages:\n  left-pad@1.3.0:\n",
        },
    )
    grown = package_json({**deps, "lodash": "^4"})
    (finding,) = check(ManifestLockfile(), branch, {"web/package.json": grown})
    assert finding.path == "web/package.json"
    assert "pnpm-lock.yaml" in finding.message and "lodash" in finding.message
    assert check(ManifestLockfile(), branch, {"web/package.json": package_json({})}) == []


PYPROJECT = """\
[project]
name = "tool"
version = "{version}"
dependencies = [{dependencies}]

[tool.ruff]
line-length = 100
"""
UV_LOCK = "version = 1\n" + "".join(
    f'\n[[package]]\nname = "{name}"\nversion = "1.0"\n' for name in ("requests", "rich", "HTTPX")
)


def test_pyproject_dependencies(branch: Branch) -> None:
    rule = ManifestLockfile()
    old = PYPROJECT.format(version="1.0", dependencies='"requests>=2", "rich"')
    branch.land({"pyproject.toml": old, "uv.lock": UV_LOCK})
    # Version, tool settings, spacing and order are not dependencies.
    reordered = PYPROJECT.format(version="1.1", dependencies='"rich", "requests >= 2"')
    assert check(rule, branch, {"pyproject.toml": reordered.replace("100", "88")}) == []
    locked = PYPROJECT.format(version="1.1", dependencies='"rich", "requests>=2", "httpx"')
    assert check(rule, branch, {"pyproject.toml": locked}) == []  # httpx is HTTPX, locked
    added = PYPROJECT.format(version="1.1", dependencies='"rich", "requests>=2", "attrs"')
    (finding,) = check(rule, branch, {"pyproject.toml": added})
    assert finding.message == "pyproject.toml adds attrs, which uv.lock does not lock"


def test_pyproject_dependency_groups_and_poetry(branch: Branch) -> None:
    rule = ManifestLockfile()
    poetry = '[tool.poetry.dependencies]\npython = "^3.11"\n'
    branch.land({"pyproject.toml": poetry, "poetry.lock": "# lock\n"})
    grouped = poetry + '\n[tool.poetry.group.dev.dependencies]\npytest = "^8"\n'
    assert len(check(rule, branch, {"pyproject.toml": grouped})) == 1
    groups = grouped + '\n[dependency-groups]\nlint = ["ruff"]\n'
    assert len(check(rule, branch, {"pyproject.toml": groups})) == 1
    described = poetry + '\n[tool.poetry.urls]\nhome = "https://example.org"\n'
    assert check(rule, branch, {"pyproject.toml": described}) == []


CARGO_LOCK = 'version = 3\n\n[[package]]\nname = "serde"\nversion = "1.4.1"\n'


def test_cargo_toml(branch: Branch) -> None:
    rule = ManifestLockfile()
    manifest = '[package]\nname = "c"\nversion = "{version}"\n\n[dependencies]\n{dependencies}'
    branch.land(
        {
            "Cargo.toml": manifest.format(version="0.1.0", dependencies='serde = "1"\n'),
            "Cargo.lock": CARGO_LOCK,
        },
    )
    bumped = manifest.format(version="0.2.0", dependencies='serde = "1"\n')
    assert check(rule, branch, {"Cargo.toml": bumped}) == []
    # A caret range the lock meets (1.4.0 asked, 1.4.1 locked), and one it does not.
    met = manifest.format(version="0.2.0", dependencies='serde = "1.4.0"\n')
    assert check(rule, branch, {"Cargo.toml": met}) == []
    unmet = manifest.format(version="0.2.0", dependencies='serde = "1.5"\n')
    assert "serde 1.5 (locked: 1.4.1)" in check(rule, branch, {"Cargo.toml": unmet})[0].message
    target = bumped + "\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n"
    assert "adds libc" in check(rule, branch, {"Cargo.toml": target})[0].message
    # A workspace member by path: its version is the member's, not the lock's to keep.
    member = bumped + '\n[dev-dependencies]\nserde = { path = "../serde", version = "9" }\n'
    assert check(rule, branch, {"Cargo.toml": member}) == []


def test_go_mod(branch: Branch) -> None:
    rule = ManifestLockfile()
    go_mod = "module example.com/m\n\ngo {go}\n\nrequire (\n{requires})\n"
    branch.land(
        {
            "go.mod": go_mod.format(
                go="1.21", requires="\tgolang.org/x/text v0.14.0 // indirect\n"
            ),
            "go.sum": "golang.org/x/text v0.14.0 h1:x\n",
        },
    )
    direct = go_mod.format(go="1.22", requires="\tgolang.org/x/text v0.14.0\n")
    assert check(rule, branch, {"go.mod": direct}) == []
    newer = go_mod.format(go="1.22", requires="\tgolang.org/x/text v0.15.0\n")
    (finding,) = check(rule, branch, {"go.mod": newer})
    assert finding.message == (
        "go.mod asks for golang.org/x/text v0.15.0 (locked: v0.14.0), which go.sum does not satisfy"
    )


def test_gemfile(branch: Branch) -> None:
    rule = ManifestLockfile()
    branch.land(
        {
            "Gemfile": "source 'https://rubygems.org'\n\ngem 'rails', '~> 7.1'\n",
            "Gemfile.lock": "GEM\n  specs:\n    rails (7.1.3)\n",
        },
    )
    commented = (
        "source 'https://rubygems.org'\n\n# the web framework\ngem 'rails', '~> 7.1' # web\n"
    )
    assert check(rule, branch, {"Gemfile": commented}) == []
    assert "adds puma" in check(rule, branch, {"Gemfile": commented + "gem 'puma'\n"})[0].message


def test_composer_and_pipfile(branch: Branch) -> None:
    rule = ManifestLockfile()
    branch.land(
        {
            "composer.json": json.dumps({"require": {"php": ">=8.1"}}),
            "composer.lock": '{"packages": []}\n',
            "Pipfile": '[packages]\nrequests = "*"\n\n[scripts]\nserve = "python -m app"\n',
            "Pipfile.lock": '{"default": {"requests": {"version": "==2.31.0"}}}\n',
        },
    )
    changed = {
        "composer.json": json.dumps(
            {"require": {"php": ">=8.1"}, "require-dev": {"phpunit/phpunit": "^10"}}
        ),
        "Pipfile": '[packages]\nrequests = "*"\n\n[scripts]\nserve = "python -m app --debug"\n',
    }
    (finding,) = check(rule, branch, changed)
    assert finding.path == "composer.json"
    dev = '[packages]\nrequests = "*"\n\n[dev-packages]\npytest = "*"\n'
    assert len(check(rule, branch, {"Pipfile": dev})) == 1


POETRY = """\
[tool.poetry]
name = "shop"

[tool.poetry.dependencies]
python = "^3.11"
requests = "^2"
tomli = {version = "^2", python = "<3.11"}

[tool.poetry.group.dev.dependencies]
pytest = "^8"
mypy = "^1"
"""


def poetry_lock(*names: str) -> str:
    return "".join(f'[[package]]\nname = "{name}"\nversion = "1.0"\n\n' for name in names)


def test_a_lockfile_regenerated_without_a_group_the_manifest_declares(branch: Branch) -> None:
    """Issue 42: `poetry lock` run without the dev group broke CI; C003 said nothing, as the
    lockfile changed with its manifest. A marker's requirement (tomli) may rightly be left out."""
    rule = ManifestLockfile()
    branch.land(
        {"pyproject.toml": POETRY, "poetry.lock": poetry_lock("requests", "pytest", "mypy")}
    )
    (finding,) = check(rule, branch, {"poetry.lock": poetry_lock("requests", "certifi")})
    assert (finding.rule, finding.path, finding.message) == (
        "C003",
        "poetry.lock",
        "poetry.lock does not lock mypy, pytest, which pyproject.toml declares",
    )
    grown = POETRY + 'ruff = "^0.6"\n'
    (finding,) = check(
        rule,
        branch,
        {"pyproject.toml": grown, "poetry.lock": poetry_lock("requests", "pytest", "mypy")},
    )
    assert finding.message == "poetry.lock does not lock ruff, which pyproject.toml declares"
    # Locked whole again: nothing; and what it lacked before is not the next change's doing.
    assert (
        check(rule, branch, {"poetry.lock": poetry_lock("requests", "pytest", "mypy", "ruff")})
        == []
    )
    branch.land({"poetry.lock": poetry_lock("requests", "pytest", "mypy")})
    assert (
        check(rule, branch, {"poetry.lock": poetry_lock("requests", "pytest", "mypy", "idna")})
        == []
    )


def test_every_whole_lockfile_is_checked_for_what_its_manifest_declares(branch: Branch) -> None:
    rule = ManifestLockfile()
    cargo = (
        '[package]\nname = "c"\n\n[dependencies]\nserde_json = "1"\n\n'
        '[dev-dependencies]\nproptest = "1"\n'
    )
    serde_json = '\n[[package]]\nname = "serde-json"\nversion = "1.0.1"\n'  # serde_json, as one
    proptest = '\n[[package]]\nname = "proptest"\nversion = "1.4.0"\n'
    branch.land({"Cargo.toml": cargo, "Cargo.lock": CARGO_LOCK + serde_json + proptest})
    (finding,) = check(rule, branch, {"Cargo.lock": CARGO_LOCK + serde_json})
    assert finding.message == "Cargo.lock does not lock proptest, which Cargo.toml declares"
    go_mod = (
        "module m\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\texample.com/local v0.0.0\n)\n\n"
        "replace example.com/local => ../local\n"
    )
    branch.land({"go.mod": go_mod, "go.sum": "github.com/a/b v1.0.0 h1:x=\n"})
    assert check(rule, branch, {"go.sum": "github.com/a/b v1.0.0 h1:y=\n"}) == []
    (finding,) = check(rule, branch, {"go.sum": "github.com/c/d v1.0.0 h1:y=\n"})
    assert finding.message == "go.sum does not lock github.com/a/b, which go.mod declares"


def test_lockfiles_that_may_lock_a_part_are_not_held_to_the_whole(branch: Branch) -> None:
    rule = ManifestLockfile()
    gemfile = 'source "https://rubygems.org"\ngem "rails"\ngem "wdm", platforms: [:mingw]\n'
    branch.land(
        {"Gemfile": gemfile, "Gemfile.lock": "GEM\n  specs:\n    rails (7.0)\n    wdm (0.1)\n"}
    )
    assert check(rule, branch, {"Gemfile.lock": "GEM\n  specs:\n    rails (7.1)\n"}) == []
