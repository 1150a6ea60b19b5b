"""Enqueueing (work_item.produce): one item per kind and commit, known in every state it can be in,
private modes and no temp file left, a vanished repository one clear error, a linked worktree's
items in its own git dir."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import CLAIMED, DONE, FAILED, PENDING, RECOVERING, Enqueued, WorkKind
from support.queue import (
    LEASE,
    T,
    check_invariants,
    git,
    item,
    known_markers,
    new_repository,
    temp_files,
    tries_of,
)


def test_enqueue_adds_once_and_knows_it_in_every_state(git_dir: Path) -> None:
    first = item(git_dir, 1)
    assert w.enqueue(first, now=T) is Enqueued.ADDED
    assert w.enqueue(first, now=T + 1) is Enqueued.KNOWN  # pending
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.enqueue(first, now=T + 2) is Enqueued.KNOWN  # claimed
    (git_dir / "landwatch" / RECOVERING).mkdir(exist_ok=True)
    os.rename(
        git_dir / "landwatch" / CLAIMED / claimed.name,
        git_dir / "landwatch" / RECOVERING / claimed.name,
    )
    assert w.enqueue(first, now=T + 3) is Enqueued.KNOWN  # recovering
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + 4) == 1
    again = w.claim_next(git_dir, now=T + 5)
    assert again is not None and w.settle(git_dir, again, now=T + 5)
    assert w.enqueue(first, now=T + 6) is Enqueued.KNOWN  # done
    second = item(git_dir, 2)
    w.enqueue(second, now=T)
    last = w.claim_next(git_dir, now=T)
    assert last is not None and w.settle(git_dir, last, FAILED, now=T)
    assert w.enqueue(second, now=T + 7) is Enqueued.KNOWN  # failed
    assert check_invariants(git_dir) == {first.id: DONE, second.id: FAILED}
    # A replay changed nothing: the done record still says it ran once and failed nothing.
    assert tries_of(git_dir, first.id) == 1


def test_enqueue_again_runs_a_done_item_again_and_leaves_a_waiting_one(git_dir: Path) -> None:
    first = item(git_dir, 1)
    assert w.enqueue(first, now=T, again=True) is Enqueued.ADDED
    assert w.enqueue(first, now=T + 1, again=True) is Enqueued.KNOWN  # pending: it runs once
    claimed = w.claim_next(git_dir, now=T + 1)
    assert claimed is not None and w.settle(git_dir, claimed, now=T + 2)
    assert w.enqueue(first, now=T + 3) is Enqueued.KNOWN  # a landing's producer: done is done
    assert w.enqueue(first, now=T + 4, again=True) is Enqueued.AGAIN
    assert w.enqueue(first, now=T + 5, again=True) is Enqueued.KNOWN  # waiting again, once
    assert check_invariants(git_dir) == {first.id: PENDING}


def test_the_same_commit_is_one_item_per_kind(git_dir: Path) -> None:
    assert w.enqueue(item(git_dir, 1, WorkKind.REVIEW), now=T) is Enqueued.ADDED
    assert w.enqueue(item(git_dir, 1, WorkKind.PUSH), now=T) is Enqueued.ADDED
    assert len(w.entries(git_dir, PENDING)) == 2


def test_enqueue_leaves_no_temp_files_and_private_modes(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    assert temp_files(git_dir) == []
    work = git_dir / "landwatch"
    for path in [work, *(p for p in work.iterdir() if p.is_dir())]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    record = work / PENDING / w.entries(git_dir, PENDING)[0]
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


def test_enqueue_tightens_a_work_directory_made_too_open(git_dir: Path) -> None:
    (git_dir / "landwatch").mkdir(mode=0o755)
    os.chmod(git_dir / "landwatch", 0o755)  # noqa: S103 - the point of the test
    w.enqueue(item(git_dir, 1), now=T)
    assert stat.S_IMODE((git_dir / "landwatch").stat().st_mode) == 0o700


def test_enqueue_in_a_repository_that_vanished_is_one_clear_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone" / ".git"
    with pytest.raises(w.QueueError) as raised:
        w.enqueue(item(gone, 1), now=T)
    message = str(raised.value)
    assert "\n" not in message and str(gone) in message


def test_linked_worktree_items_live_in_its_own_git_dir(tmp_path: Path) -> None:
    main = tmp_path / "main"
    new_repository(main)
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=main)
    git("worktree", "add", "-q", str(tmp_path / "linked"), cwd=main)
    linked_git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=tmp_path / "linked"))
    assert linked_git_dir.parent.name == "worktrees"
    w.enqueue(item(linked_git_dir, 1), now=T)
    assert w.entries(linked_git_dir, PENDING)
    assert w.entries(main / ".git", PENDING) == []
    claimed = w.claim_next(linked_git_dir, now=T)
    assert claimed is not None and claimed.item.git_dir == linked_git_dir


def test_markers_exist_exactly_for_known_ids(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T)
    assert known_markers(git_dir) == {item(git_dir, 1).id, item(git_dir, 2).id}
