"""What trust pins (review.pinned): the committed linters and the configuration files at the root
and named by `config`, by content; a change to any of them is a new digest, a change to what no
linter is given (a version number, a file below the root) is not."""

from __future__ import annotations

import os

import pytest

from landwatch.review.change import open_repository, resolve
from landwatch.review.config import read_config
from landwatch.review.pinned import Pinned, pin, taken_as_configuration
from support.repos import Repo
from support.review import canary_linter


def pinned(repo: Repo) -> Pinned:
    git = open_repository(repo.git_dir)
    tree = resolve(git, "HEAD").tree
    return pin(git, tree, read_config(tree, git).linters)


def test_the_root_configuration_and_what_config_names_are_pinned(repo: Repo) -> None:
    linters = canary_linter(repo.path / "unused") + 'config = ["tools/plugin.py", "gone.cfg"]\n'
    repo.land(
        "configured",
        {
            ".landwatch.toml": linters,
            "pyproject.toml": "[tool.ruff]\nline-length = 90\n",
            ".pylintrc": "[MAIN]\n",
            "eslint.config.mjs": "export default [];\n",
            "tools/plugin.py": "def register(linter): pass\n",
            "sub/.pylintrc": "[MAIN]\n",  # below the root, not named: never given
            "README.md": "# a project\n",
        },
        hooks=False,
    )
    os.symlink("/etc/passwd", repo.path / "setup.cfg")
    repo.git("add", "setup.cfg")
    repo.git("commit", "-q", "-m", "a link")
    found = pinned(repo)
    assert [(file.path, file.why) for file in found.files] == [
        (".pylintrc", ""),
        ("eslint.config.mjs", ""),
        ("gone.cfg", "not in the tree"),
        ("pyproject.toml", "its [tool] tables"),
        ("setup.cfg", "a link to /etc/passwd, outside the tree"),
        ("tools/plugin.py", ""),
    ]
    assert found.given() == {
        ".pylintrc": b"[MAIN]\n",
        "eslint.config.mjs": b"export default [];\n",
        "pyproject.toml": b"[tool.ruff]\nline-length = 90\n",
        "tools/plugin.py": b"def register(linter): pass\n",
    }
    assert [linter.name for linter in found.linters] == ["canary"]


def test_a_change_to_what_linters_are_given_is_a_new_digest(repo: Repo) -> None:
    repo.land(
        "configured",
        {
            ".landwatch.toml": canary_linter(repo.path / "unused"),
            "pyproject.toml": '[project]\nversion = "1"\n\n[tool.pylint.main]\njobs = 1\n',
        },
        hooks=False,
    )
    first = pinned(repo).digest
    # What no linter reads as its configuration: the same digest.
    repo.land(
        "a release",
        {"pyproject.toml": '[project]\nversion = "2"\n\n[tool.pylint.main]\njobs = 1\n'},
    )
    repo.land("below the root", {"sub/.pylintrc": "[MAIN]\ninit-hook='x'\n", "m.py": "x = 1\n"})
    assert pinned(repo).digest == first
    landwatch_table = "\n[tool.landwatch.rules]\nP001 = 'off'\n"  # landwatch's, not a linter's
    repo.land(
        "rules",
        {
            "pyproject.toml": '[project]\nversion = "2"\n\n[tool.pylint.main]\njobs = 1\n'
            + landwatch_table
        },
    )
    assert pinned(repo).digest == first
    repo.land("a hook", {"pyproject.toml": "[tool.pylint.main]\ninit-hook = 'import os'\n"})
    hooked = pinned(repo).digest
    repo.land("a new file", {".flake8": "[flake8]\n"})
    flaked = pinned(repo).digest
    repo.land(
        "a longer timeout",
        {".landwatch.toml": canary_linter(repo.path / "unused") + "timeout = 60\n"},
    )
    assert len({first, hooked, flaked, pinned(repo).digest}) == 4


@pytest.mark.parametrize(
    ("path", "taken"),
    [
        ("m.py", False),
        ("sub/app.js", False),
        ("README.md", False),
        ("pyproject.toml", True),
        ("sub/pyproject.toml", True),
        ("sub/.eslintrc.cjs", True),
        ("web/eslint.config.js", True),
        ("web/vite.config.ts", True),
        ("conftest.py", True),
        ("package.json", True),
        ("Gemfile", True),
        (".npmrc", True),  # every hidden file: most are some tool's configuration
        ("a/.yarnrc.yml", True),
    ],
)
def test_names_tools_take_as_configuration_or_code(path: str, taken: bool) -> None:
    assert taken_as_configuration(path) is taken
