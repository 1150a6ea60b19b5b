"""./install.sh as a person runs it, and ./install.sh --uninstall taking it all away again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from landwatch import hooks, layout, registry
from support import ROOT
from support.repos import Repo


def install_sh(*args: str, cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(ROOT / "install.sh"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        env={
            **os.environ,
            "PYTHON": sys.executable,
            "LANDWATCH_BIN_DIR": str(bin_dir),
            "LANDWATCH_TEST_SCHEDULER": "systemd:true",  # no real service manager here
            "PATH": "/usr/bin:/bin",
            "SHELL": "/bin/zsh",
        },
    )


def test_install_then_uninstall_leaves_nothing(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    bin_dir = tmp_path / "bin"
    done = install_sh(cwd=repo.path, bin_dir=bin_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
    assert (bin_dir / "landwatch").is_symlink() and layout.ENTRY_POINT.path().exists()
    home = Path(os.environ["HOME"])
    zshrc = (Path(os.environ.get("ZDOTDIR", home)) / ".zshrc").as_posix()
    assert f"add this line to {zshrc}" in done.stdout
    assert f'    export PATH="{bin_dir}:$PATH"' in done.stdout
    gone = install_sh("--uninstall", "--yes", cwd=repo.path, bin_dir=bin_dir)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert "landwatch: removed; nothing of it runs any more" in gone.stdout
    assert not hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
    assert not (bin_dir / "landwatch").exists() and not layout.data_dir().exists()
    assert registry.registered() == []
