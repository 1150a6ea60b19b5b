"""Real repositories with landwatch's hooks installed, landings in them, what their queues hold."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from landwatch import cli, work_item
from landwatch.commands import install
from landwatch.work_item import PENDING, WorkKind
from support.queue import git, git_env

Files = Mapping[str, str | bytes | None]


class Repo:
    def __init__(self, path: Path, *, initial: bool = True, clone_of: Path | None = None) -> None:
        self.path = path
        self.said = ""  # what the hooks printed at the last landing
        if clone_of is not None:
            git("clone", "-q", str(clone_of), str(path), cwd=clone_of)
            return
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        if initial:
            self.land("initial", hooks=False)

    @classmethod
    def existing(cls, path: Path) -> Repo:
        """The worktree already at `path` (moved, copied, made by git itself)."""
        repo = cls.__new__(cls)
        repo.path, repo.said = path, ""
        return repo

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

    def stage(self, files: Files) -> None:
        """Write `files` into the worktree and the index (None deletes one)."""
        deleted = [name for name, content in files.items() if content is None]
        for name, content in files.items():
            if content is not None:
                path = self.path / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content.encode() if isinstance(content, str) else content)
        if deleted:
            self.git("rm", "-q", "--", *deleted)
        if len(deleted) < len(files):
            self.git("add", "--", *(name for name in files if name not in deleted))

    def link(self, links: Mapping[str, str]) -> None:
        """Write each link (its path to what it points at) into the worktree and the index, in
        place of what was there."""
        for name, target in links.items():
            path = self.path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.is_file():
                path.unlink()
            path.symlink_to(target)
        self.git("add", "--", *links)

    def land(
        self,
        message: str = "change",
        files: Files | str = "file",
        *,
        hooks: bool = True,
        verbatim: bool = False,
        author: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> str:
        """Commit `files` (paths to contents, None deleting one; or one path to write the
        message into) with the hooks running unless `hooks` is False; the new HEAD.

        `verbatim` keeps the message exactly (no cleanup, even an empty change is committed).
        """
        self.stage({files: message + "\n"} if isinstance(files, str) else files)
        options = ["--allow-empty", "--cleanup=verbatim"] if verbatim else []
        if author is not None:
            options += ["--author", author]
        message_file = self.path.parent / f".{self.path.name}-message"
        message_file.write_bytes(message.encode())
        extra = {**(env or {}), **({} if hooks else {"LANDWATCH": "0"})}
        result = self.run("commit", "-q", *options, "-F", str(message_file), **extra)
        assert result.returncode == 0, result.stderr
        self.said = result.stderr
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    @property
    def git_dir(self) -> Path:
        return Path(self.git("rev-parse", "--absolute-git-dir"))

    def landwatch(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`landwatch ARGS` run in this repository, as a person would type it."""
        return subprocess.run(
            [sys.executable, "-m", "landwatch", *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )

    def install(self) -> str:
        out = io.StringIO()
        install.install(self.path, out=out)
        return out.getvalue()

    def pending(
        self, git_dir: Path | None = None, kind: str = WorkKind.REVIEW
    ) -> list[tuple[str, str | None]]:
        """(oid, base) of every pending item of a kind (review by default), oldest first."""
        where = git_dir or self.git_dir
        work_item.publish_ready(where)  # what a consumer does first with what the hooks left
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


def installed(path: Path) -> Repo:
    repo = Repo(path)
    repo.install()
    return repo


def separate_git_dir(tmp_path: Path) -> Repo:
    """A repository made with --separate-git-dir: its `.git` a file naming `work.git` beside."""
    work = tmp_path / "work"
    work.mkdir()
    git("init", "-q", "-b", "main", f"--separate-git-dir={tmp_path / 'work.git'}", cwd=work)
    return Repo.existing(work)


def submodule(tmp_path: Path) -> Repo:
    """A submodule: its git dir `.git/modules/lib` of the superproject, core.worktree naming it."""
    outer, library = Repo(tmp_path / "outer"), Repo(tmp_path / "library")
    outer.git(
        "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library.path), "lib"
    )
    return Repo.existing(outer.path / "lib")


def bare_worktree(tmp_path: Path) -> Repo:
    """A linked worktree (`wt`, on main) of a bare repository (`shop.git`), where its work is done:
    the bare repository has no worktree of its own."""
    bare = tmp_path / "shop.git"
    git("init", "-q", "--bare", "-b", "main", str(bare), cwd=tmp_path)
    seed = Repo(tmp_path / "seed")
    seed.git("push", "-q", str(bare), "main")
    git("worktree", "add", "-q", str(tmp_path / "wt"), "main", cwd=bare)
    return Repo.existing(tmp_path / "wt")


def sharing_hooks(directory: Path, *paths: Path) -> list[Repo]:
    """Repositories at `paths` whose hooks git runs from `directory`, the global core.hooksPath
    (made), landwatch installed in each there on purpose (`install --hooks-path`)."""
    directory.mkdir(exist_ok=True)
    git("config", "--global", "core.hooksPath", str(directory), cwd=directory)
    repos = [Repo(path) for path in paths]
    for repo in repos:
        assert install.install(repo.path, hooks_path=directory, out=io.StringIO()) == 0
    return repos


def back_date(repo: Repo, seconds: float) -> None:
    """Make every pending item look `seconds` old, as git's tests age gc.log with chmtime."""
    work_item.publish_ready(repo.git_dir)
    pending = repo.git_dir / "landwatch" / PENDING
    stamp = int((time.time() - seconds) * 1_000_000)
    for name in os.listdir(pending):
        os.rename(pending / name, pending / f"{work_item.id_of_entry(name)}.{stamp}")


# What an archive can leave where git keeps a pointer (`commondir`, `gitdir`): a FIFO nobody ever
# writes to, or a link to a file that never ends.
FIFO, ENDLESS = "a FIFO", "a link to /dev/zero"


def worktree_entry(git_dir: Path, dot_git: Path) -> Path:
    """A linked worktree's entry an archive's repository can hold, `worktrees/evil`: its HEAD,
    its commondir naming the repository, its gitdir naming `dot_git` as its worktree's `.git`."""
    entry = git_dir / "worktrees" / "evil"
    entry.mkdir(parents=True)
    (entry / "HEAD").write_bytes((git_dir / "HEAD").read_bytes())
    (entry / "gitdir").write_text(f"{dot_git}\n")
    (entry / "commondir").write_text("../..\n")
    return entry


def planted_worktree(git_dir: Path, pointer: str, planted: str) -> Path:
    """worktree_entry, its worktree nowhere, with `pointer` made `planted`."""
    entry = worktree_entry(git_dir, Path("/nowhere/.git"))
    (entry / pointer).unlink()
    if planted == FIFO:
        os.mkfifo(entry / pointer)
    else:
        (entry / pointer).symlink_to("/dev/zero")
    return entry


# A hook of another tool's, which logs how it was run (its name, <event>.before-landwatch once kept,
# its arguments and post-rewrite's stdin) to `log`.
FOREIGN = """#!/bin/sh
echo "foreign $(basename "$0") $*" >> "{log}"
[ "$(basename "$0")" = post-rewrite.before-landwatch ] && cat >> "{log}"
exit {status}
"""


def foreign_hook(repo: Repo, event: str, log: Path, status: int = 0) -> Path:
    """A foreign `event` hook in `repo` that logs to `log` and exits `status`."""
    hook = repo.git_dir / "hooks" / event
    hook.write_text(FOREIGN.format(log=log, status=status))
    hook.chmod(0o751)
    return hook


def run_cli(repo: Repo, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`landwatch ARGS` run in this process in `repo`: its exit status and all it said."""
    cwd = Path.cwd()
    os.chdir(repo.path)
    try:
        code = cli.main(list(args))
    finally:
        os.chdir(cwd)
    captured = capsys.readouterr()
    return code, captured.out + captured.err
