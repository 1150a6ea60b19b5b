"""Running git for landwatch: a scrubbed environment and one-line errors.

Hooks export GIT_DIR, GIT_INDEX_FILE and friends; a git started for another repository must not
inherit them (pre-commit#300), so every call goes through `no_git_env`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from landwatch.errors import UserError

# Variables that configure how git reaches remotes rather than which repository it works on.
_KEPT = frozenset(
    {
        "GIT_ASKPASS",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_EXEC_PATH",
        "GIT_HTTP_PROXY_AUTHMETHOD",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSL_CAINFO",
        "GIT_SSL_NO_VERIFY",
        "GIT_TERMINAL_PROMPT",
        "GIT_ALLOW_PROTOCOL",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
    }
)


class GitError(UserError):
    """git failed; the message is one line for a person."""


def no_git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not k.startswith("GIT_") or k in _KEPT}


def git(*args: str, cwd: os.PathLike[str] | str, check: bool = True) -> str:
    """stdout of `git args` run in `cwd`, without the trailing newline."""
    try:
        result = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=no_git_env(),
            capture_output=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    if check and result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(lines[-1] if lines else f"git {args[0]} failed ({result.returncode})")
    return result.stdout.decode(errors="surrogateescape").rstrip("\n")


def config_value(key: str, *, cwd: os.PathLike[str] | str) -> str | None:
    value = git("config", "--get", key, cwd=cwd, check=False)
    return value or None


def is_inside(path: Path, directory: Path) -> bool:
    try:
        path.resolve().relative_to(directory.resolve())
    except ValueError:
        return False
    return True
