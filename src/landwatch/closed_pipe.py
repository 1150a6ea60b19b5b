"""A command's stdout whose reader went away (`landwatch rules | head`, `landwatch install |
head -1`): nothing said of it, and a command that changes things as it speaks finishes them.

Python ignores SIGPIPE, so a write into a pipe nobody reads raises BrokenPipeError wherever the
command is. For a command that only prints, ending there is right; one that writes state between
its lines was left half done (install: the hooks written, the repository not registered, so
nothing drained what they recorded). Inside `carrying_on`, such a command says nothing more once
its reader is gone and goes on to its end.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO, cast


def write_nowhere(stream: TextIO) -> None:
    """`stream`'s file descriptor pointed at /dev/null: what is still buffered in it, flushed at
    exit, goes nowhere rather than failing again (Python's "Exception ignored" at exit)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, stream.fileno())
    os.close(null)


class _CarryingOn:
    """A text stream that stops writing, silently, once its reader is gone (`gone`)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._went()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._went()

    def _went(self) -> None:
        self.gone = True
        write_nowhere(self._stream)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding: the stream's own
        return getattr(self._stream, name)


@contextlib.contextmanager
def carrying_on(wanted: bool = True) -> Iterator[None]:
    """Inside (when `wanted`), sys.stdout one that a reader gone silences instead of raising,
    flushed before it is put back: buffered output (a pipe's) fails there, not at exit."""
    if not wanted:
        yield
        return
    real = sys.stdout
    carrying = _CarryingOn(real)
    sys.stdout = cast(TextIO, carrying)
    try:
        yield
    finally:
        carrying.flush()
        sys.stdout = real
