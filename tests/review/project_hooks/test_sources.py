"""Where each hook manager reads configuration (review.project_hooks.sources), and that trust pins
all of it (issue 37, attack 3): prek's `prek.toml` and nested configurations, lefthook's local files
in every spelling and place and what its `extends:` globs match. Adding any one of them after an
approval is a new configuration; each was read by the tools and ran under an unchanged digest."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pygit2
import pytest

from landwatch.review import tree_links
from landwatch.review.change import open_repository, resolve
from landwatch.review.project_hooks import sources
from landwatch.review.project_hooks.config import Family, declared
from landwatch.review.project_hooks.pin import HooksPinned, pin_hooks
from support.project_hooks import BIN
from support.repos import Repo

PRE_COMMIT = (
    "repos:\n- repo: local\n  hooks:\n  - {id: a, name: a, entry: 'true', language: system}\n"
)
PREK = (
    '[[repos]]\nrepo = "local"\n'
    'hooks = [{id = "b", name = "b", entry = "curl x", language = "system"}]\n'
)
LEFTHOOK = "pre-commit:\n  commands:\n    a:\n      run: 'true'\n"
LEFTHOOK_JSON = '{"pre-commit": {"commands": {"b": {"run": "curl x"}}}}\n'
LEFTHOOK_TOML = '[pre-commit.commands.b]\nrun = "curl x"\n'


def pinned(repo: Repo) -> HooksPinned:
    git = open_repository(repo.git_dir)
    found = pin_hooks(git, resolve(git, "HEAD").tree)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("main", "path", "content"),
    [
        # prek prefers prek.toml to the YAML, and runs every nested one on the files below it.
        (".pre-commit-config.yaml", "prek.toml", PREK),
        (".pre-commit-config.yaml", ".pre-commit-config.yml", PRE_COMMIT),
        (".pre-commit-config.yaml", "sub/.pre-commit-config.yaml", PRE_COMMIT),
        (".pre-commit-config.yaml", "sub/deep/prek.toml", PREK),
        (".pre-commit-config.yaml", "web/.pre-commit-config.yml", PRE_COMMIT),
        # lefthook merges every -local file, and picks one of several main files.
        ("lefthook.yml", "lefthook-local.yml", LEFTHOOK),
        ("lefthook.yml", "lefthook-local.json", LEFTHOOK_JSON),
        ("lefthook.yml", "lefthook-local.toml", LEFTHOOK_TOML),
        ("lefthook.yml", ".lefthook-local.jsonc", "// local\n" + LEFTHOOK_JSON),
        ("lefthook.yml", ".config/lefthook-local.yml", LEFTHOOK),
        ("lefthook.yml", ".config/lefthook.yaml", LEFTHOOK),
        ("lefthook.yml", "lefthook.toml", LEFTHOOK_TOML),
    ],
)
def test_every_configuration_a_manager_reads_is_pinned(
    repo: Repo, main: str, path: str, content: str
) -> None:
    first = PRE_COMMIT if main == ".pre-commit-config.yaml" else LEFTHOOK
    repo.land("hooks", {main: first}, hooks=False)
    before = pinned(repo)
    repo.land("one more place", {path: content}, hooks=False)
    after = pinned(repo)
    assert after.digest != before.digest
    assert path in {file.path for file in after.files}


def test_what_an_extends_glob_matches_is_pinned_and_its_hooks_shown(repo: Repo) -> None:
    main = LEFTHOOK + "extends:\n  - shared/*.yml\n  - ./base.yml\n  - ../outside.yml\n"
    repo.land("hooks", {"lefthook.yml": main, "base.yml": LEFTHOOK}, hooks=False)
    before = pinned(repo)
    repo.land("a new shared file", {"shared/more.yml": LEFTHOOK_JSON}, hooks=False)
    after = pinned(repo)
    assert after.digest != before.digest
    assert {"base.yml", "shared/more.yml"} <= {file.path for file in after.files}


def test_the_hooks_of_every_file_read_are_shown_with_where_they_are(repo: Repo) -> None:
    repo.land(
        "hooks",
        {
            ".pre-commit-config.yaml": PRE_COMMIT,
            "prek.toml": PREK,
            "sub/.pre-commit-config.yaml": PRE_COMMIT,
            "lefthook.yml": LEFTHOOK,
            ".config/lefthook-local.json": LEFTHOOK_JSON,
        },
        hooks=False,
    )
    git = open_repository(repo.git_dir)
    pre_commit, lefthook = declared(git, resolve(git, "HEAD").tree)
    assert (pre_commit.family, pre_commit.path) == (Family.PRE_COMMIT, "prek.toml")
    assert pre_commit.read == (".pre-commit-config.yaml", "sub/.pre-commit-config.yaml")
    assert pre_commit.describe() == (
        "prek.toml: b: curl x  [local; system]",
        ".pre-commit-config.yaml: a: true  [local; system]",
        "sub/.pre-commit-config.yaml: a: true  [local; system]",
    )
    assert (lefthook.family, lefthook.path) == (Family.LEFTHOOK, "lefthook.yml")
    assert lefthook.describe() == (
        "lefthook.yml: a: true  [lefthook]",
        ".config/lefthook-local.json: b: curl x  [lefthook]",
    )


def test_a_nested_configuration_s_hooks_run_from_its_own_directory(repo: Repo) -> None:
    nested = PRE_COMMIT.replace(
        "entry: 'true', language: system", "entry: lint.sh, language: script"
    )
    repo.land(
        "hooks",
        {
            ".pre-commit-config.yaml": PRE_COMMIT,
            "sub/.pre-commit-config.yaml": nested,
            "sub/lint.sh": "#!/bin/sh\n",
        },
        hooks=False,
    )
    found = pinned(repo)
    assert {file.path: file.why for file in found.files}["sub/lint.sh"] == "executed by a hook"


def test_the_spellings_are_the_tools_own() -> None:
    assert sources.PRE_COMMIT_FAMILY == (
        "prek.toml",
        ".pre-commit-config.yaml",
        ".pre-commit-config.yml",
    )
    assert sources.LEFTHOOK_CONFIGS[:3] == ("lefthook.yml", ".lefthook.yml", ".config/lefthook.yml")
    assert ".config/lefthook-local.jsonc" in sources.LEFTHOOK_LOCAL
    assert len(sources.LEFTHOOK_CONFIGS) == len(sources.LEFTHOOK_LOCAL) == 15


def saying(path: str) -> str:
    """A configuration of `path`'s spelling whose one hook is named `path`: what ran says what
    was read."""
    hook: dict[str, str | bool] = {"id": "say", "name": path, "entry": "true"}
    hook.update(language="system", pass_filenames=False, always_run=True)
    if path.endswith(".toml"):
        fields = ", ".join(f"{key} = {json.dumps(value)}" for key, value in hook.items())
        return f'[[repos]]\nrepo = "local"\nhooks = [{{{fields}}}]\n'
    return "repos:\n- repo: local\n  hooks:\n  - " + json.dumps(hook) + "\n"


def test_what_each_tool_reads_is_what_it_runs(repo: Repo, tmp_path: Path) -> None:
    # What a tool never reads names no hook repository to its build (read_by, wall.project_hooks).
    paths = [
        *sources.PRE_COMMIT_CONFIGS,  # pre-commit reads the .yaml alone, prek the first found
        "sub/prek.toml",
        "sub/.pre-commit-config.yml",
        "web/deep/.pre-commit-config.yml",
        ".hidden/.pre-commit-config.yaml",  # prek's discovery passes over hidden directories
    ]
    repo.land("hooks", {path: saying(path) for path in paths}, hooks=False)
    for tool, home in (("pre-commit", "PRE_COMMIT_HOME"), ("prek", "PREK_HOME")):
        ran = subprocess.run(
            [str(BIN / tool), "run", "--all-files", "--color=never"],
            cwd=repo.path,
            env={**os.environ, home: str(tmp_path / tool)},
            capture_output=True,
            text=True,
            check=True,
        )
        said = {
            path for path in paths if re.search(rf"^\s*{re.escape(path)}\.\.\.", ran.stdout, re.M)
        }
        assert sorted(said) == sources.read_by(tool, paths), ran.stdout
    assert sources.read_by("lefthook", ["lefthook.yml", "lefthook-local.yml"]) == [
        "lefthook.yml",
        "lefthook-local.yml",
    ]


def test_extends_globs_walk_the_tree_boundedly(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 97: 64 lefthook files of 64 `extends:` globs each beside thousands of committed
    links: each glob walked every path and followed every link again (4,096 times), hours
    before any trust, in the project-hooks job of every landing and in `landwatch trust`. Now
    each link is followed once per tree, and past MAX_GLOBS globs in all nothing runs."""
    globs = "".join(f"  - 'c/*{n}*.yml'\n" for n in range(sources.MAX_GLOBS + 1))
    config = f"extends:\n{globs}{LEFTHOOK}"
    repo.land("d", {"d/x": ""}, hooks=False)
    for n in range(40):
        (repo.path / f"link{n}").symlink_to("d")
    repo.git("add", "-A")
    repo.land("globs", {"lefthook.yml": config, "c/f1.yml": LEFTHOOK}, hooks=False)
    followed: list[str] = []
    real = tree_links.followed

    def counted(tree: pygit2.Tree, path: str) -> tree_links.Followed:
        followed.append(path)
        return real(tree, path)

    monkeypatch.setattr(sources, "followed", counted)
    git = open_repository(repo.git_dir)
    [config_read] = declared(git, resolve(git, "HEAD").tree)
    assert config_read.problem is not None
    assert f"more than {sources.MAX_GLOBS} `extends:` globs" in config_read.problem
    assert len([path for path in followed if path.startswith("link")]) <= 40
