"""Files a project's release task writes: a changelog rebuilt at each release (`rake
changelog:merge`), release notes a script writes. Learned from the history before the release
reviewed, as fixtures are (review.precedent): a file that releases changed, and no other commit
did, in the window read, is the task's output, not its author's lines.

Pure and bounded: pygit2 in, the files and why out; WINDOW first-parent commits, path lookups only.
"""

from __future__ import annotations

from collections.abc import Iterator

import pygit2

from landwatch.review.change import Change, FileChange, FileStatus
from landwatch.review.generated import ToolOutput
from landwatch.review.rules.message import release_subject

# First-parent commits read before the release; releases that must have changed a file in them.
WINDOW = 300
RELEASES_BEFORE = 2


def release_task_files(change: Change, files: list[FileChange]) -> dict[str, ToolOutput]:
    """The files of a release commit (its subject a version, `Release 2.1.0`) that only the
    releases before it changed, at least RELEASES_BEFORE of them, in the last WINDOW commits: a
    merge or any other commit that changed one (a pull request adding its changelog entry)
    makes it the authors' file."""
    commit = change.commit
    if not release_subject(change.message.subject) or len(commit.parents) != 1:
        return {}
    releases = {f.path: 0 for f in files if f.status is FileStatus.MODIFIED}
    for older, parent in _first_parent_steps(commit.parents[0]):
        changed = [path for path in releases if _entry(older, path) != _entry(parent, path)]
        if not changed:
            continue
        subject = older.message.split("\n", 1)[0]
        if len(older.parents) > 1 or not release_subject(subject):
            for path in changed:
                del releases[path]  # an author's change: the file is theirs too
            if not releases:
                return {}
        else:
            for path in changed:
                releases[path] += 1
    return {
        path: ToolOutput(
            f"written by the project's release task: only its releases changed it ({count} "
            f"of the last {WINDOW} commits)",
            kept_whole=True,
        )
        for path, count in releases.items()
        if count >= RELEASES_BEFORE
    }


def _first_parent_steps(start: pygit2.Commit) -> Iterator[tuple[pygit2.Commit, pygit2.Commit]]:
    """(commit, its first parent) along the first-parent line from `start`, WINDOW at most."""
    commit = start
    for _ in range(WINDOW):
        if not commit.parents:
            return
        parent = commit.parents[0]
        yield commit, parent
        commit = parent


def _entry(commit: pygit2.Commit, path: str) -> pygit2.Oid | None:
    try:
        return commit.tree[path].id
    except KeyError:
        return None
