"""What the tests share: repositories, queues, reviewers and handlers, changes and histories.

The tests directory is on sys.path (its conftest.py sits there), so each is `support.<name>`.
"""

from __future__ import annotations

import os
from pathlib import Path

# The checkout: the hooks, the docs and install.sh the tests read.
ROOT = Path(__file__).resolve().parents[2]
# The tools that are not Python packages, which ./run-tests unpacks (husky, git-lfs, bubblewrap).
TOOLS = Path(os.environ.get("LANDWATCH_TEST_TOOLS", ROOT / ".test-tools"))
# Debian's git-lfs, unpacked there: its `git-lfs` is run as git runs it, from the PATH.
GIT_LFS = TOOLS / "git-lfs" / "usr" / "bin"


def git_lfs_hook(event: str) -> str:
    """git-lfs 3.3's hook of `event` (the git-lfs at GIT_LFS), as `git lfs install` writes it."""
    return (
        '#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 || { echo >&2 "\\nThis repository is '
        "configured for Git LFS but 'git-lfs' was not found on your path. If you no longer wish "
        f"to use Git LFS, remove this hook by deleting '.git/hooks/{event}'.\\n\"; exit 2; }}\n"
        f'git lfs {event} "$@"\n'
    )
