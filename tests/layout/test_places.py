"""Every file and directory landwatch keeps (layout.places): docs/queue.md lists each, and a linked
worktree keeps its own queue while sharing its repository's places."""

from __future__ import annotations

import re
from pathlib import Path

from landwatch import layout
from support import ROOT
from support.repos import Repo


def test_docs_list_every_place() -> None:
    queue_md = (ROOT / "docs" / "queue.md").read_text()
    places = (*layout.USER_PLACES, *layout.REPOSITORY_PLACES, *layout.WORKTREE_PLACES)
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
