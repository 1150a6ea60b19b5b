"""`landwatch status`: every registered repository's queue and the reviewer's lines at a glance.

The queue directories are read directly; what the reviewer is doing comes from the state file it
keeps in the runtime dir, trusted only while it holds its lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from typing import Any

from landwatch import paths, registry, work_item
from landwatch.kinds.push import failing_for as push_failing_for
from landwatch.text import duration, safe


def reviewer_holding_lock() -> dict[str, Any] | None:
    """The running reviewer's lock information, or None when no reviewer holds the lock."""
    lock = paths.reviewer_lock()
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                info: dict[str, Any] = json.loads(os.read(fd, 4096) or b"{}")
            except ValueError:
                info = {}
            return info
        return None  # we got the lock: nobody holds it
    finally:
        os.close(fd)


def collect(now: float | None = None) -> dict[str, Any]:
    moment = time.time() if now is None else now
    running = reviewer_holding_lock()
    lines: dict[str, Any] = {}
    if running is not None:
        try:
            state = json.loads(paths.reviewer_state().read_text())
            lines = state.get("lines", {}) if state.get("pid") == running.get("pid") else {}
        except (OSError, ValueError):
            lines = {}
    repositories = []
    for common in registry.registered():
        problem = registry.problem_with(common)
        worktrees = []
        if problem is None:
            for git_dir in registry.worktree_git_dirs(common):
                counts = {state: 0 for state in work_item.STATES}
                failed = []
                for state in work_item.STATES:
                    names = work_item.entries(git_dir, state)
                    counts[state] = len(names)
                    if state == work_item.FAILED:
                        failed = sorted(work_item.id_of_entry(name) for name in names)
                waiting, age = work_item.pending_summary(git_dir, now=moment)
                failing = push_failing_for(git_dir, moment)
                worktrees.append(
                    {
                        "git_dir": str(git_dir),
                        "counts": counts,
                        "oldest_pending_seconds": age if waiting else None,
                        "given_up": failed,
                        "push_failing": None
                        if failing is None
                        else {"seconds": failing[0], "remote": failing[1], "error": failing[2]},
                    }
                )
        repositories.append({"repository": str(common), "problem": problem, "worktrees": worktrees})
    return {"reviewer": running, "lines": lines, "repositories": repositories}


def show(*, as_json: bool) -> int:
    data = collect()
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    reviewer = data["reviewer"]
    if reviewer is None:
        console.print(
            Text("reviewer: not running", style="bold red"),
            Text("  (start it: landwatch service start)"),
        )
    else:
        console.print(
            Text(
                f"reviewer: running (pid {reviewer.get('pid')}, {reviewer.get('mode')}, "
                f"landwatch {reviewer.get('version')})",
                style="bold green",
            )
        )
    for kind, jobs in data["lines"].items():
        current = [job for job in jobs if job["state"] == "running"]
        finished = [job for job in jobs if job["state"] in ("done", "failed")][-3:]
        text = Text(f"  {kind}: ")
        if current:
            progress = current[0]["progress"]
            step = f" ({progress['done']}/{progress['total']})" if progress["total"] else ""
            text.append(f"working on {safe(current[0]['key'])[:28]}{step}", style="yellow")
        else:
            text.append("idle", style="dim")
        for job in finished:
            style = "green" if job["state"] == "done" else "red"
            text.append(f"  {safe(job['key'])[:20]} {job['state']}", style=style)
        console.print(text)
    table = Table("pending", "oldest", "claimed", "done", "given up", box=None)
    table.add_column("worktree", overflow="fold")
    for repository in data["repositories"]:
        if repository["problem"]:
            table.add_row(
                "-",
                "-",
                "-",
                "-",
                Text(f"skipped: {repository['problem']}", style="red"),
                Text(safe(repository["repository"])),
            )
            continue
        for worktree in repository["worktrees"]:
            counts = worktree["counts"]
            oldest = worktree["oldest_pending_seconds"]
            table.add_row(
                str(counts["pending"]),
                duration(oldest) if oldest is not None else "-",
                str(counts["claimed"] + counts["recovering"]),
                str(counts["done"]),
                Text(str(counts["failed"]), style="red" if counts["failed"] else ""),
                Text(safe(worktree["git_dir"])),
            )
    if data["repositories"]:
        console.print(table)
    else:
        console.print("no repository registered: run landwatch install in one")
    for repository in data["repositories"]:
        for worktree in repository["worktrees"]:
            failing = worktree["push_failing"]
            if failing:
                console.print(
                    Text(
                        f"  push to {safe(failing['remote'])} failing for "
                        f"{duration(failing['seconds'])}: {safe(failing['error'])}",
                        style="yellow",
                    )
                )
            for item in worktree["given_up"]:
                console.print(
                    Text(f"  given up: {safe(item)} in {safe(worktree['git_dir'])}", style="red")
                )
    sys.stdout.flush()
    return 0
