"""What wakes the resident loop: a byte written to a pipe, from any thread or a signal handler.

It replaces a threading.Event, whose set() takes a lock: a signal handler that ran while its
own thread held that lock (inside Event.wait) waited for itself forever, and the reviewer hung
on SIGTERM. A write to a non-blocking pipe takes no lock at all.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import weakref


class Wakeup:
    """`set` from anywhere; `wait` in the loop's thread until set or the timeout; `clear` forgets
    the wake-ups seen. The pipe closes when nothing refers to it any more, so that no late
    `set` can write into a descriptor number the process has since given to another file."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        for end in (self._read, self._write):
            os.set_blocking(end, False)
            os.set_inheritable(end, False)
        weakref.finalize(self, _close, self._read, self._write)

    def set(self) -> None:
        # A full pipe already holds a wake-up nobody has read: this one adds nothing.
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"\0")

    def wait(self, timeout: float) -> bool:
        """True when set (now or within `timeout` seconds); a signal that arrives meanwhile
        runs its handler and the wait goes on (PEP 475), woken only if the handler sets."""
        poller = select.poll()
        poller.register(self._read, select.POLLIN)
        return bool(poller.poll(math.ceil(max(0.0, timeout) * 1000)))

    def clear(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self._read, 4096):
                pass


def _close(*descriptors: int) -> None:
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            os.close(descriptor)
