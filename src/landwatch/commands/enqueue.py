"""`landwatch enqueue [--kind KIND] [--base OID] [REV]`: record a landed commit as a work item by
hand, as the hooks would (a script that lands commits without hooks, a test). A commit recorded
already is `known`, but for the kinds whose work depends on more than the commit: those run
again once done (`again`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from landwatch import work_item
from landwatch.errors import UsageError
from landwatch.git import GitError, commit_of, git_dir_of, not_a_repository, toplevel

# The kinds a person may ask to run again once done: what the project's hooks find depends on
# more than the commit (trust given since, the tools installed, the network to build them).
AGAIN = frozenset({work_item.WorkKind.PROJECT_HOOKS})


def enqueue(cwd: Path, *, kind: str, revision: str, base: str | None) -> int:
    try:
        git_dir = git_dir_of(cwd)
    except GitError as error:
        hint = ": enqueue records a commit of the repository you are in"
        print(f"landwatch: {not_a_repository(cwd, error, hint)}", file=sys.stderr)
        return 1
    oid = _commit(revision, cwd)
    base_oid = _commit(base, cwd) if base else None
    try:
        item = work_item.WorkItem(kind, oid, git_dir, toplevel(cwd), base_oid)
    except ValueError as error:
        raise UsageError(f"--kind: {error}") from None
    result = work_item.enqueue(item, again=item.kind in AGAIN)
    if result is work_item.Enqueued.KNOWN and work_item.given_up(git_dir, item.id):
        print(
            f"landwatch: {item.id} was given up; to try it again: landwatch retry {revision}",
            file=sys.stderr,
        )
        return 1
    print(f"{result.value} {item.id}")
    return 0


def _commit(revision: str, cwd: Path) -> str:
    oid = commit_of(revision, cwd=cwd)
    if oid is None:
        raise GitError(f"no commit {revision!r} in this repository")
    return oid
