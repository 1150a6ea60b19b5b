"""git-lfs's hooks beside landwatch's (landwatch.lfs_slots): where they are kept, and which
git-lfs, installed after landwatch or uninstalled since, left missing or behind."""

from __future__ import annotations

from pathlib import Path

from landwatch import hook_slots, lfs_slots
from landwatch.hook_slots import Integration
from landwatch.hooks import MARKER
from support import git_lfs_hook
from support.repos import Repo


def write(path: Path, how: Integration) -> None:
    """Ours, as install writes it."""
    path.write_text(f"#!/bin/sh\n{MARKER} 1\n# {how.value}\n")


def test_git_lfs_hooks_refused_or_left_behind_are_named(tmp_path: Path) -> None:
    """git-lfs stops at the first of its hooks it may not write or remove, pre-push (the
    push gate's), touching none of the others: its configuration says it is installed here."""
    repo = Repo(tmp_path / "repo", initial=False)
    common, hooks = repo.git_dir, repo.git_dir / "hooks"
    for event in lfs_slots.LFS_EVENTS:
        hook_slots.place(hooks / event, write)
    assert lfs_slots.lfs_refused(hooks, common) == []
    assert not lfs_slots.lfs_installed(hooks, common)
    # A filter of git-lfs's for every repository of the user: not installed where it never ran.
    repo.git("config", "--global", "filter.lfs.process", "git-lfs filter-process")
    assert not lfs_slots.lfs_installed(hooks, common)
    # `git lfs install --local` (or a `git lfs track`) after landwatch: no hook written.
    repo.git("config", "--local", "lfs.repositoryformatversion", "0")
    assert lfs_slots.lfs_installed(hooks, common)
    everything = ["post-commit", "post-merge", "pre-push", "post-checkout"]
    assert lfs_slots.lfs_refused(hooks, common) == everything
    for event in everything:  # as install writes them: ours runs those of its events first
        path = lfs_slots.lfs_hook_path(hooks, event)
        path.write_text(git_lfs_hook(event))
    assert [p.name for p in map(lfs_slots.lfs_hook_path, [hooks] * 4, everything)] == [
        "post-commit.before-landwatch",
        "post-merge.before-landwatch",
        "pre-push.before-landwatch",
        "post-checkout",
    ]
    assert lfs_slots.lfs_refused(hooks, common) == []
    assert lfs_slots.lfs_left_behind(hooks, common) == []
    # `git lfs uninstall`: its filter gone, every hook of its left (it stopped at ours).
    repo.git("config", "--global", "--unset", "filter.lfs.process")
    assert lfs_slots.lfs_left_behind(hooks, common) == everything
    (hooks / "post-checkout").write_text("#!/bin/sh\necho mine\n")  # not git-lfs's: never named
    assert lfs_slots.lfs_left_behind(hooks, common) == everything[:3]


def test_a_git_lfs_filter_without_process_is_git_lfs_installed(tmp_path: Path) -> None:
    """git-lfs 1's filter (clean, smudge, required; no process), which dotfiles still carry,
    works: an audit found it taken for none, and `landwatch uninstall` then dropped git-lfs's
    hooks as left behind, and pushes sent pointers without their files."""
    repo = Repo(tmp_path / "repo", initial=False)
    common, hooks = repo.git_dir, repo.git_dir / "hooks"
    hook_slots.place(hooks / "pre-push", write)
    lfs_slots.lfs_hook_path(hooks, "pre-push").write_text(git_lfs_hook("pre-push"))
    for key, value in (("clean", "git-lfs clean -- %f"), ("required", "true")):
        repo.git("config", "--local", f"filter.lfs.{key}", value)
    assert lfs_slots.lfs_installed(hooks, common)
    assert lfs_slots.lfs_left_behind(hooks, common) == []
