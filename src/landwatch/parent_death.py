"""A process of ours that must not outlive the one that started it (the warm worker, the linters
it runs): the kernel kills it when its parent dies, however the parent died (SIGKILL included).

Linux only (prctl PR_SET_PDEATHSIG); elsewhere the worker notices its closed pipe instead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def die_with_parent(parent: int | None = None) -> bool:
    """Have the kernel SIGKILL this process when its parent goes; True when it will.

    With `parent` (the pid that started us), a parent already gone before the request could
    take effect ends this process at once.
    """
    prctl = _prctl()
    return prctl is not None and _request(prctl, parent)


def child_dies_with_us() -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess that makes the child die with this process. libc is
    looked up here, before the fork: the child only makes the one call."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def request() -> None:
        _request(prctl, parent)

    return request


def _request(prctl: Callable[..., int], parent: int | None) -> bool:
    if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # orphaned between the fork and the request: nobody waits for this work
    return True
