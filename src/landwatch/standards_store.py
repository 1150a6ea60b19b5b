"""Where the standards learned from a repository's history are kept: one JSON file per
repository, learned again once the history has grown past what it was learned from.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING

from landwatch import layout
from landwatch.files import read_file, write_atomic
from landwatch.review.standards import Standards, learn, still_fresh

if TYPE_CHECKING:
    import pygit2


def read(git_dir: os.PathLike[str] | str) -> Standards | None:
    try:
        data = json.loads(
            read_file(layout.STANDARDS.path(git_dir), trusted=layout.common_dir(git_dir))
        )
        return Standards.from_dict(data) if isinstance(data, dict) else None
    except (OSError, ValueError, TypeError):
        return None


# Where landwatch keeps no files (`landwatch ci` in a fresh clone), the standards learned last in
# this process, by repository: a range of commits reviewed one after another learns as the
# reviewer does, not at every commit.
_in_memory: dict[str, Standards] = {}


def current(
    git_dir: os.PathLike[str] | str, repo: pygit2.Repository, commit: pygit2.Commit
) -> Standards:
    """The standards of the history before `commit`: the cached ones while still fresh, else
    learned now (one bounded pass) and cached. A read-only disk only loses the cache."""
    kept = layout.repository_dir(git_dir).is_dir()
    cached = read(git_dir) if kept else _in_memory.get(os.path.abspath(git_dir))
    if cached is not None and still_fresh(repo, commit, cached):
        return cached
    learned = learn(repo, commit)
    if not kept:
        _in_memory[os.path.abspath(git_dir)] = learned
    # Kept only where landwatch keeps its files: `landwatch review` elsewhere leaves no trace.
    if learned.commits and kept:
        with contextlib.suppress(OSError):
            write_atomic(
                layout.STANDARDS.path(git_dir),
                json.dumps(learned.as_dict()),
                trusted=layout.common_dir(git_dir),
                durable=False,
            )
    return learned
