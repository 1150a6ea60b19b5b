"""What the bench scripts share: git run with a fixed identity, new repositories, a throwaway HOME.

Benchmarks never touch the user's own registry, entry point or reviewer.
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | IDENTITY
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def new_repo(path: Path, *, initial: bool = True, hooks: bool = False) -> Path:
    """A repository at `path` (with a first commit), landwatch's hooks installed if asked."""
    git(path.parent, "init", "-q", "-b", "main", str(path))
    if initial:
        (path / "README").write_text("bench\n")
        git(path, "add", "README")
        git(path, "commit", "-q", "-m", "initial")
    if hooks:
        from landwatch import install

        install.install(path, out=io.StringIO())
    return path


def isolated_home(scratch: Path) -> Path:
    """Point HOME and the XDG directories into `scratch` for this process and its children."""
    home = scratch / "home"
    (home / "run").mkdir(parents=True, exist_ok=True)
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_RUNTIME_DIR=str(home / "run"),
    )
    return home
