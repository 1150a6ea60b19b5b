"""A reflog file as the sweep reads it: entries parsed, the last line taken found again after
`git reflog expire` rewrote the file, whatever git changed in how it writes a line."""

from __future__ import annotations

import time
from pathlib import Path

from landwatch.daemon import reflog
from support.repos import Repo


def dated(seconds_ago: int) -> dict[str, str]:
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) - seconds_ago} +0000"}


def test_an_entry_is_read_from_its_line() -> None:
    line = f"{'0' * 40} {'a' * 40} T <t@example.com> 1700000000 +0100\tcommit: x".encode()
    assert reflog.parse(line) == reflog.Entry("0" * 40, "a" * 40, 1700000000, "commit: x")
    assert reflog.parse(b"garbage") is None
    assert reflog.parse(line.replace(b"a" * 40, b"z" * 40)) is None


def test_a_line_without_a_message_is_the_same_entry_rewritten_with_its_tab() -> None:
    head = f"{'0' * 40} {'a' * 40} T <t@example.com> 1700000000 +0000".encode()
    assert reflog.digest(head) == reflog.digest(head + b"\t")
    assert reflog.digest(head + b"\tcommit: x") != reflog.digest(head + b"\tcommit: y")


def test_the_last_line_taken_is_found_where_an_expire_kept_it(tmp_path: Path) -> None:
    """`git reflog expire` (a gc) rewrites the file: a cursor reads on after its last line,
    even one dated a month back (an update-ref without a message, written without its tab)."""
    repo = Repo(tmp_path / "repo")
    repo.git("commit", "-q", "--allow-empty", "-m", "one", **dated(3600))
    parent = repo.head()
    backdated = repo.git("commit-tree", f"{parent}^{{tree}}", "-p", parent, "-m", "back")
    repo.git("update-ref", "refs/heads/main", backdated, **dated(30 * 86400))
    path = repo.git_dir / "logs" / "refs" / "heads" / "main"
    lines = path.read_bytes().splitlines()
    cursor = reflog.Cursor(path.stat().st_ino, path.stat().st_size, 0, reflog.digest(lines[-1]))
    repo.git("reflog", "expire", "--all")
    info = path.stat()
    assert info.st_ino != cursor.inode  # rewritten
    found = reflog.resumed(path, info, cursor)
    assert found is not None and (found.offset, found.inode) == (info.st_size, info.st_ino)
    taken_before = reflog.Cursor(cursor.inode, 0, 0, reflog.digest(lines[0]))
    after_first = reflog.resumed(path, info, taken_before)
    assert after_first is not None and after_first.offset == len(lines[0]) + 1


def test_a_last_line_an_expire_dropped_or_never_kept_finds_nowhere(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git("commit", "-q", "--allow-empty", "-m", "one")
    path = repo.git_dir / "logs" / "HEAD"
    gone = reflog.Cursor(0, 10, 0, reflog.digest(b"a line that is not there"))
    assert reflog.resumed(path, path.stat(), gone) is None
    assert reflog.resumed(path, path.stat(), reflog.Cursor(0, 10, 0)) is None  # an older release's
