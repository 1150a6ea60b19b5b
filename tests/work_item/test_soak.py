"""Racing producers, consumers and recoverers on one queue, consumers killed with SIGKILL.

Bounded by work done, not by time or a kill count a slow machine cannot reach: the kills go on
until both producers have enqueued everything and consumers have settled half of it (and at least
MIN_KILLS kills, so a fast machine is soaked too). Afterwards every id must have been added once,
settled at most once, and be in exactly one of done/failed, with tries that never went down.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Callable
from multiprocessing.context import ForkProcess
from pathlib import Path

import pytest

from landwatch import work_item as w
from landwatch.work_item import DONE, Enqueued
from support.queue import check_invariants, item, temp_files

IDS = 1500
LEASE = 0.5  # real seconds: killed consumers' claims come back during the soak
MAX_TRIES = 50
MIN_KILLS = 30
FORK = multiprocessing.get_context("fork")


def log(path: Path, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def produce(git_dir: Path, journal: Path, seed: int) -> None:
    numbers = list(range(IDS))
    random.Random(seed).shuffle(numbers)
    for number in numbers:
        if w.enqueue(item(git_dir, number)) is Enqueued.ADDED:
            log(journal, f"added {item(git_dir, number).id}")


def consume(git_dir: Path, journal: Path, seed: int) -> None:
    chance = random.Random(seed)
    while True:
        claimed = w.claim_next(git_dir)
        if claimed is None:
            w.forget_listing(git_dir)
            continue
        log(journal, f"claim {claimed.id} {claimed.item.tries}")
        name: str | None = claimed.name
        roll = chance.random()
        if roll < 0.1:
            w.requeue(git_dir, claimed, max_tries=MAX_TRIES)
            continue
        if roll < 0.2:
            for _ in range(3):
                name = w.renew_claim(git_dir, name) if name else None
        if name is not None and w.settle(git_dir, name, DONE):
            log(journal, f"settled {claimed.id}")


def recover(git_dir: Path) -> None:
    while True:
        w.requeue_expired(git_dir, lease=LEASE, max_tries=MAX_TRIES)


def soaked(producers: list[ForkProcess], journal: Path) -> bool:
    """Enough work done under fire: everything enqueued, half of it settled."""
    if any(producer.is_alive() for producer in producers):
        return False
    return journal.read_bytes().count(b"settled ") >= IDS // 2


def start(target: Callable[..., object], *args: object) -> ForkProcess:
    process = FORK.Process(target=target, args=args, daemon=True)
    process.start()
    return process


@pytest.mark.soak
def test_racing_processes_with_kills_lose_nothing_and_settle_once(git_dir: Path) -> None:
    journal = git_dir.parent / "journal"
    chance = random.Random(1)
    producers = [start(produce, git_dir, journal, seed) for seed in (1, 2)]
    consumers = [start(consume, git_dir, journal, 10 + n) for n in range(3)]
    recoverers = [start(recover, git_dir) for _ in range(2)]
    kills = 0
    hung = time.monotonic() + 600  # not a measure: only so a broken queue fails, not hangs
    while kills < MIN_KILLS or not soaked(producers, journal):
        assert time.monotonic() < hung, "no progress under the kills"
        # Not a wait for time: a pause between kills, so that work happens between them.
        time.sleep(chance.uniform(0.002, 0.02))
        victims = consumers if chance.random() < 0.8 else recoverers
        index = chance.randrange(len(victims))
        assert victims[index].exitcode is None, "a process of the soak died on its own"
        os.kill(victims[index].pid or 0, signal.SIGKILL)
        victims[index].join()
        kills += 1
        again = consume if victims is consumers else recover
        victims[index] = (
            start(consume, git_dir, journal, 100 + kills)
            if again is consume
            else start(recover, git_dir)
        )
    for producer in producers:
        producer.join(timeout=60)
        assert producer.exitcode == 0
    for process in consumers + recoverers:
        os.kill(process.pid or 0, signal.SIGKILL)
        process.join()

    # Drain what is left, as a restarted reviewer would: recovery first, then claims.
    later = time.time() + 2 * w.TMP_GRACE
    w.requeue_expired(git_dir, lease=LEASE, max_tries=MAX_TRIES, now=later)
    w.forget_listing(git_dir)
    while (claimed := w.claim_next(git_dir)) is not None:
        log(journal, f"claim {claimed.id} {claimed.item.tries}")
        assert w.settle(git_dir, claimed)
        log(journal, f"settled {claimed.id}")

    lines = [line.split(" ") for line in journal.read_text().splitlines()]
    added = collections.Counter(words[1] for words in lines if words[0] == "added")
    settled = collections.Counter(words[1] for words in lines if words[0] == "settled")
    ids = {item(git_dir, n).id for n in range(IDS)}
    assert set(added) == ids and set(added.values()) == {1}  # racing producers: one winner
    assert max(settled.values()) == 1  # nothing settled twice
    states = check_invariants(git_dir)
    assert states == dict.fromkeys(ids, DONE)  # nothing lost
    tries: dict[str, int] = {}
    for words in lines:
        if words[0] == "claim":
            assert int(words[2]) >= tries.get(words[1], 0), words  # tries never decrease
            tries[words[1]] = int(words[2])
    assert temp_files(git_dir) == []
    assert kills >= MIN_KILLS
