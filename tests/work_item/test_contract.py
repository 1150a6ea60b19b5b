"""The work-item contract, one behaviour at a time, on real repositories."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import (
    CLAIMED,
    DONE,
    FAILED,
    PENDING,
    RECOVERING,
    Enqueued,
    WorkItem,
    WorkKind,
)
from landwatch.work_item.directory import read_all
from support.queue import (
    check_invariants,
    git,
    item,
    known_markers,
    new_repository,
    oid,
    temp_files,
    tries_of,
    where,
)

T = 1_800_000_000.0  # an arbitrary injected "now"
LEASE = 120.0


# --- the record and its names ------------------------------------------------------------------


def test_id_is_the_kind_and_oid_only(git_dir: Path) -> None:
    a = WorkItem(WorkKind.REVIEW, oid(1), git_dir, base=oid(2), tries=3)
    b = WorkItem(WorkKind.REVIEW, oid(1), Path("/elsewhere"))
    assert a.id == b.id == f"review-{oid(1)}"
    assert WorkItem(WorkKind.PUSH, oid(1), git_dir).id.startswith("push-")
    assert "/" not in a.id and "." not in a.id


@pytest.mark.parametrize(
    "bad", ["A" * 40, "a" * 39, "g" * 40, "a" * 41, "", "../" + "a" * 37, "a" * 40 + "\n"]
)
def test_item_refuses_what_is_not_an_object_id(bad: str, git_dir: Path) -> None:
    with pytest.raises(ValueError, match="object id"):
        WorkItem(WorkKind.REVIEW, bad, git_dir)


def test_sha256_object_ids_are_items_too(git_dir: Path) -> None:
    long = "b" * 64
    assert w.enqueue(WorkItem(WorkKind.REVIEW, long, git_dir), now=T) is Enqueued.ADDED
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.oid == long


def test_claim_file_name_and_id_of_entry_round_trip() -> None:
    id_ = f"review-{oid(7)}"
    name = w.claim_file_name(id_, "0123456789abcdef", T)
    assert w.id_of_entry(name) == id_
    assert w.id_of_entry(f"{id_}.{int(T * 1e6)}") == id_
    assert w.id_of_entry(id_) == id_  # an older release's claim carried no generation
    with pytest.raises(ValueError):
        w.claim_file_name("not an id", "0123456789abcdef", T)
    with pytest.raises(ValueError):
        w.claim_file_name(id_, "../x", T)


def test_record_round_trips_every_field(git_dir: Path, tmp_path: Path) -> None:
    tree = tmp_path / "odd name \udcff"  # a non-UTF-8 byte in the path survives
    full = WorkItem(WorkKind.PUSH, oid(3), git_dir, tree, oid(4), tries=2)
    w.enqueue(full, now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert claimed.item == full
    assert claimed.id == full.id


def test_the_repository_is_where_the_record_was_found(git_dir: Path, tmp_path: Path) -> None:
    w.enqueue(WorkItem(WorkKind.REVIEW, oid(1), git_dir), now=T)
    other = new_repository(tmp_path / "other")
    # A record moved into another repository belongs to that repository, whatever it says.
    (other / "landwatch" / PENDING).mkdir(parents=True)
    name = w.entries(git_dir, PENDING)[0]
    os.rename(git_dir / "landwatch" / PENDING / name, other / "landwatch" / PENDING / name)
    claimed = w.claim_next(other, now=T)
    assert claimed is not None and claimed.item.git_dir == other


def test_state_directory_paths(git_dir: Path) -> None:
    assert w.state_directory(git_dir, PENDING) == git_dir / "landwatch" / "pending"
    assert list(w.STATES) == [w.PENDING, w.CLAIMED, w.RECOVERING, w.DONE, w.FAILED]
    with pytest.raises(ValueError):
        w.state_directory(git_dir, "tmp")


# --- enqueue -----------------------------------------------------------------------------------


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


# --- claim -------------------------------------------------------------------------------------


def test_claims_take_the_oldest_first(git_dir: Path) -> None:
    for number, moment in [(1, T + 5), (2, T + 1), (3, T + 3)]:
        w.enqueue(item(git_dir, number), now=moment)
    order = []
    while (claimed := w.claim_next(git_dir, now=T + 10)) is not None:
        order.append(claimed.item.oid)
    assert order == [oid(2), oid(3), oid(1)]


def test_a_claim_for_some_kinds_never_touches_another_kind(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1, WorkKind.PUSH), now=T)
    w.enqueue(item(git_dir, 2, WorkKind.REVIEW), now=T + 1)
    claimed = w.claim_next(git_dir, [WorkKind.REVIEW], now=T + 2)
    assert claimed is not None and claimed.item.kind == WorkKind.REVIEW
    assert w.claim_next(git_dir, [WorkKind.REVIEW], now=T + 2) is None
    assert where(git_dir)[item(git_dir, 1, WorkKind.PUSH).id] == [PENDING]
    push = w.claim_next(git_dir, ["push"], now=T + 2)
    assert push is not None and push.item.kind == WorkKind.PUSH


def test_items_of_a_kind_this_release_does_not_know_are_left_alone(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    future = f"backup-{oid(2)}.{int(T * 1e6)}"
    (git_dir / "landwatch" / PENDING / future).write_bytes(b"from a newer release")
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and w.claim_next(git_dir, now=T) is None
    assert future in w.entries(git_dir, PENDING)


def test_a_claim_carries_a_fresh_generation_and_the_reading(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    first = w.claim_next(git_dir, now=T)
    assert first is not None
    assert w.requeue(git_dir, first, max_tries=5, count_try=False, now=T) == PENDING
    second = w.claim_next(git_dir, now=T)
    assert second is not None
    assert first.name != second.name
    assert first.name.endswith(f".{int(T * 1e6)}")


def test_a_new_item_from_another_process_is_seen_by_the_next_claim(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    assert w.claim_next(git_dir, now=T) is not None
    # Written behind this process's back (as a shell hook would): the empty listing re-reads.
    data = w.encode_record(item(git_dir, 2), enqueued=T, producer=("h", "-", 1))
    (git_dir / "landwatch" / w.KNOWN / item(git_dir, 2).id).write_bytes(data)
    os.link(
        git_dir / "landwatch" / w.KNOWN / item(git_dir, 2).id,
        git_dir / "landwatch" / PENDING / f"{item(git_dir, 2).id}.{int(T * 1e6)}",
    )
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.oid == oid(2)


def test_claim_in_a_repository_without_a_queue_is_none(tmp_path: Path) -> None:
    assert w.claim_next(tmp_path / "nothing", now=T) is None
    assert w.claim_next(new_repository(tmp_path / "fresh"), now=T) is None


# --- renew -------------------------------------------------------------------------------------


def test_renew_moves_the_reading_and_only_the_exact_name(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    renewed = w.renew_claim(git_dir, claimed.name, now=T + 30)
    assert renewed is not None and renewed.endswith(f".{int((T + 30) * 1e6)}")
    assert w.renew_claim(git_dir, claimed.name, now=T + 60) is None  # that name is gone
    assert w.renew_claim(git_dir, renewed, now=T + 30) == renewed  # same reading: still ours
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 30) == pytest.approx(LEASE)


def test_a_taken_over_claim_is_neither_renewed_nor_settled(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    slow = w.claim_next(git_dir, now=T)
    assert slow is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE + 1) == 1
    fast = w.claim_next(git_dir, now=T + LEASE + 1)
    assert fast is not None and fast.id == slow.id
    assert w.renew_claim(git_dir, slow.name, now=T + LEASE + 2) is None
    assert not w.settle(git_dir, slow, now=T + LEASE + 2)
    assert w.find_claim(git_dir, slow.id) == git_dir / "landwatch" / CLAIMED / fast.name
    assert w.settle(git_dir, fast, now=T + LEASE + 3)
    assert w.find_claim(git_dir, slow.id) is None
    assert check_invariants(git_dir) == {slow.id: DONE}


# --- settle ------------------------------------------------------------------------------------


def test_settle_once_and_only_into_done_or_failed(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    with pytest.raises(ValueError):
        w.settle(git_dir, claimed, PENDING)
    assert w.settle(git_dir, claimed.name, DONE, now=T)
    assert not w.settle(git_dir, claimed.name, DONE, now=T)
    assert not w.settle(git_dir, claimed.name, FAILED, now=T)
    assert not w.settle(git_dir, "../../etc/passwd", DONE, now=T)
    assert where(git_dir) == {claimed.id: [DONE]}


# --- requeue and recovery ----------------------------------------------------------------------


def test_expired_claims_return_with_a_try_counted_then_fail(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    moment = T
    for run in range(1, 4):
        claimed = w.claim_next(git_dir, now=moment)
        assert claimed is not None and claimed.item.tries == run - 1
        moment += LEASE + 1
        recovered = w.requeue_expired(git_dir, lease=LEASE, max_tries=3, now=moment)
        assert recovered.moved == 1
        if run < 3:
            assert recovered.failed == []
    assert [found.tries for found in recovered.failed] == [3]
    assert recovered.failed[0].oid == oid(1)
    assert check_invariants(git_dir) == {item(git_dir, 1).id: FAILED}


def test_a_live_claim_is_not_requeued(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE - 1) == 0
    renewed = w.renew_claim(git_dir, claimed.name, now=T + LEASE - 1)
    assert renewed is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=T + LEASE + 5) == 0
    assert w.settle(git_dir, renewed, now=T + LEASE + 5)


def test_readings_from_a_clock_that_jumped_back_still_expire(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    assert w.claim_next(git_dir, now=T) is not None
    # The clock went back a day: the claim's reading is in the future.
    earlier = T - 86_400
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=earlier) < 0  # type: ignore[operator]
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=earlier) == 1
    # A reading slightly ahead (within a lease) belongs to a live holder.
    assert w.claim_next(git_dir, now=earlier + 10) is not None
    assert w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=earlier) == 0
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=earlier) == pytest.approx(LEASE + 10)


def test_consumer_requeue_counts_a_try_or_hands_back(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue(git_dir, claimed, max_tries=2, count_try=False, now=T) == PENDING
    assert tries_of(git_dir, claimed.id) == 0
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None
    assert w.requeue(git_dir, claimed, max_tries=2, now=T) == PENDING
    assert w.requeue(git_dir, claimed, max_tries=2, now=T) is None  # not ours any more
    claimed = w.claim_next(git_dir, now=T)
    assert claimed is not None and claimed.item.tries == 1
    assert w.requeue(git_dir, claimed.name, max_tries=2, now=T) == FAILED
    assert check_invariants(git_dir) == {claimed.id: FAILED}


def test_a_requeued_item_keeps_its_place_in_line(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T + 1)
    first = w.claim_next(git_dir, now=T + 2)
    assert first is not None and first.item.oid == oid(1)
    w.requeue(git_dir, first, max_tries=5, now=T + 3)
    again = w.claim_next(git_dir, now=T + 4)
    assert again is not None and again.item.oid == oid(1)


def test_next_claim_expiry_and_oldest_pending_age(git_dir: Path) -> None:
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T) is None
    assert w.oldest_pending_age(git_dir, now=T) is None
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T + 10)
    w.enqueue(item(git_dir, 3), now=T + 20)
    assert w.oldest_pending_age(git_dir, now=T + 25) == pytest.approx(25)
    count, age = w.pending_summary(git_dir, now=T + 25)
    assert count == 3
    assert age == pytest.approx(25)
    w.claim_next(git_dir, now=T + 30)
    w.claim_next(git_dir, now=T + 40)
    assert w.oldest_pending_age(git_dir, now=T + 50) == pytest.approx(30)
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 50) == pytest.approx(LEASE - 20)
    assert w.next_claim_expiry(git_dir, lease=LEASE, now=T + 500) == pytest.approx(LEASE - 470)


def test_oldest_pending_age_opens_no_record(git_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    opened: list[str] = []
    real_open = os.open

    def counting_open(path: str, *args: int, **kwargs: int) -> int:
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    assert w.oldest_pending_age(git_dir, now=T + 1) == pytest.approx(1)
    assert opened and all(not name.startswith("review-") for name in opened), opened


# --- prune -------------------------------------------------------------------------------------


def test_prune_removes_done_past_both_bounds_and_keeps_failed(git_dir: Path) -> None:
    for number in range(6):
        w.enqueue(item(git_dir, number), now=T)
        claimed = w.claim_next(git_dir, now=T)
        assert claimed is not None
        w.settle(git_dir, claimed, FAILED if number == 0 else DONE, now=T + number)
    # Kept by count: the newest two; kept by age: anything settled within 3.5 s of T+10.
    assert w.prune(git_dir, keep_seconds=6.5, keep_count=2, now=T + 10) == 3
    states = check_invariants(git_dir)
    assert sorted(states.values()) == [DONE, DONE, FAILED]
    assert item(git_dir, 0).id in states  # failed is kept for the person
    assert w.enqueue(item(git_dir, 1), now=T + 11) is Enqueued.ADDED  # pruned: new again
    assert w.enqueue(item(git_dir, 5), now=T + 11) is Enqueued.KNOWN


# --- garbage -----------------------------------------------------------------------------------


def _plant(directory: Path, name: str, kind: str) -> None:
    path = directory / name
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "bytes":
        path.write_bytes(os.urandom(300))
    elif kind == "truncated":
        path.write_bytes(b"landwatch-work-item 1\nkind review\noid " + oid(9).encode())
    elif kind == "version":
        path.write_bytes(b"landwatch-work-item 99\nkind review\nend\n")
    elif kind == "huge":
        path.write_bytes(b"x" * (w.MAX_RECORD_BYTES + 10))
    elif kind == "symlink":
        path.symlink_to("/etc/passwd")
    elif kind == "dangling":
        path.symlink_to(directory / "nowhere")
    elif kind == "directory":
        path.mkdir()
        (path / "inside").write_text("x")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        raise AssertionError(kind)


GARBAGE = [
    "empty",
    "bytes",
    "truncated",
    "version",
    "huge",
    "symlink",
    "dangling",
    "directory",
    "fifo",
]


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_in_pending_never_blocks_and_ends_in_failed(git_dir: Path, kind: str) -> None:
    w.enqueue(item(git_dir, 1), now=T + 5)
    pending = git_dir / "landwatch" / PENDING
    _plant(pending, f"review-{oid(2)}.{int(T * 1e6)}", kind)  # well named, older: claimed first
    _plant(pending, "no grammar at all", kind)
    _plant(pending, "review-nothex.12", kind)
    claimed = w.claim_next(git_dir, now=T + 10)
    assert claimed is not None and claimed.item.oid == oid(1)
    assert w.claim_next(git_dir, now=T + 10) is None
    assert w.entries(git_dir, PENDING) == []
    assert len(w.entries(git_dir, FAILED)) == 3
    assert w.settle(git_dir, claimed, now=T + 10)
    assert "/etc/passwd" not in str(w.entries(git_dir, FAILED))
    assert Path("/etc/passwd").exists()


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_in_ready_is_published_never_and_left_nowhere(git_dir: Path, kind: str) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    ready = git_dir / "landwatch" / w.READY
    ready.mkdir(exist_ok=True)
    _plant(ready, f"review-{oid(2)}.{int(T * 1e6)}", kind)  # no marker of its own
    _plant(ready, "no grammar at all", kind)
    assert w.publish_ready(git_dir) == 0
    assert w.entries(git_dir, w.READY) == []
    regular = kind not in ("symlink", "dangling", "directory", "fifo")
    assert len(w.entries(git_dir, FAILED)) == (0 if regular else 2)  # a doorbell is removed
    claimed = w.claim_next(git_dir, now=T + 10)
    assert claimed is not None and claimed.item.oid == oid(1)
    assert Path("/etc/passwd").exists()


@pytest.mark.parametrize("kind", GARBAGE)
@pytest.mark.parametrize("state", [CLAIMED, RECOVERING, DONE, FAILED, w.KNOWN, w.TMP])
def test_garbage_anywhere_never_crashes_a_function(git_dir: Path, kind: str, state: str) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    directory = git_dir / "landwatch" / state
    directory.mkdir(exist_ok=True)
    names = [
        f"review-{oid(3)}",
        f"review-{oid(4)}.0123456789abcdef.5",
        f"review-{oid(6)}.12",  # named as a settled item, or a producer's temp file
        f"prune.review-{oid(5)}.7",  # named as a prune intent
        "x y",
        ".hidden",
    ]
    for name in names:
        _plant(directory, name, kind)
    w.enqueue(item(git_dir, 2), now=T)
    for moment in (T, T + LEASE * 100):
        w.requeue_expired(git_dir, lease=LEASE, max_tries=5, now=moment)
        w.next_claim_expiry(git_dir, lease=LEASE, now=moment)
        w.oldest_pending_age(git_dir, now=moment)
        w.find_claim(git_dir, f"review-{oid(3)}")
        w.prune(git_dir, keep_seconds=0, keep_count=0, now=moment)
    got = set()
    while (claimed := w.claim_next(git_dir, now=T + LEASE * 100)) is not None:
        got.add(claimed.item.oid)
        assert w.settle(git_dir, claimed, now=T)
    assert {oid(1), oid(2)} <= got


def test_symlinked_state_directory_is_not_followed(git_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / "landwatch").mkdir(mode=0o700)
    (git_dir / "landwatch" / PENDING).symlink_to(elsewhere)
    with pytest.raises(w.QueueError):
        w.enqueue(item(git_dir, 1), now=T)
    assert list(elsewhere.iterdir()) == []


def test_symlinked_work_directory_is_refused(git_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_dir / "landwatch").symlink_to(elsewhere)
    with pytest.raises(w.QueueError):
        w.enqueue(item(git_dir, 1), now=T)
    with pytest.raises(w.QueueError):
        w.claim_next(git_dir, now=T)
    assert list(elsewhere.iterdir()) == []


def test_markers_exist_exactly_for_known_ids(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    w.enqueue(item(git_dir, 2), now=T)
    assert known_markers(git_dir) == {item(git_dir, 1).id, item(git_dir, 2).id}


def test_a_record_is_read_in_one_read_and_whole_when_it_grew_since_fstat(tmp_path: Path) -> None:
    path = tmp_path / "record"
    path.write_bytes(b"x" * 100)
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        assert read_all(fd, size) == b"x" * 100
        os.lseek(fd, 0, os.SEEK_SET)
        path.write_bytes(b"x" * 100 + b"y" * (w.MAX_RECORD_BYTES + 10))  # grew since
        data = read_all(fd, size)
        assert data.startswith(b"x" * 100 + b"y")
        assert len(data) == w.MAX_RECORD_BYTES + 1  # enough to be refused, no more
    finally:
        os.close(fd)


def test_an_item_caught_being_published_waits_once(git_dir: Path) -> None:
    w.enqueue(item(git_dir, 1), now=T)
    [name] = w.entries(git_dir, PENDING)
    ready = git_dir / "landwatch" / w.READY
    ready.mkdir(exist_ok=True)
    (ready / name).touch()  # linked into pending/, its ready/ name not removed yet
    assert w.pending_summary(git_dir, now=T + 5) == (1, 5.0)


def test_the_second_names_the_seed_contract_gives_are_the_same_operations() -> None:
    assert w.claim_next_of is w.claim_next
    assert w.settle_named is w.settle
    assert w.requeue_expired_reporting is w.requeue_expired
    assert w.Recovered(2, []) == 2 and w.Recovered(2, []).moved == 2
