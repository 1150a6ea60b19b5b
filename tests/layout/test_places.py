"""Every file and directory landwatch keeps (layout.places): each knows its path (a worktree's in
its own git dir, a repository's in the common one from any worktree, the person's in their own
directories) and refuses a question of the wrong scope; no two of a scope share a name;
docs/queue.md lists each."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from landwatch import layout
from landwatch.layout import Scope
from support import ROOT
from support.repos import Repo


def test_docs_list_every_place() -> None:
    queue_md = (ROOT / "docs" / "queue.md").read_text()
    places = (
        *layout.USER_PLACES,
        *layout.REPOSITORY_PLACES,
        *layout.WORKTREE_PLACES,
        *layout.INSTALLATION_PLACES,
    )
    # Named in a table (`name`) or in the listing of the work directory (indented).
    missing = [
        place.name
        for place in places
        if not re.search(rf"(`|^ +){re.escape(place.name)}\b", queue_md, re.MULTILINE)
    ]
    assert missing == []
    for setting in layout.HOOK_SETTINGS:
        assert setting.key in queue_md.lower()


def test_a_linked_worktree_keeps_its_queue_and_shares_the_repository(
    repo: Repo, tmp_path: Path
) -> None:
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    git_dir = Path(repo.git("-C", str(tmp_path / "linked"), "rev-parse", "--absolute-git-dir"))
    assert layout.work_dir(git_dir) == git_dir / "landwatch" != layout.work_dir(repo.git_dir)
    assert layout.common_dir(git_dir) == repo.git_dir.resolve()
    assert layout.REPORTS.path(git_dir) == layout.REPORTS.path(repo.git_dir)


def test_each_place_knows_its_path_from_the_git_dir_of_any_worktree(
    repo: Repo, tmp_path: Path
) -> None:
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    linked = repo.git_dir / "worktrees" / "linked"
    assert layout.BOOT_TIME.path(linked) == linked / "landwatch" / "boot-time"
    assert layout.BOOT_TIME.path(repo.git_dir) == repo.git_dir / "landwatch" / "boot-time"
    for git_dir in (repo.git_dir, linked):
        assert layout.UNREAD.path(git_dir) == repo.git_dir.resolve() / "landwatch" / "unread"
    assert layout.report_file(linked, "ab" * 20) == (
        repo.git_dir.resolve() / "landwatch" / "reports" / f"{'ab' * 20}.json"
    )


def test_a_person_s_place_is_in_their_own_directories() -> None:
    home = Path(os.environ["HOME"])
    config, data, state = (
        home / base / "landwatch" for base in (".config", ".local/share", ".local/state")
    )
    assert layout.REGISTRY.path() == config / "repositories"
    assert layout.ENTRY_POINT.path() == data / "bin" / "landwatch"
    # Not in XDG_RUNTIME_DIR, which cron and some sessions lack.
    assert layout.REVIEWER_LOCK.path() == state / "run" / "reviewer.lock"
    assert (layout.config_dir(), layout.data_dir(), layout.state_dir()) == (config, data, state)


def test_a_place_asked_for_the_wrong_scope_says_so(repo: Repo) -> None:
    with pytest.raises(ValueError, match="the person's own"):
        layout.REGISTRY.path(repo.git_dir)
    with pytest.raises(ValueError, match="landwatch's installation's"):
        layout.USER_DIRECTORIES.path(repo.git_dir)
    with pytest.raises(ValueError, match="which repository"):
        layout.UNREAD.path()
    with pytest.raises(ValueError, match="which repository"):
        layout.BOOT_TIME.path()


def test_no_two_places_of_a_scope_share_a_name() -> None:
    every = (layout.USER_PLACES, layout.REPOSITORY_PLACES, layout.WORKTREE_PLACES)
    for places in (*every, layout.INSTALLATION_PLACES):
        names = [place.name for place in places]
        assert len(set(names)) == len(names)
    assert all(place.scope is Scope.INSTALLATION for place in layout.INSTALLATION_PLACES)
    assert all(place.scope is Scope.USER for place in layout.USER_PLACES)
    assert all(place.scope is Scope.REPOSITORY for place in layout.REPOSITORY_PLACES)
    assert all(place.scope is Scope.WORKTREE for place in layout.WORKTREE_PLACES)
