"""git as bench/independent_pass.py reads it, run as a subprocess (never landwatch's): one bare
repository's commits, their changed files, their blobs through one `cat-file` pair, and what
`git diff --check` tells of them.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from independent_checks import Finding

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
CHECKED = re.compile(rb"^(.*):(\d+): (.+)\.$")
ESCAPES = {ord(k): v for k, v in zip('abtnvfr"\\', b'\a\b\t\n\v\f\r"\\', strict=True)}


@dataclass(frozen=True)
class Entry:
    """One file a commit changed: its path, modes and blobs on both sides, and its status."""

    path: str
    old_mode: str
    new_mode: str
    old: str
    new: str
    status: str

    @property
    def present(self) -> bool:
        """A regular file at the commit (not deleted, a link or a submodule)."""
        return self.status != "D" and self.new_mode.startswith("100")

    @property
    def had(self) -> bool:
        """A regular file at the parent."""
        return self.old_mode.startswith("100")


class Repo:
    """One repository read through git: plain commands, streamed output, and blobs by name."""

    def __init__(self, gitdir: Path) -> None:
        self.gitdir = gitdir
        named = gitdir.parent.name if gitdir.name in ("repo", ".git") else gitdir.name
        self.name = named.removesuffix(".git").replace("+", "/")
        self.env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "C"}
        self.base = ["git", f"--git-dir={gitdir}", "-c", "core.quotePath=false"]
        self._batch: subprocess.Popen[bytes] | None = None
        self._check: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Repo:
        self._batch = self._pipe("--batch")
        self._check = self._pipe("--batch-check")
        return self

    def _pipe(self, mode: str) -> subprocess.Popen[bytes]:
        command = [*self.base, "cat-file", mode]
        return subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env
        )

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for process in (self._batch, self._check):
            if process is not None and process.stdin is not None:
                process.stdin.close()
                process.wait()

    def git(self, *args: str, ok: tuple[int, ...] = (0,)) -> bytes:
        done = subprocess.run([*self.base, *args], capture_output=True, env=self.env)
        if done.returncode not in ok:
            message = done.stderr.decode(errors="replace").strip()
            raise RuntimeError(f"{self.name}: git {args[0]}: {message}")
        return done.stdout

    def stream(self, *args: str, ok: tuple[int, ...] = (0,)) -> Iterator[bytes]:
        """The lines of a git command's output as it writes them: a large diff is never held."""
        command = [*self.base, *args]
        with subprocess.Popen(command, stdout=subprocess.PIPE, env=self.env) as process:
            assert process.stdout is not None
            yield from process.stdout
        if process.returncode not in ok:
            raise RuntimeError(f"{self.name}: git {args[0]} exited {process.returncode}")

    def size(self, name: str) -> int | None:
        """The size of the blob `name` (an id or `commit:path`), None when it is no blob."""
        if not name or "\n" in name or self._check is None:
            return None
        header = _ask(self._check, name)
        parts = header.split()
        return int(parts[2]) if len(parts) == 3 and parts[1] == b"blob" else None

    def read(self, name: str, limit: int) -> bytes | None:
        """The blob `name`, None when it is no blob or is larger than `limit` bytes."""
        size = self.size(name)
        if size is None or size > limit or self._batch is None:
            return None
        _ask(self._batch, name)
        stdout: IO[bytes] | None = self._batch.stdout
        assert stdout is not None
        return stdout.read(size + 1)[:-1]


def _ask(process: subprocess.Popen[bytes], name: str) -> bytes:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(name.encode() + b"\n")
    process.stdin.flush()
    return process.stdout.readline()


def unquoted(raw: bytes) -> str:
    """A path as git prints it in a diff, its C-style quoting undone."""
    if not (len(raw) >= 2 and raw.startswith(b'"') and raw.endswith(b'"')):
        return raw.decode("utf-8", errors="replace")
    out, i = bytearray(), 1
    while i < len(raw) - 1:
        if raw[i] != ord("\\"):
            out.append(raw[i])
            i += 1
        elif raw[i + 1 : i + 2].isdigit():
            out.append(int(raw[i + 1 : i + 4], 8))
            i += 4
        else:
            out.append(ESCAPES.get(raw[i + 1], raw[i + 1]))
            i += 2
    return out.decode("utf-8", errors="replace")


def changed_files(repo: Repo, parent: str, sha: str) -> list[Entry]:
    """The files `sha` changed against `parent` (a commit, or the empty tree), renames as a
    deletion and an addition."""
    fields = repo.git("diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", parent, sha)
    parts = fields.split(b"\0")
    entries = []
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        old_mode, new_mode, old, new, status = meta[1:].decode().split()
        name = path.decode("utf-8", errors="replace")
        entries.append(Entry(name, old_mode, new_mode, old, new, status[:1]))
    return entries


def check_problems(repo: Repo, parent: str, sha: str, paths: set[str]) -> Iterator[Finding]:
    """What `git diff --check` tells of the commit's files in `paths`, once a file and a problem
    (its first line and how many), a CR at a line's end and conflict markers left out."""
    configured = repo.git("config", "--get", "core.whitespace", ok=(0, 1)).decode().strip()
    whitespace = ",".join(filter(None, [configured, "cr-at-eol"]))
    seen: dict[tuple[str, str], list[int]] = {}
    for raw in repo.stream(
        "-c", f"core.whitespace={whitespace}", "diff", "--check", "--no-renames", "--no-color",
        "--no-ext-diff", parent, sha, ok=(0, 2),
    ):  # fmt: skip
        told = CHECKED.match(raw.rstrip(b"\n")) if not raw.startswith(b"+") else None
        if told is None:
            continue
        path, message = unquoted(told.group(1)), told.group(3).decode(errors="replace")
        if path in paths and message != "leftover conflict marker":
            seen.setdefault((path, message), []).append(int(told.group(2)))
    for (path, message), lines in seen.items():
        kind = re.sub(r"[^a-z]+", "-", message.lower()).strip("-")
        detail = message if len(lines) == 1 else f"{message} ({len(lines)} lines)"
        yield Finding(kind, path, lines[0], detail)
