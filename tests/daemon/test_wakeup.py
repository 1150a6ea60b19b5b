"""What wakes the resident loop (daemon.wakeup): set from a thread or a signal handler, never a
lock that the interrupted thread may hold, and no descriptor left behind."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from landwatch.daemon.wakeup import Wakeup


def open_pipes() -> dict[int, str]:
    """This process's descriptors open on a pipe, each with the pipe's name (its inode)."""
    pipes = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed since
            link = os.readlink(f"/proc/self/fd/{name}")
            if link.startswith("pipe:"):
                pipes[int(name)] = link
    return pipes


def test_a_wakeup_set_before_the_wait_returns_at_once_and_clear_forgets_it() -> None:
    wakeup = Wakeup()
    assert not wakeup.wait(0)
    wakeup.set()
    wakeup.set()
    assert wakeup.wait(60)
    wakeup.clear()
    assert not wakeup.wait(0)


def test_a_set_from_another_thread_ends_a_long_wait() -> None:
    wakeup = Wakeup()
    setter = threading.Thread(target=wakeup.set)
    setter.start()
    assert wakeup.wait(600)  # False only after ten minutes: the set was lost
    setter.join()


@pytest.fixture
def sigusr1_sets() -> Iterator[Wakeup]:
    wakeup = Wakeup()

    def handler(number: int, frame: FrameType | None) -> None:
        wakeup.set()

    previous = signal.signal(signal.SIGUSR1, handler)
    yield wakeup
    signal.signal(signal.SIGUSR1, previous)


def test_a_signal_handler_that_sets_ends_the_wait_of_the_thread_it_interrupted(
    sigusr1_sets: Wakeup,
) -> None:
    sender = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGUSR1))
    sender.start()
    assert sigusr1_sets.wait(600)
    sender.join()


def test_a_thousand_signals_in_a_burst_each_handled_never_blocking(sigusr1_sets: Wakeup) -> None:
    """The pipe holds far fewer bytes than are written here: a full pipe must not block the
    handler, whose thread would then wait for itself."""
    for _ in range(200_000):
        sigusr1_sets.set()
    for _ in range(1000):
        os.kill(os.getpid(), signal.SIGUSR1)
    assert sigusr1_sets.wait(0)
    sigusr1_sets.clear()
    assert not sigusr1_sets.wait(0)


def test_its_pipe_is_not_inherited_and_closes_once_nothing_refers_to_it() -> None:
    """Not inherited by the tools the reviewer runs; closed with the last reference, so a late
    set can never write into a descriptor number reused for another file."""
    before = open_pipes()
    wakeup = Wakeup()
    # Its two ends are the new descriptors that name one pipe (other threads may open others).
    new = {end: link for end, link in open_pipes().items() if before.get(end) != link}
    [pipe] = [link for link in set(new.values()) if list(new.values()).count(link) == 2]
    ends = [end for end, link in new.items() if link == pipe]
    assert not any(os.get_inheritable(end) for end in ends)
    del wakeup
    gc.collect()
    assert pipe not in open_pipes().values()
