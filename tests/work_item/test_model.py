"""A model of the queue, checked against the disk after every step hypothesis takes.

Steps are enqueue (by the Python producer and as the shell hooks do it), publishing what the
hooks left, claim, renew, settle, consumer requeue (with a backoff or none), expiry (with
a backoff or none), retry of a failed item, prune and garbage, on an injected clock that jumps
forwards and backwards; stale claim names are kept to be replayed.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from landwatch import work_item as w
from landwatch.work_item import CLAIMED, DONE, FAILED, PENDING, Enqueued, WorkItem, WorkKind
from support.queue import enqueue_as_the_hooks, known_markers, new_repository, oid, tries_of, where

MAX_TRIES = 3
KINDS = [WorkKind.REVIEW, WorkKind.PUSH]


def micros(seconds: float) -> int:
    return max(0, round(seconds * 1_000_000))


@dataclass
class Model:
    state: str
    enqueued: int
    due: int  # the stamp of its pending name: when it may be claimed
    tries: int = 0
    claim: str | None = None
    settled: int = 0


def due(stamp: int, now: int) -> bool:
    """Claimable now: its time has come, or a clock gone back put it beyond any backoff."""
    return stamp <= now or stamp > now + micros(w.MAX_DELAY)


class QueueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="landwatch-model-"))
        self.git_dir = new_repository(self.root / "repo")
        self.clock = 1_800_000_000.0
        self.items: dict[str, Model] = {}
        self.names: list[str] = []  # every claim name ever handed out, stale ones included
        self.garbage: dict[str, int] = {}  # id of a garbage record in pending -> its stamp
        self.garbage_failed = 0
        w._listings.clear()

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    @initialize()
    def start(self) -> None:
        assert w.claim_next(self.git_dir, now=self.clock) is None

    # --- helpers ---

    def _kind(self, id_: str) -> str:
        return id_.partition("-")[0]

    def _current(self, name: str) -> Model | None:
        model = self.items.get(w.id_of_entry(name))
        return model if model is not None and model.claim == name else None

    def _give_back(self, model: Model, count: bool, delay: float = 0.0) -> str:
        model.tries += count
        model.claim = None
        model.state = FAILED if model.tries >= MAX_TRIES else PENDING
        if model.state == FAILED:
            model.settled = micros(self.clock)
        else:
            delay = min(delay, w.MAX_DELAY)
            later = micros(self.clock + delay)
            # A backoff counts from now; a place in line a clock gone back left ahead is now.
            now = micros(self.clock)
            model.due = min(model.enqueued, now) if delay <= 0 else later
        return model.state

    # --- rules ---

    @rule(number=st.integers(0, 5), kind=st.sampled_from(KINDS))
    def enqueue(self, number: int, kind: WorkKind) -> None:
        item = WorkItem(kind, oid(number), self.git_dir)
        result = w.enqueue(item, now=self.clock)
        if item.id in self.items:
            assert result is Enqueued.KNOWN
        else:
            assert result is Enqueued.ADDED
            self.items[item.id] = Model(PENDING, micros(self.clock), micros(self.clock))

    @rule(number=st.integers(0, 5), kind=st.sampled_from(KINDS))
    def enqueue_as_the_hooks(self, number: int, kind: WorkKind) -> None:
        item = WorkItem(kind, oid(number), self.git_dir)
        result = enqueue_as_the_hooks(item, now=self.clock)
        if item.id in self.items:
            assert result is Enqueued.KNOWN
        else:
            assert result is Enqueued.ADDED
            self.items[item.id] = Model(PENDING, micros(self.clock), micros(self.clock))

    @rule()
    def publish_ready(self) -> None:
        w.publish_ready(self.git_dir)  # a second publisher, or status: changes no state

    @rule(kinds=st.sets(st.sampled_from(KINDS), min_size=1))
    def claim(self, kinds: set[WorkKind]) -> None:
        wanted = {kind.value for kind in kinds}
        now = micros(self.clock)
        candidates = [
            (model.due, f"{id_}.{model.due}", id_, False)
            for id_, model in self.items.items()
            if model.state == PENDING and self._kind(id_) in wanted and due(model.due, now)
        ] + [
            (stamp, f"{id_}.{stamp}", id_, True)
            for id_, stamp in self.garbage.items()
            if self._kind(id_) in wanted and due(stamp, now)
        ]
        expected = None
        for _, _, id_, is_garbage in sorted(candidates):
            if is_garbage:  # taken, found undecodable, moved to failed; the claim goes on
                del self.garbage[id_]
                self.garbage_failed += 1
            else:
                expected = id_
                break
        claimed = w.claim_next(self.git_dir, kinds, now=self.clock)
        if expected is None:
            assert claimed is None
            return
        assert claimed is not None and claimed.id == expected
        model = self.items[expected]
        assert claimed.item.tries == model.tries
        assert claimed.name.endswith(f".{micros(self.clock)}")
        model.state, model.claim = CLAIMED, claimed.name
        self.names.append(claimed.name)

    @precondition(lambda self: self.names)
    @rule(data=st.data())
    def renew(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(self.names))
        model = self._current(name)
        renewed = w.renew_claim(self.git_dir, name, now=self.clock)
        if model is None:
            assert renewed is None
            return
        assert renewed is not None and renewed.endswith(f".{micros(self.clock)}")
        model.claim = renewed
        self.names.append(renewed)

    @precondition(lambda self: self.names)
    @rule(data=st.data(), state=st.sampled_from([DONE, FAILED]))
    def settle(self, data: st.DataObject, state: str) -> None:
        name = data.draw(st.sampled_from(self.names))
        model = self._current(name)
        assert w.settle(self.git_dir, name, state, now=self.clock) is (model is not None)
        if model is not None:
            model.state, model.claim, model.settled = state, None, micros(self.clock)

    @precondition(lambda self: self.names)
    @rule(data=st.data(), count=st.booleans(), delay=st.sampled_from([0.0, 30.0, 3600.0, 1e6]))
    def give_back(self, data: st.DataObject, count: bool, delay: float) -> None:
        name = data.draw(st.sampled_from(self.names))
        model = self._current(name)
        result = w.requeue(
            self.git_dir, name, max_tries=MAX_TRIES, count_try=count, delay=delay, now=self.clock
        )
        if model is None:
            assert result is None
        else:
            assert result == self._give_back(model, count, delay)

    @precondition(lambda self: any(m.state == FAILED for m in self.items.values()))
    @rule(data=st.data())
    def retry(self, data: st.DataObject) -> None:
        failed = sorted(id_ for id_, m in self.items.items() if m.state == FAILED)
        id_ = data.draw(st.sampled_from(failed))
        model = self.items[id_]
        name = w.retry(self.git_dir, f"{id_}.{model.settled}", now=self.clock)
        assert name == f"{id_}.{micros(self.clock)}"
        model.state, model.tries, model.due = PENDING, 0, micros(self.clock)

    @rule(lease=st.sampled_from([30.0, 120.0]), backoff=st.sampled_from([None, 0.0, 60.0]))
    def requeue_expired(self, lease: float, backoff: float | None) -> None:
        expected_failed = set()
        moved = 0
        for id_, model in self.items.items():
            if model.state != CLAIMED or model.claim is None:
                continue
            reading = int(model.claim.rpartition(".")[2]) / 1_000_000
            if abs(self.clock - reading) > lease:
                moved += 1
                if self._give_back(model, True, backoff or 0.0) == FAILED:
                    expected_failed.add(id_)
        recovered = w.requeue_expired(
            self.git_dir,
            lease=lease,
            max_tries=MAX_TRIES,
            retry_after=None if backoff is None else (lambda tries: backoff),
            now=self.clock,
        )
        assert recovered.moved == moved
        assert {found.id for found in recovered.failed} == expected_failed
        assert all(found.tries == MAX_TRIES for found in recovered.failed)

    @rule(seconds=st.one_of(st.floats(0, 200), st.floats(-86_400, 86_400)))
    def tick(self, seconds: float) -> None:
        self.clock = max(1.0, self.clock + seconds)

    @rule(keep_seconds=st.sampled_from([0.0, 60.0]), keep_count=st.integers(0, 2))
    def prune(self, keep_seconds: float, keep_count: int) -> None:
        done = sorted(
            (
                (model.settled, f"{id_}.{model.settled}", id_)
                for id_, model in self.items.items()
                if model.state == DONE
            ),
            reverse=True,
        )
        gone = [
            id_
            for settled, _, id_ in done[keep_count:]
            if self.clock - settled / 1_000_000 > keep_seconds
        ]
        for id_ in gone:
            del self.items[id_]
        assert w.prune(
            self.git_dir, keep_seconds=keep_seconds, keep_count=keep_count, now=self.clock
        ) == len(gone)

    @rule(kind=st.sampled_from(KINDS), torn=st.booleans())
    def drop_garbage(self, kind: WorkKind, torn: bool) -> None:
        pending = w.state_directory(self.git_dir, PENDING)
        pending.mkdir(mode=0o700, parents=True, exist_ok=True)
        number = 100 + len(self.garbage) + self.garbage_failed
        if torn:  # well named, not a record: it takes its turn, then ends in failed
            id_ = f"{kind.value}-{oid(number)}"
            self.garbage[id_] = micros(self.clock)
            (pending / f"{id_}.{micros(self.clock)}").write_bytes(b"landwatch-work-item 1\n")
        else:  # not even a name: quarantined when the listing is read
            (pending / f"junk {number}").write_bytes(b"junk")
            self.garbage_failed += 1
            w.forget_listing(self.git_dir)
            assert w.claim_next(self.git_dir, [], now=self.clock) is None
        w.forget_listing(self.git_dir)

    # --- the disk agrees with the model ---

    @invariant()
    def disk_matches_model(self) -> None:
        found = where(self.git_dir)
        for id_, model in self.items.items():
            assert found.pop(id_) == [model.state], id_
            assert tries_of(self.git_dir, id_) == model.tries
        for id_ in self.garbage:
            assert found.pop(id_) == [PENDING]
        assert sum(len(states) for states in found.values()) == self.garbage_failed
        assert all(set(states) == {FAILED} for states in found.values())
        assert known_markers(self.git_dir) == set(self.items)
        claims = sorted(m.claim for m in self.items.values() if m.claim)
        assert sorted(w.entries(self.git_dir, CLAIMED)) == claims


QueueMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=40, deadline=None, print_blob=True
)
TestQueueModel = QueueMachine.TestCase
