"""What a landed tree declares to its hook managers (review.project_hooks.config) and what trust
pins of it (review.project_hooks.pin): the hooks of the pre-commit stage, the repository files a
local hook executes, a remote hook by the rev written for it, lefthook's commands, scripts and
jobs; a configuration that cannot be read says why; any change to what is pinned is a new digest."""

from __future__ import annotations

from pathlib import Path

import pygit2

from landwatch.review.change import open_repository, resolve
from landwatch.review.project_hooks.config import MAX_FILES, Family, declared, declares_hooks
from landwatch.review.project_hooks.pin import HooksPinned, pin_hooks
from support.repos import Repo

PRE_COMMIT = """\
default_stages: [pre-commit, pre-push]
repos:
- repo: https://github.com/astral-sh/ruff-pre-commit
  rev: v0.6.0
  hooks:
  - id: ruff
- repo: local
  hooks:
  - id: check-shell
    name: check shell
    language: script
    entry: scripts/check.sh
  - id: lint-py
    name: lint python
    language: python
    entry: python tools/lint.py --strict
    additional_dependencies: [pyflakes]
  - id: on-push-only
    name: push only
    language: system
    entry: ./scripts/slow.sh
    stages: [pre-push]
"""
LEFTHOOK = """\
pre-commit:
  commands:
    lint:
      run: ./bin/lint {staged_files}
    web:
      root: web/
      run: node check.js
  scripts:
    "guard.sh":
      runner: sh
  jobs:
    - name: grouped
      group:
        jobs:
          - run: tools/inner.sh
"""
FILES = {
    ".pre-commit-config.yaml": PRE_COMMIT,
    "scripts/check.sh": "#!/bin/sh\nexit 0\n",
    "scripts/slow.sh": "#!/bin/sh\nexit 0\n",
    "tools/lint.py": "print('lint')\n",
    "pyproject.toml": "[tool.ruff]\nline-length = 100\n",
}


def tree_of(repo: Repo) -> tuple[pygit2.Repository, pygit2.Tree]:
    git = open_repository(repo.git_dir)
    return git, resolve(git, "HEAD").tree


def pinned(repo: Repo) -> HooksPinned:
    found = pin_hooks(*tree_of(repo))
    assert found is not None
    return found


