"""The `maintenance` kind: after landings, git's own maintenance for the repository, at most once
per interval, never twice with `git maintenance start` and never while git holds its locks.

On by default: `git maintenance run --auto` only works when git's own thresholds say so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from landwatch import work_item
from landwatch.git import no_git_env
from landwatch.job_queue import Reporter
from landwatch.kinds.base import RetryLater, WorkItemKind, run_command
from landwatch.review.report import common_dir
from landwatch.work_item import WorkItem, WorkKind

DEFAULT_INTERVAL = 3600.0
RUN_TIMEOUT = 3600.0
LOCKED_RETRY = 300.0
# The µs stamp before which the hooks ask for no maintenance again: they read it, without
# starting a process, to decide whether a landing should enqueue a maintenance item.
NEXT_FILE = "maintenance-after"
# When maintenance last ran (µs), so that items asked for meanwhile do not run it twice.
RAN_FILE = "maintenance-ran"


@dataclass
class MaintenanceReport:
    ran: bool
    note: str
    command: str = ""


def _stamp_path(git_dir: Path, name: str) -> Path:
    return common_dir(git_dir) / work_item.WORK_DIRECTORY / name


def _write_stamp(git_dir: Path, name: str, moment: float) -> None:
    path = _stamp_path(git_dir, name)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(f"{int(moment * 1_000_000)}\n")
    os.replace(temporary, path)


def _read_stamp(git_dir: Path, name: str) -> float:
    try:
        return int(_stamp_path(git_dir, name).read_text().strip()) / 1_000_000
    except (OSError, ValueError):
        return 0.0


def next_allowed(git_dir: Path) -> float:
    """When the hooks may ask for maintenance again."""
    return _read_stamp(git_dir, NEXT_FILE)


def last_ran(git_dir: Path) -> float:
    return _read_stamp(git_dir, RAN_FILE)


class MaintenanceKind(WorkItemKind[MaintenanceReport]):
    work_kind = WorkKind.MAINTENANCE

    def handle(self, item: WorkItem, reporter: Reporter) -> MaintenanceReport:
        git_dir, common = item.git_dir, common_dir(item.git_dir)
        now = self.clock.time()
        if self._config(common, reporter, "landwatch.maintenance", "--type=bool") == "false":
            return MaintenanceReport(False, "turned off (landwatch.maintenance = false)")
        interval = self._interval(common, reporter)
        if now - last_ran(git_dir) < interval:
            return MaintenanceReport(False, "ran less than an interval ago")
        if self._scheduled_by_git(common, reporter):
            _write_stamp(git_dir, NEXT_FILE, now + interval)
            return MaintenanceReport(False, "git maintenance start schedules this repository")
        locked = self._locked(common)
        if locked:
            raise RetryLater(f"{locked}: another git process is at work", after=LOCKED_RETRY)
        command = ["git", f"--git-dir={common}", "maintenance", "run", "--auto", "--quiet"]
        result = self._run(command, reporter)
        if result[0] != 0 and "is not a git command" in result[1]:
            command = ["git", f"--git-dir={common}", "gc", "--auto", "--quiet"]  # git < 2.29
            result = self._run(command, reporter)
        code, stderr = result
        if code != 0:
            if "lock" in stderr.lower() or "another git process" in stderr.lower():
                raise RetryLater(f"{stderr.strip()[:200]}", after=LOCKED_RETRY)
            raise RuntimeError(f"{' '.join(command[2:])} failed: {stderr.strip()[:300]}")
        finished = self.clock.time()
        _write_stamp(git_dir, RAN_FILE, finished)
        _write_stamp(git_dir, NEXT_FILE, finished + interval)
        return MaintenanceReport(True, "done", " ".join(command[2:]))

    def _run(self, command: list[str], reporter: Reporter) -> tuple[int, str]:
        result = run_command(command, reporter=reporter, timeout=RUN_TIMEOUT, env=self._env())
        if result.timed_out:
            raise RuntimeError(f"{' '.join(command[2:])} ran longer than {RUN_TIMEOUT:.0f} s")
        return result.returncode, result.stderr

    @staticmethod
    def _env() -> dict[str, str]:
        env = no_git_env()
        env["GIT_TERMINAL_PROMPT"] = "0"
        return env

    def _config(self, common: Path, reporter: Reporter, key: str, *options: str) -> str:
        result = run_command(
            ["git", f"--git-dir={common}", "config", *options, "--get", key],
            reporter=reporter,
            timeout=30,
            env=self._env(),
        )
        return result.stdout.strip() if result.returncode == 0 else ""

    def _interval(self, common: Path, reporter: Reporter) -> float:
        value = self._config(common, reporter, "landwatch.maintenance.interval")
        try:
            return max(60.0, float(value)) if value else DEFAULT_INTERVAL
        except ValueError:
            return DEFAULT_INTERVAL

    def _scheduled_by_git(self, common: Path, reporter: Reporter) -> bool:
        """`git maintenance start/register` lists the repository in maintenance.repo."""
        result = run_command(
            ["git", "config", "--global", "--get-all", "maintenance.repo"],
            reporter=reporter,
            timeout=30,
            env=self._env(),
        )
        ours = {str(common.resolve()), str(common.resolve().parent)}
        return any(
            os.path.realpath(line.strip()) in ours
            for line in result.stdout.splitlines()
            if line.strip()
        )

    @staticmethod
    def _locked(common: Path) -> str | None:
        for lock in ("objects/maintenance.lock", "gc.pid", "packed-refs.lock"):
            path = common / lock
            try:
                age = time.time() - path.stat().st_mtime
            except OSError:
                continue
            if lock != "gc.pid" or age < 12 * 3600:  # git's own rule for a stale gc.pid
                return str(path)
        return None
