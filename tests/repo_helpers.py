"""Real repositories with landwatch's hooks installed, and what their queues hold."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from landwatch import install, work_item
from landwatch.work_item import PENDING, WorkKind
from queue_helpers import git, git_env


class Repo:
    def __init__(self, path: Path, *, initial: bool = True) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        if initial:
            self.commit("initial", hooks=False)

    def git(self, *args: str, **env: str) -> str:
        return git(*args, cwd=self.path, **env)

    def run(
        self, *args: str, stdin: str | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args],
            cwd=self.path,
            env=git_env(**env),
            capture_output=True,
            text=True,
            input=stdin if stdin is not None else "",
        )

    def commit(
        self, message: str, *, name: str = "file", content: str | None = None, hooks: bool = True
    ) -> str:
        (self.path / name).write_text(content if content is not None else message + "\n")
        self.git("add", name)
        extra = {} if hooks else {"LANDWATCH": "0"}
        self.git("commit", "-q", "-m", message, **extra)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    @property
    def git_dir(self) -> Path:
        return Path(self.git("rev-parse", "--absolute-git-dir"))

    def install(self, *args: str) -> str:
        out = io.StringIO()
        install.install(self.path, out=out)
        return out.getvalue()

    def pending(
        self, git_dir: Path | None = None, kind: WorkKind = WorkKind.REVIEW
    ) -> list[tuple[str, str | None]]:
        """(oid, base) of every pending item of a kind (review by default), oldest first."""
        where = git_dir or self.git_dir
        found = []
        for name in work_item.entries(where, PENDING):
            item = work_item.read_entry(where, PENDING, name)
            if item is not None and item.kind == kind:  # garbage a test planted is not an item
                found.append((name.rpartition(".")[2], item.oid, item.base))
        return [(oid, base) for _, oid, base in sorted(found)]

    def clear(self, git_dir: Path | None = None) -> None:
        """Settle everything pending, so the next landing stands alone."""
        where = git_dir or self.git_dir
        while (claimed := work_item.claim_next(where)) is not None:
            work_item.settle(where, claimed)


def reviewer_once(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`landwatch reviewer --once` with the built-in kinds, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "landwatch", "reviewer", "--once", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def installed(path: Path) -> Repo:
    repo = Repo(path)
    repo.install()
    return repo
