"""The `maintenance` kind: after landings, git's own maintenance for the repository, at most once
per interval, never where git's own is in charge (`maintenance.auto = false`, `git maintenance
start`) and never while git holds its locks; run in the landing's worktree, asking no fsmonitor.

On by default: `git maintenance run --auto` only works when git's own thresholds say so.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from landwatch import layout, registry, work_item
from landwatch.files import read_file, write_atomic
from landwatch.git import Confirm, Fallback, Worktree, run_git, worktree_of
from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler, RetryLater
from landwatch.work_item import WorkItem, WorkKind

RUN_TIMEOUT = 3600.0
LOCKED_RETRY = 300.0
# Attached, not detached as git's own auto gc is after a commit: the job (and its lease and
# timeout) lasts as long as the work, and "ran" is stamped once it is done. No fsmonitor: the
# work reads no work tree, and a hook (watchman's) asked would start watching one.
OPTIONS = ["-c", "gc.autoDetach=false", "-c", "maintenance.autoDetach=false"]
OPTIONS += ["-c", "core.fsmonitor=false"]


@dataclass
class MaintenanceResult:
    ran: bool
    note: str
    command: str = ""


def _write_stamp(git_dir: Path, path: Path, moment: float) -> None:
    stamp = f"{work_item.micros(moment)}\n"
    write_atomic(path, stamp, trusted=layout.common_dir(git_dir), durable=False)


def _read_stamp(git_dir: Path, path: Path) -> float | None:
    try:
        return work_item.seconds_of(int(read_file(path, trusted=layout.common_dir(git_dir))))
    except (OSError, ValueError):
        return None


def last_ran(git_dir: Path) -> float:
    """When maintenance last ran, so that items asked for meanwhile do not run it twice."""
    return _read_stamp(git_dir, layout.MAINTENANCE_RAN.path(git_dir)) or 0.0


class MaintenanceHandler(ItemHandler[MaintenanceResult]):
    name = WorkKind.MAINTENANCE

    def clock_stepped(self, step: float, now: float, git_dirs: list[Path]) -> None:
        """`maintenance-after` moves with the step too: a day's step back left it 25 h ahead,
        and no landing asked for maintenance until the clock caught up."""
        super().clock_stepped(step, now, git_dirs)
        for common in dict.fromkeys(layout.common_dir(git_dir) for git_dir in git_dirs):
            after = layout.MAINTENANCE_AFTER.path(common)
            due = _read_stamp(common, after)
            if due is not None and work_item.rebased(due, step, now) != due:
                _write_stamp(common, after, work_item.rebased(due, step, now))

    def handle(self, item: WorkItem, reporter: Reporter) -> MaintenanceResult:
        result = self._maintain(item, reporter)
        reporter.progress(1, 1, result.note)  # what `landwatch status --json` shows of the job
        return result

    def _maintain(self, item: WorkItem, reporter: Reporter) -> MaintenanceResult:
        """Each reason to do nothing now, then git's maintenance run to its end and stamped."""
        git_dir, common = item.git_dir, layout.common_dir(item.git_dir)
        now = self.clock.time()
        settings = layout.read_git_settings(common)
        if not settings[layout.MAINTENANCE]:
            return MaintenanceResult(False, "turned off (landwatch.maintenance = false)")
        interval = settings[layout.MAINTENANCE_INTERVAL]
        # A last run ahead of now was stamped by a clock that has gone back since: when it
        # really ran is not known, and git's own thresholds keep a run too soon cheap.
        if 0 <= now - last_ran(git_dir) < interval:
            return MaintenanceResult(False, "ran less than an interval ago")
        # The landing's worktree, as after that commit (else the main one, on the common dir;
        # else the common dir), never the reviewer's, which git would take for the work tree.
        # The git dir is named to git: a worktree's `.git` leading to it is enough.
        at = worktree_of(
            git_dir, item.work_tree, confirm=Confirm.READING, fallback=Fallback.MAIN_WORKTREE
        )
        left = self._left_to_git(item, at, reporter)
        if left is not None:
            _write_stamp(git_dir, layout.MAINTENANCE_AFTER.path(git_dir), now + interval)
            return MaintenanceResult(False, left)
        locked = self._locked(common)
        if locked:
            raise RetryLater(f"{locked}: another git process is at work", after=LOCKED_RETRY)
        command = ["maintenance", "run", "--auto", "--quiet"]
        result = self._run(at, command, reporter)
        if result[0] != 0 and "is not a git command" in result[1]:
            command = ["gc", "--auto", "--quiet"]  # git < 2.29
            result = self._run(at, command, reporter)
        code, stderr = result
        if code != 0:
            if "lock" in stderr.lower() or "another git process" in stderr.lower():
                raise RetryLater(f"{stderr.strip()[:200]}", after=LOCKED_RETRY)
            raise RuntimeError(f"{' '.join(command)} failed: {stderr.strip()[:300]}")
        finished = self.clock.time()
        _write_stamp(git_dir, layout.MAINTENANCE_RAN.path(git_dir), finished)
        _write_stamp(git_dir, layout.MAINTENANCE_AFTER.path(git_dir), finished + interval)
        return MaintenanceResult(True, "done", " ".join(command))

    def _run(self, at: Worktree, command: list[str], reporter: Reporter) -> tuple[int, str]:
        result = run_git(
            *OPTIONS,
            *command,
            git_dir=at.git_dir,
            cwd=at.where,
            timeout=RUN_TIMEOUT,
            alive=reporter.alive,
        )
        if result.timed_out:
            raise RuntimeError(f"{' '.join(command)} ran longer than {RUN_TIMEOUT:.0f} s")
        return result.returncode, result.stderr

    def _left_to_git(self, item: WorkItem, at: Worktree, reporter: Reporter) -> str | None:
        """Why git's own maintenance is in charge here, or None: its maintenance after commands
        is off where the landing was (`git maintenance register` turns it off, so does a person
        who wants none), or `git maintenance start/register` listed one of the worktrees."""
        asked = ("config", "--bool", "--get", "maintenance.auto")
        auto = run_git(*asked, git_dir=at.git_dir, cwd=at.where, timeout=30, alive=reporter.alive)
        if auto.stdout.strip() == "false":
            return "maintenance.auto = false: left to git (git maintenance start) or to you"
        listed = layout.read_own_config("maintenance.repo", every=True).splitlines()
        ours = {os.path.realpath(place) for place in _places_of(item, at)}
        if any(os.path.realpath(line) in ours for line in listed if line.strip()):
            return "git maintenance start schedules this repository"
        return None

    @staticmethod
    def _locked(common: Path) -> str | None:
        for lock in ("objects/maintenance.lock", "gc.pid", "packed-refs.lock"):
            path = common / lock
            try:
                age = time.time() - path.stat().st_mtime
            except OSError:
                continue
            if lock != "gc.pid" or (age < 12 * 3600 and _gc_alive(path, common)):
                return str(path)
        return None