def test_the_pre_commit_stage_s_hooks_and_what_they_execute(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.land("hooks", FILES, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.family is Family.PRE_COMMIT and config.problem is None
    assert [(hook.id, hook.entry, hook.where) for hook in config.hooks] == [
        (
            "ruff",
            "(as its repository defines it)",
            "https://github.com/astral-sh/ruff-pre-commit at v0.6.0",
        ),
        ("check-shell", "scripts/check.sh", "local; script"),
        ("lint-py", "python tools/lint.py --strict", "local; python"),
    ]
    # What local hooks of the pre-commit stage run of the repository; not the pre-push one's.
    assert config.executed == ("scripts/check.sh", "tools/lint.py")


def test_an_approval_pins_the_configuration_what_it_executes_and_the_root_s_configuration(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.land("hooks", FILES, hooks=False)
    first = pinned(repo)
    assert [(file.path, file.why) for file in first.files] == [
        (".pre-commit-config.yaml", ""),
        ("pyproject.toml", "its [tool] tables"),
        ("scripts/check.sh", "executed by a hook"),
        ("tools/lint.py", "executed by a hook"),
    ]
    assert (
        first.commands()[1]
        == ".pre-commit-config.yaml: check-shell: scripts/check.sh  [local; script]"
    )
    repo.land("unrelated", {"README.md": "hello\n", "scripts/slow.sh": "#!/bin/sh\n"}, hooks=False)
    assert pinned(repo).digest == first.digest
    repo.land("the script", {"scripts/check.sh": "#!/bin/sh\nexit 1\n"}, hooks=False)
    changed = pinned(repo).digest
    assert changed != first.digest
    bumped = PRE_COMMIT.replace("v0.6.0", "v0.6.1")  # a remote hook is pinned by its rev
    repo.land("a new rev", {".pre-commit-config.yaml": bumped}, hooks=False)
    assert pinned(repo).digest not in (first.digest, changed)


def test_lefthook_s_commands_scripts_and_jobs(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    files = {
        "lefthook.yml": LEFTHOOK,
        "bin/lint": "#!/bin/sh\n",
        "web/check.js": "1\n",
        "tools/inner.sh": "#!/bin/sh\n",
        ".lefthook/pre-commit/guard.sh": "#!/bin/sh\n",
        "lefthook-local.yml": "pre-commit:\n  parallel: true\n",
    }
    repo.land("lefthook", files, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.family is Family.LEFTHOOK
    # A group is walked: its jobs are the hooks (one without a name is named by its command).
    assert [hook.id for hook in config.hooks] == ["lint", "web", "guard.sh", "tools/inner.sh"]
    assert config.executed == (
        ".lefthook/pre-commit/guard.sh",
        "bin/lint",
        "tools/inner.sh",
        "web/check.js",
    )
    assert config.read == ("lefthook-local.yml",)
    assert {file.path for file in pinned(repo).files} >= {"lefthook.yml", "lefthook-local.yml"}


def test_a_configuration_that_cannot_be_read_says_why(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.land("broken", {".pre-commit-config.yaml": "repos: [\n"}, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.hooks == () and config.problem is not None
    assert config.problem.startswith(".pre-commit-config.yaml is not YAML")
    repo.land("a list", {".pre-commit-config.yaml": "- 1\n"}, hooks=False)
    assert declared(*tree_of(repo))[0].problem == ".pre-commit-config.yaml is not a mapping"


def test_a_tree_without_a_hook_manager_declares_nothing(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    _, tree = tree_of(repo)
    assert not declares_hooks(tree) and pin_hooks(*tree_of(repo)) is None
    repo.land("hooks", {".pre-commit-config.yml": "repos: []\n"}, hooks=False)
    assert declares_hooks(tree_of(repo)[1])


def test_a_hostile_configuration_is_read_boundedly(tmp_path: Path) -> None:
    # An alias bomb: a billion hooks by reference, nested lists of lists: none read as a hook.
    bomb = "a: &a [{id: x, entry: run}, {id: y, entry: run}]\n"
    for level in "bcdefghij":
        previous = chr(ord(level) - 1)
        bomb += f"{level}: &{level} [*{previous}, *{previous}, *{previous}, *{previous}]\n"
    bomb += "repos:\n- repo: local\n  hooks: *j\n"
    repo = Repo(tmp_path / "repo")
    repo.land("bomb", {".pre-commit-config.yaml": bomb}, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.problem is None and config.hooks == ()


def local_hook(number: int, entry: str, args: tuple[str, ...] = ()) -> str:
    listed = "".join(f"\n        - '{arg}'" for arg in args)
    return (
        f"  - id: h{number}\n    name: h{number}\n    language: system\n    entry: {entry}\n"
        f"    pass_filenames: false" + (f"\n    args:{listed}" if args else "") + "\n"
    )


def test_what_a_bound_leaves_unread_runs_nothing_unpinned(tmp_path: Path) -> None:
    """Attack 96: pre-commit runs every hook with every arg, lefthook reads every file its
    `extends:` globs name; landwatch read the first 500 hooks, 64 args and 64 files, said
    nothing, and let the hooks run: the script the 501st hook (the 65th arg, the 65th file)
    runs was in no approval's digest, and a pull changing it later ran without asking. Now
    every arg is read, and past a bound the configuration runs nothing, saying why."""
    head = "repos:\n- repo: local\n  hooks:\n"
    script = {"tools/check.sh": "echo benign\n"}
    repo = Repo(tmp_path / "repo")
    many_args = head + local_hook(0, "sh", ("-e",) * 64 + ("tools/check.sh",))
    repo.land("args", {".pre-commit-config.yaml": many_args, **script}, hooks=False)
    assert "tools/check.sh" in [file.path for file in pinned(repo).files]
    many_hooks = head + "".join(local_hook(n, "true") for n in range(500))
    many_hooks += local_hook(500, "sh tools/check.sh")
    repo.land("hooks", {".pre-commit-config.yaml": many_hooks}, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.problem is not None and "more than 500" in config.problem
    extends = "extends:\n  - 'shared/*.yml'\npre-commit:\n  commands:\n    x:\n      run: echo\n"
    files = {
        f"shared/f{n:03}.yml": "pre-commit:\n  commands:\n    y:\n      run: echo\n"
        for n in range(MAX_FILES + 1)
    }
    other = Repo(tmp_path / "other")
    other.land("lefthook", {"lefthook.yml": extends, **files}, hooks=False)
    [config] = declared(*tree_of(other))
    assert config.problem is not None
    assert f"more than {MAX_FILES} configuration files" in config.problem


def test_nested_configurations_no_tool_reads_are_neither_read_nor_counted(tmp_path: Path) -> None:
    """An audit of this stop's bound: a root `.pre-commit-config.yaml` beside 300 vendored
    projects' own under a hidden directory (which neither pre-commit nor prek reads) ran nothing,
    past the bound of 64 files read; past 256, the tree's search said it was cut. Only what a tool
    reads is searched for, read and counted."""
    root = (
        "repos:\n- repo: local\n  hooks:\n  - {id: a, name: a, entry: 'true', language: system}\n"
    )
    vendored = {f".vendor/lib{n:03}/.pre-commit-config.yaml": root for n in range(300)}
    repo = Repo(tmp_path / "repo")
    repo.land("vendored", {".pre-commit-config.yaml": root, **vendored}, hooks=False)
    [config] = declared(*tree_of(repo))
    assert config.problem is None and config.read == ()
