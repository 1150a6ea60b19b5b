"""Driving kinds in tests: a reporter outside any queue, an in-process reviewer on a fake clock,
bare remotes that log every push they receive, and a push the gate's hook alone lets go."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from landwatch import layout
from landwatch.daemon.loop import Daemon
from landwatch.daemon.settings import Settings
from landwatch.job_queue import Job, Reporter
from landwatch.kinds.base import ItemHandler
from support.queue import git
from support.repos import Repo


class FakeClock:
    def __init__(self) -> None:
        self.wall = 1_800_000_000.0
        self.mono = 1000.0

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.mono

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds

    def sleep(self, seconds: float) -> None:
        """Sleeping advances it: nothing waits."""
        self.advance(seconds)


def reporter() -> Reporter:
    return Reporter(Job("test-1", "test", "key", None), lambda job: None)


def in_process(handlers: dict[str, ItemHandler[Any]], clock: FakeClock, state: Path) -> Daemon:
    assert all(handler.clock is clock for handler in handlers.values()), "give handlers the clock"
    reviewer = Daemon(handlers, Settings(watch=False), clock=clock, state_file=state)
    reviewer.reload()
    return reviewer


def settle_down(reviewer: Daemon, rounds: int = 50) -> None:
    """Tick until nothing more can be claimed now (held repositories wait for the clock)."""
    for _ in range(rounds):
        reviewer.tick()
        for line in reviewer.queues.values():
            assert line.wait_idle(60)
        if reviewer.drained():
            return
    raise AssertionError("the reviewer never settled down")


def bare_remote(path: Path) -> Path:
    """A bare repository whose post-receive hook logs one line per push it receives."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    hook = path / "hooks" / "post-receive"
    hook.write_text(f'#!/bin/sh\ncat >> "{path}/pushes.log"\n')
    hook.chmod(0o755)
    return path


def origin(repo: Repo, path: Path) -> Path:
    """A bare remote at `path`, the repository's `origin`, holding its main already."""
    remote = bare_remote(path)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "--no-verify", "origin", "main")
    return remote


def entry_point_logging(log: Path, status: int = 0) -> None:
    """The entry point the hooks call, replaced by one that logs each call and exits `status`."""
    entry = layout.ENTRY_POINT.path()
    entry.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\ncat > /dev/null\nexit {status}\n')


def pushed_by_the_hook_alone(repo: Repo, remote: Path, log: Path) -> str:
    """A push of main to origin the hook let go with no Python started (the entry point logs any
    call to `log`); what it said."""
    entry_point_logging(log)
    result = repo.run("push", "origin", "main")
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == repo.head()
    assert not log.exists()
    return result.stderr


def persons_pre_push(repo: Repo, log: Path, hooks_path: str | None = None) -> None:
    """A pre-push hook of the person's beside the gate (kept by `landwatch install`, in
    `hooks_path` when given, a relative core.hooksPath), that logs where it runs to `log` and
    refuses a push unless run in the worktree, as pre-commit's, which reads its configuration
    there ("No .pre-commit-config.yaml file was found")."""
    repo.land("the hook's configuration", {"hook-config": "x\n"})
    hooks = repo.git_dir / "hooks"
    if hooks_path is not None:
        repo.git("config", "core.hooksPath", hooks_path)
        hooks = repo.path / hooks_path
        hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "pre-push"
    hook.write_text(
        f'#!/bin/sh\necho "$PWD" >> "{log}"\ncat > /dev/null\n'
        '[ -f hook-config ] || { echo "No hook-config file was found" >&2; exit 1; }\n'
    )
    hook.chmod(0o755)
    where = ["--hooks-path", str(hooks)] if hooks_path is not None else []
    installed = repo.landwatch("install", *where)
    said = installed.stdout + installed.stderr
    assert installed.returncode == 0 and "kept your pre-push hook" in said, said


def pushes(remote: Path) -> list[str]:
    log = remote / "pushes.log"
    return log.read_text().splitlines() if log.exists() else []


def remote_head(remote: Path, branch: str = "main") -> str:
    return git("--git-dir", str(remote), "rev-parse", f"refs/heads/{branch}", cwd=remote)
