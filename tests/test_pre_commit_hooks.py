"""The repository offers landwatch to pre-commit and prek users: `.pre-commit-hooks.yaml`, as
pre-commit's own validator reads it, runs `landwatch ci` at pre-push, or by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from landwatch import cli
from support import ROOT

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def test_pre_commit_validates_the_manifest() -> None:
    validator = Path(sys.executable).parent / "pre-commit"
    checked = subprocess.run(
        [str(validator), "validate-manifest", str(MANIFEST)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_hook_is_landwatch_ci_at_pre_push_and_by_hand() -> None:
    [hook] = yaml.safe_load(MANIFEST.read_text())
    assert hook["id"] == "landwatch-ci"
    assert hook["stages"] == ["pre-push", "manual"]
    assert hook["pass_filenames"] is False and hook["always_run"] is True
    program, *words = hook["entry"].split()
    assert program == "landwatch"
    assert cli.build_parser().parse_args(words).command == "ci"
