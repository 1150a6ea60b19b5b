"""`landwatch retry [REV ... | --all]`: give items that were given up another start, their tries
counted from zero, in every worktree of the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path

from landwatch import registry, work_item
from landwatch.errors import UsageError
from landwatch.git import GitError, commit_of, common_dir_of


def retry(cwd: Path, *, revisions: list[str], every: bool) -> int:
    if not revisions and not every:
        raise UsageError("name the commits to retry, or --all")
    oids = set()
    for revision in revisions:
        oid = commit_of(revision, cwd=cwd)
        if oid is None:
            raise GitError(f"no commit {revision!r} in this repository")
        oids.add(oid)
    retried = 0
    for git_dir in registry.worktree_git_dirs(common_dir_of(cwd)):
        for name in work_item.entries(git_dir, work_item.FAILED):
            if not every and work_item.id_of_entry(name).partition("-")[2] not in oids:
                continue
            if work_item.retry(git_dir, name) is not None:
                retried += 1
                print(f"landwatch: {work_item.id_of_entry(name)} is pending again, tries from 0")
    if not retried:
        print("landwatch: nothing given up to retry here", file=sys.stderr)
        return 1
    return 0