_PID = re.compile(r"([+-]?)([0-9]+)")


def _gc_alive(path: Path, common: Path) -> bool:
    """Whether a gc.pid younger than 12 hours holds git's lock, by git's own rule (builtin/gc.c):
    a pid on another host is taken as running; one on this host that is not running, a gc
    killed, holds nothing (git takes it over)."""
    try:
        said = read_file(path, trusted=common, limit=4096).decode().split()
    except (OSError, UnicodeDecodeError):
        return True
    # As git reads it (`fscanf("%ju %s")`, then kill(2) of a 32-bit pid_t; audits): what does
    # not scan holds nothing, a sign and a number past 64 bits read as strtoumax reads them.
    scanned = _PID.fullmatch(said[0]) if len(said) >= 2 else None
    if scanned is None:
        return False
    if said[1] != os.uname().nodename:
        return True
    number = min(int(scanned[2]), 2**64 - 1)
    number = ((-number if scanned[1] == "-" else number) % 2**64) & 0xFFFFFFFF
    try:
        os.kill(number - 2**32 if number >= 2**31 else number, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: running
        return True
    return True


def _places_of(item: WorkItem, at: Worktree) -> list[Path]:
    """Every path `git maintenance register` may have listed the repository by: its git dirs,
    its worktrees (`at`, the landing's: a git dir elsewhere is known by that alone)."""
    git_dirs = registry.worktree_git_dirs(layout.common_dir(item.git_dir))
    found = [
        at,
        *(worktree_of(g, confirm=Confirm.READING, fallback=Fallback.NONE) for g in git_dirs),
    ]
    return [*git_dirs, *(each.top for each in found if each.top is not None)]
