"""lefthook's format, read statically: the commands, scripts and jobs of its `pre-commit` hook
(groups walked, boundedly), the command lines each runs and from where, and the scripts it names
(review.project_hooks.sources says where lefthook looks for them).

Nothing here runs anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from landwatch.review.project_hooks.values import MAX_HOOKS, mappings, text


@dataclass(frozen=True)
class Line:
    """A command line lefthook runs through `sh -c`, and the directory it runs in (from the
    tree's root)."""

    text: str
    root: str = ""


@dataclass(frozen=True)
class Hook:
    """One command, script or job of the hook: its name, what it runs as `landwatch trust`
    shows it, what kind it is, and the command lines lefthook runs for it."""

    name: str
    entry: str
    where: str
    lines: tuple[Line, ...] = ()


def hooks(document: dict[Any, Any]) -> Iterator[Hook]:
    """Each command, script and job of the `pre-commit` hook (groups walked, boundedly)."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return
    count = 0
    commands = hook.get("commands")
    for name, command in commands.items() if isinstance(commands, dict) else ():
        count += 1
        if count > MAX_HOOKS or not isinstance(command, dict):
            continue
        run = text(command.get("run"))
        yield Hook(str(name), run, "lefthook", (Line(run, _root(command)),))
    scripts = hook.get("scripts")
    for name, script in scripts.items() if isinstance(scripts, dict) else ():
        count += 1
        if count > MAX_HOOKS:
            continue
        runner = text(script.get("runner")) if isinstance(script, dict) else ""
        yield Hook(str(name), f"{runner} {name}".strip(), "lefthook script")
    for job in _jobs(hook, MAX_HOOKS - count):
        run = text(job.get("run")) or text(job.get("script"))
        name = text(job.get("name")) or run
        yield Hook(name, run, "lefthook", (Line(text(job.get("run")), _root(job)),))


def scripts(document: dict[Any, Any]) -> list[str]:
    """The names of the scripts lefthook runs for the pre-commit hook: its `scripts` and the
    `script` of each job."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return []
    named = hook.get("scripts")
    names = [str(name) for name in list(named)[:MAX_HOOKS]] if isinstance(named, dict) else []
    jobs = _jobs(hook, MAX_HOOKS)
    return names + [text(job.get("script")) for job in jobs if text(job.get("script"))]


def _jobs(hook: dict[Any, Any], most: int) -> Iterator[dict[Any, Any]]:
    """The jobs of a lefthook hook, each group's after the others (at most `most` looked at)."""
    pending = list(mappings(hook.get("jobs")))
    count = 0
    while pending and count < most:
        job = pending.pop(0)
        count += 1
        group = job.get("group")
        if isinstance(group, dict):
            pending.extend(mappings(group.get("jobs")))
        else:
            yield job


def _root(command: dict[Any, Any]) -> str:
    return text(command.get("root")).strip("/")
