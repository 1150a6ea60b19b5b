"""git-lfs's hooks beside landwatch's: where they are, and whether git-lfs, installed after
landwatch or uninstalled since, left them missing or behind (install writes or removes them).
"""

from __future__ import annotations

import os
from pathlib import Path

from landwatch.files import remove, write_atomic
from landwatch.git import git
from landwatch.hooks import chained_path, lfs_hooks, whose

# git-lfs's hooks among ours, and the one of its that is not. git-lfs writes (and removes) its
# hooks in the order pre-push, post-checkout, post-commit, post-merge, and stops at the first one
# it may not touch: beside the push gate's pre-push it touches none.
LFS_EVENTS = ("post-commit", "post-merge", "pre-push")
LFS_OTHERS = ("post-checkout",)


def lfs_hook_path(hooks_dir: Path, event: str) -> Path:
    """Where git-lfs's hook of `event` is beside ours: kept aside where ours has the event."""
    slot = hooks_dir / event
    return chained_path(slot) if event in LFS_EVENTS else slot


def lfs_installed(hooks_dir: Path, common: Path) -> bool:
    """Whether git-lfs is installed in this repository: its filter is configured (its uninstall
    removes it) and it ran here (lfs.repositoryformatversion) or left a hook. Its hooks alone do
    not tell: beside the push gate's pre-push it writes none."""
    # Its filter by any of its keys: one of git-lfs 1 (clean, smudge, required, no process)
    # still works (an audit: taken for none, uninstall dropped its hooks and pushes sent
    # pointers without their files).
    if not git("config", "--get-regexp", r"^filter\.lfs\.", cwd=common, check=False):
        return False
    if git("config", "--local", "lfs.repositoryformatversion", cwd=common, check=False):
        return True
    return any(whose(lfs_hook_path(hooks_dir, e)) == "git-lfs" for e in LFS_EVENTS + LFS_OTHERS)


def lfs_refused(hooks_dir: Path, common: Path) -> list[str]:
    """The events whose git-lfs hook is missing because ours was there: installed after
    landwatch, git-lfs stopped at ours ("Hook already exists") and wrote none of its others."""
    if not lfs_installed(hooks_dir, common):
        return []
    refused = [
        event
        for event in LFS_EVENTS
        if whose(hooks_dir / event) == "landwatch"
        and not os.path.lexists(chained_path(hooks_dir / event))
    ]
    if not refused:
        return []
    return refused + [event for event in LFS_OTHERS if not os.path.lexists(hooks_dir / event)]


def lfs_left_behind(hooks_dir: Path, common: Path) -> list[str]:
    """The events whose git-lfs hook is still there though git-lfs was uninstalled since: it
    stopped at ours, leaving those ours runs and its others."""
    if lfs_installed(hooks_dir, common):
        return []
    behind = [
        event
        for event in LFS_EVENTS
        if whose(hooks_dir / event) == "landwatch"
        and whose(chained_path(hooks_dir / event)) == "git-lfs"
    ]
    if not behind:
        return []
    return behind + [event for event in LFS_OTHERS if whose(hooks_dir / event) == "git-lfs"]


def drop_left_behind(hooks_dir: Path, common: Path) -> list[str]:
    """git-lfs uninstalled since: the hooks it left (it stopped at ours) removed, as its
    uninstall would have (doctor --fix; uninstall, before ours put them back). What was done."""
    said = []
    for event in lfs_left_behind(hooks_dir, common):
        remove(lfs_hook_path(hooks_dir, event), trusted=None)
        said.append(f"git-lfs is gone from here: its {event} hook no longer runs")
    return said


def mend(top: Path, hooks_dir: Path, common: Path) -> list[str]:
    """git-lfs installed after landwatch stopped at ours, writing none of its hooks: they are
    written (their text from git-lfs itself), ours running those of its events; git-lfs
    uninstalled since: its hooks it left are removed (drop_left_behind). What was done."""
    said = drop_left_behind(hooks_dir, common)
    refused = lfs_refused(hooks_dir, common)
    if not refused:
        return said
    texts = lfs_hooks(git("lfs", "update", "--manual", cwd=top, check=False))
    for event in refused:
        if event not in texts:
            said.append(f"git-lfs did not say what its {event} hook is; run it by hand")
            continue
        path = lfs_hook_path(hooks_dir, event)
        write_atomic(path, texts[event], trusted=None, mode=0o755, make_directory=False)
        said.append(
            f"git-lfs could not write its {event} hook beside landwatch's; it is written now "
            "(as `git lfs update --manual` gives it)"
        )
    return said
