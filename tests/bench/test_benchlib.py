"""What the benches share, checked where it copies the product: install.sh's launcher edit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchlib import LAUNCHER_EDIT, installed_launcher
from support import ROOT


def test_the_launcher_is_edited_as_install_sh_edits_it_and_runs(tmp_path: Path) -> None:
    spelled = " ".join(word if word.startswith("-") else f"'{word}'" for word in LAUNCHER_EDIT)
    assert f"sed {spelled} " in (ROOT / "install.sh").read_text()
    launcher = installed_launcher(tmp_path)
    assert "import re\n" not in launcher.read_text()
    ran = subprocess.run([launcher, "--version"], capture_output=True, text=True, check=True)
    assert ran.stdout.startswith("landwatch ")
