"""A file too large to hold (past change.MAX_LINE_CHECK_BYTES): told binary or text by its first
bytes, and of a text one the added lines read from git a piece at a time, for the push gate's scan.

The review gives such a file no line checks and says it did not read its change whole (its
blocking marker is `unchecked`), so a push of it asks the gate, which reads it here: each byte
once, never more than PIECE bytes of its lines held, at most the scan's cap of added lines.
"""

from __future__ import annotations

import io
import subprocess
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from functools import partial
from typing import IO

from landwatch.lazy_re import lazy_compile
from landwatch.review.binary import AS_IT_IS, SNIFF_BYTES, as_text, looks_binary
from landwatch.review.change import MAX_LINE_CHECK_BYTES, MODE_SUBMODULE, FileChange
from landwatch.review.diffs import Line

# The most of a large file's added lines held at once, and the longest line read as one: a longer
# one is read in parts this long, and a secret across two parts is not seen.
PIECE = MAX_LINE_CHECK_BYTES
# How such a file is read from git (git.git_output: `git ARGS` on a git dir, read as it comes),
# given by the review's caller: the review knows no git. Without it one is taken for text, unread.
Reader = Callable[..., AbstractContextManager[subprocess.Popen[bytes]]]
# Where a hunk of `git diff -U0` starts in the new file.
_HUNK = lazy_compile(rb"@@ -[0-9]+(?:,[0-9]+)? \+([0-9]+)")


def sniffed(file: FileChange) -> tuple[bool, str | None]:
    """Whether `file`, too large to read whole, is binary (its attributes say so: `binary`,
    `-diff`; or its first bytes, review.binary), and what its text is in (None: it holds none),
    read from git alone. Text git calls binary (those attributes, UTF-16) is the secret rules' to
    read, at a push; one that cannot be read so is taken for text: the gate asks of it."""
    change = file.change
    told = change.attribute(file.path, "diff") is False
    if change.reader is None:
        return told, AS_IT_IS
    try:
        with change.reader("cat-file", "blob", str(file.new_id), git_dir=change.repo.path) as git:
            assert git.stdout is not None
            head = git.stdout.read(SNIFF_BYTES)
    except Exception:  # git not there (UserError), a pipe gone: taken for text, as unread
        return told, AS_IT_IS
    text = as_text(head)
    return told or looks_binary(head), None if text is None else text.encoding


def pieces(file: FileChange, seconds: float) -> Generator[list[Line], None, None]:
    """The added lines of `file`, a text file too large to hold, in pieces of PIECE bytes or
    fewer, counted against its change's cap (past it: truncated); git is stopped after `seconds`.
    Read to its end, the file's lines are no longer unchecked."""
    change = file.change
    assert change.reader is not None  # only a review given one reads such a file
    as_it_is = file.encoding == AS_IT_IS  # else decoded, each line: git diffs no UTF-16 text
    if file.old_id is not None and file.old_mode not in (0, MODE_SUBMODULE) and as_it_is:
        diff = ("diff", "-U0", "--text", "--no-color", "--no-ext-diff", "--no-textconv")
        args: tuple[str, ...] = (*diff, file.old_id, str(file.new_id))
    else:
        args = ("cat-file", "blob", str(file.new_id))
    with change.reader(*args, git_dir=change.repo.path) as git:
        assert git.stdout is not None
        timer = threading.Timer(max(0.0, seconds), git.kill)
        timer.start()
        try:
            piece: list[Line] = []
            held, capped = 0, False
            for line in _added(git.stdout, patch=args[0] == "diff", encoding=file.encoding):
                if capped := change.lines_read >= change.max_added_lines:
                    break
                piece.append(line)
                held += len(line.raw)
                change.lines_read += 1
                if held >= PIECE:
                    yield piece
                    piece, held = [], 0
            if piece:
                yield piece
            if capped:  # git is stopped as it writes the rest
                change.truncated, file.unchecked_lines = True, "line cap reached"
            elif git.wait() == 0:
                file.unchecked_lines = None  # read whole
        finally:
            timer.cancel()


def _added(stream: IO[bytes], *, patch: bool, encoding: str | None = AS_IT_IS) -> Iterator[Line]:
    """The added lines `stream` holds: every line of a blob (decoded from `encoding`), or the `+`
    lines of a patch, each numbered in the new file; a line longer than PIECE comes in parts of
    the same number."""
    number = 0  # the number of the line being read
    adding = not patch  # whether the line being read is an added one
    whole = True  # whether the last part read ended its line
    in_hunk = False
    for part in _parts(stream, encoding):
        starts = whole
        whole = part.endswith(b"\n")
        if starts and patch:
            if (hunk := _HUNK.match(part)) is not None:
                number, in_hunk, adding = int(hunk[1]) - 1, True, False
                continue
            adding = in_hunk and part.startswith(b"+")
            part = part[1:]
        if not adding:
            continue
        number += starts
        yield _line(number, part)


def _parts(stream: IO[bytes], encoding: str | None) -> Iterator[bytes]:
    """What `stream` holds, a line at a time in parts of PIECE bytes at most: as it is, or UTF-8
    decoded from `encoding` (UTF-16) as it comes, a newline ending a line as in git."""
    if encoding in (None, AS_IT_IS):
        yield from iter(partial(stream.readline, PIECE), b"")
        return
    text = io.TextIOWrapper(stream, encoding, errors="replace", newline="\n")
    try:
        for part in iter(partial(text.readline, PIECE // 4), ""):  # 4 bytes at most a character
            yield part.encode("utf-8")
    finally:
        text.detach()  # the stream stays git's to close


def _line(number: int, raw: bytes) -> Line:
    if raw.endswith(b"\r\n"):
        return Line(number, raw[:-2], b"\r\n")
    if raw.endswith(b"\n"):
        return Line(number, raw[:-1], b"\n")
    return Line(number, raw, b"")
