"""lefthook's format, read statically: the commands, scripts and jobs of its `pre-commit` hook
(groups walked, boundedly), every command line lefthook runs for them and from where (a `run`
with its `args`, a script's `runner`, each `skip:` and `only:` condition's `run:`, the hook's
`setup:`: lefthook 2.2's, read in its source and seen with 2.2.2), and the scripts it names
(review.project_hooks.sources says where lefthook looks for them); each command line as lefthook
makes it of its templates (`expanded`: the configuration's `templates:`, and its own).

Nothing here runs anything.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from landwatch.lazy_re import lazy_compile
from landwatch.review.project_hooks.values import MAX_HOOKS, at_most, mappings, text

# A template in a command line, as lefthook 2.2's replacer finds one: `{name}`.
_TEMPLATE = lazy_compile(r"\{([^{}]*)\}")
# The command lines one line may make of its templates, and their length, before it is not
# read further: the configuration's hooks then do not run (a value naming its own template
# grows without end).
MAX_EXPANSIONS = 64
MAX_LENGTH = 64 * 1024


class Line(NamedTuple):
    """A command line lefthook runs through `sh -c`, the directory it runs in (from the tree's
    root), and the name of the job it is of (`{lefthook_job_name}`; what `{cmd}` stands for)."""

    text: str
    root: str = ""
    name: str = ""


class Hook(NamedTuple):
    """One command, script or job of the hook: its name, what it runs as `landwatch trust`
    shows it, what kind it is, and the command lines lefthook runs for it."""

    name: str
    entry: str
    where: str
    lines: tuple[Line, ...] = ()


def hooks(document: dict[Any, Any]) -> Iterator[Hook]:
    """Each command, script and job of the `pre-commit` hook (groups walked, boundedly), with
    every line lefthook runs for it: its `run` (a job's with its `args`), a script's `runner`
    and `args`, and the `run:` of each `skip:` and `only:` condition, its groups' too."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return
    count = 0
    commands = hook.get("commands")
    for name, command in commands.items() if isinstance(commands, dict) else ():
        count += 1
        at_most(count, MAX_HOOKS, "commands, scripts and jobs")
        if not isinstance(command, dict):
            continue
        run = text(command.get("run"))
        lines = (Line(run, _root(command), str(name)), *_conditions(command, str(name)))
        yield Hook(str(name), run, "lefthook", lines)
    scripts = hook.get("scripts")
    for name, script in scripts.items() if isinstance(scripts, dict) else ():
        count += 1
        at_most(count, MAX_HOOKS, "commands, scripts and jobs")
        script = script if isinstance(script, dict) else {}
        runner = text(script.get("runner"))
        lines = (_with_args(runner, script, "", str(name)), *_conditions(script, str(name)))
        yield Hook(str(name), f"{runner} {name}".strip(), "lefthook script", lines)
    for job, root, around in _jobs(hook, MAX_HOOKS - count):
        run = text(job.get("run")) or text(job.get("script"))
        name = text(job.get("name")) or run
        command = text(job.get("run")) or text(job.get("runner"))
        lines = (_with_args(command, job, root, name), *_conditions(job, name), *around)
        yield Hook(name, run, "lefthook", lines)


def around(document: dict[Any, Any]) -> list[Line]:
    """The lines lefthook runs around the hook's commands, from the root: each of `setup:`,
    and the `run:` of each of the hook's own `skip:` and `only:` conditions. (Its `files:`
    command never runs: landwatch gives lefthook the files.)"""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return []
    setup = [Line(text(each.get("run"))) for each in mappings(hook.get("setup"))]
    return [*setup, *_conditions(hook, "")]


def _with_args(command: str, declared: dict[Any, Any], root: str, name: str) -> Line:
    """A command (a script's runner) with the `args` lefthook appends to it."""
    return Line(
        " ".join(part for part in (command, text(declared.get("args"))) if part), root, name
    )


def _conditions(declared: dict[Any, Any], name: str) -> tuple[Line, ...]:
    """The `run:` of each `skip:` and `only:` condition, which lefthook runs with `sh -c` from
    the root to decide whether the rest runs."""
    return tuple(
        Line(text(condition.get("run")), "", name)
        for key in ("skip", "only")
        for condition in mappings(declared.get(key))
        if text(condition.get("run"))
    )


def templates(document: dict[Any, Any]) -> dict[str, str]:
    """The configuration's own templates (`templates:`), each `{name}` and what replaces it."""
    found = document.get("templates")
    if not isinstance(found, dict):
        return {}
    at_most(len(found), MAX_HOOKS, "templates")
    return {str(name): text(value) for name, value in found.items()}


def expanded(
    line: Line, given: Mapping[str, Sequence[str]], runs: Mapping[str, Sequence[str]]
) -> list[str] | None:
    """Every command line lefthook may make of `line`: each `{name}` replaced by each value
    the files read give that template (`given`), by the job's name shell-quoted
    (`{lefthook_job_name}`), by git's arguments (none at pre-commit: `{0}`), by the other
    files' command of that name (`{cmd}`, `runs`), or left as written, as lefthook leaves a
    template it does not know (it replaces only those the line names itself, in no set order,
    so a value naming another is replaced too, or not). None: more than MAX_EXPANSIONS."""
    wrapped = [run for run in runs.get(line.name, ()) if run != line.text]
    own = {"lefthook_job_name": [shlex.quote(line.name)], "0": [""], "cmd": wrapped}
    made = {line.text: None}
    pending = [line.text]
    while pending:
        each = pending.pop()
        for name in dict.fromkeys(_TEMPLATE.findall(each)):
            for value in (*given.get(name, ()), *own.get(name, ())):
                new = each.replace(f"{{{name}}}", value)
                if new in made:
                    continue
                if len(made) >= MAX_EXPANSIONS or len(new) > MAX_LENGTH:
                    return None
                made[new] = None
                pending.append(new)
    return list(made)


def scripts(document: dict[Any, Any]) -> list[str]:
    """The names of the scripts lefthook runs for the pre-commit hook: its `scripts` and the
    `script` of each job."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return []
    named = hook.get("scripts")
    names = [str(name) for name in named] if isinstance(named, dict) else []
    at_most(len(names), MAX_HOOKS, "scripts")
    jobs = [job for job, _, _ in _jobs(hook, MAX_HOOKS)]
    return names + [text(job.get("script")) for job in jobs if text(job.get("script"))]


def _jobs(
    hook: dict[Any, Any], most: int
) -> Iterator[tuple[dict[Any, Any], str, tuple[Line, ...]]]:
    """The jobs of a lefthook hook, each group's after the others (past `most`, TooMany): each
    with the directory it runs in (its own `root:`, else its group's) and the condition lines of
    the groups it is in."""
    pending: list[tuple[dict[Any, Any], str, tuple[Line, ...]]]
    pending = [(job, "", ()) for job in mappings(hook.get("jobs"))]
    count = 0
    while pending:
        job, root, around = pending.pop(0)
        count += 1
        at_most(count, most, "commands, scripts and jobs")
        root = _root(job) or root
        group = job.get("group")
        if isinstance(group, dict):
            inner = (*around, *_conditions(job, text(job.get("name"))))
            pending += [(each, root, inner) for each in mappings(group.get("jobs"))]
        else:
            yield job, root, around


def _root(command: dict[Any, Any]) -> str:
    return text(command.get("root")).strip("/")
