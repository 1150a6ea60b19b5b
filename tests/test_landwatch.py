"""The package itself (landwatch/__init__): the version it says is the one it is built and
installed as."""

from __future__ import annotations

import importlib.metadata
import tomllib

import landwatch
from support import ROOT


def test_the_version_is_the_one_the_package_is_built_and_installed_as() -> None:
    built = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert landwatch.__version__ == built == importlib.metadata.version("landwatch")
