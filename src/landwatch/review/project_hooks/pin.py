"""What an approval of a repository's project hooks pins, by content: each hook manager's
configuration (so a remote hook is pinned by the `rev` written there), every repository file a
local hook executes, what the manager merges in, and the configuration files at the root that
hooks read as they run (review.pinned's list: pylint's init-hook is code). A change to any of it
asks for trust again (landwatch.trust).
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

import pygit2

from landwatch.review.pinned import PinnedFile, content_digest, pin, pinned_file
from landwatch.review.project_hooks.config import ManagerConfig, declared


class HooksPinned(NamedTuple):
    """What trust is given to: the configurations, the files pinned with them, one digest."""

    declared: tuple[ManagerConfig, ...]
    files: tuple[PinnedFile, ...]
    digest: str

    def commands(self) -> tuple[str, ...]:
        """Every hook, a line each, as `landwatch trust` shows it and an approval keeps it."""
        return tuple(line for each in self.declared for line in each.describe())

    def given(self) -> dict[str, bytes]:
        return {file.path: file.data for file in self.files if file.data is not None}


def pin_hooks(repo: pygit2.Repository, tree: pygit2.Tree) -> HooksPinned | None:
    """What trusting the project hooks of `tree` would pin; None when it declares none."""
    found = tuple(declared(repo, tree))
    if not found:
        return None
    paths = {path for each in found for path in (each.path, *each.executed, *each.read)}
    why = {path: "executed by a hook" for each in found for path in each.executed}
    files = [pinned_file(repo, tree, path) for path in sorted(paths)]
    files = [_said(file, why.get(file.path, "")) for file in files]
    configuration = [file for file in pin(repo, tree, ()).files if file.path not in paths]
    every = tuple(sorted([*files, *configuration], key=lambda file: file.path))
    return HooksPinned(found, every, _digest(found, every))


def _said(file: PinnedFile, why: str) -> PinnedFile:
    if not why or file.why:
        return file
    return PinnedFile(file.path, file.oid, file.data, why)


def _digest(found: tuple[ManagerConfig, ...], files: tuple[PinnedFile, ...]) -> str:
    document = json.dumps(
        {
            "hooks": [[str(each.family), each.path] for each in found],
            "files": [[file.path, file.why, content_digest(file)] for file in files],
        }
    )
    return hashlib.sha256(document.encode()).hexdigest()
