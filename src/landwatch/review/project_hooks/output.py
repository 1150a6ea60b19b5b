"""Reading what a hook manager printed: each hook's status, exit code, whether it changed files,
and what it said (pre-commit's and prek's format, lefthook's), and the `path:line:` lines in that.
Only the hooks the configuration declares are read, each once: a hook's output that reads as a
status line (pygrep echoing a committed `x = 1  # TODO ....Failed`) adds no hook.

Every step is a pass over the lines with string operations or a pattern that cannot backtrack
(docs/security.md: every scan linear in its input); lines are cut before they are read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from landwatch.lazy_re import lazy_compile

# A line longer than this is cut before anything reads it.
MAX_LINE = 2000
STATUSES = ("Passed", "Failed", "Skipped")
# pre-commit's and prek's lines under a failed hook's status line.
_HOOK_ID = "- hook id: "
_EXIT_CODE = "- exit code: "
_MODIFIED = "- files were modified by this hook"
# Colours and other SGR sequences: formatting, dropped; every other escape is kept, and shown
# escaped (landwatch.text.safe), never obeyed.
_SGR = lazy_compile(r"\x1b\[[0-9;]{0,32}m")
# lefthook's frame: a job's header, the separator before the summary, the summary's marks.
_LEFTHOOK_JOB = "┃  "
_LEFTHOOK_ARROW = "\u276f"  # the arrow after a job's name
_LEFTHOOK_PASSED = "✓ "
_LEFTHOOK_FAILED = "✗ "
_LEFTHOOK_SKIPPED = "│  "
_EXIT_STATUS = "exit status "
# `path:line:` or `path:line:column:` at the start of a line (flake8, ruff's concise format,
# mypy, pyflakes, eslint's unix format, shellcheck's gcc format, gcc and clang); or, after an
# arrow, `--> path:line:column` under the message it places (ruff's full format, rustc, clippy).
_LOCATED = lazy_compile(
    r"(?P<arrow>--> )?(?:\./)?(?P<path>[^:\s][^:]*):(?P<line>[0-9]{1,9})"
    r"(?::(?P<column>[0-9]{1,9}))?(?::|$)\s*(?P<message>.*)"
)


@dataclass
class HookOutcome:
    """One hook as its manager reported it."""

    id: str
    name: str
    status: str  # passed, failed, skipped
    exit_code: int | None = None
    modified: bool = False
    output: list[str] = field(default_factory=list)


@dataclass
class Said:
    """What a manager printed, read: each hook's outcome, what it said outside any hook (its
    own errors, environments it built), and the hook it was running when it was stopped."""

    outcomes: list[HookOutcome] = field(default_factory=list)
    preamble: list[str] = field(default_factory=list)
    unfinished: str | None = None


class Located(NamedTuple):
    path: str
    line: int
    message: str


def lines_of(text: str) -> list[str]:
    """The lines of `text`, each cut to MAX_LINE, colours dropped, carriage returns as ends."""
    return [_SGR.sub("", line[:MAX_LINE]) for line in text.replace("\r\n", "\n").split("\n")]


class Declared:
    """The hooks a configuration declares, by id (pre-commit's format) or name (lefthook's), for
    reading what their manager printed: each reported once at most, and those of one
    configuration file in the order it declares them (the order they run in), so that what a
    hook prints can neither add a hook nor report again one reported before it."""

    def __init__(self, hooks: Iterable[tuple[str, str, str]], *, ordered: bool = True) -> None:
        """`hooks`: each hook's (configuration file, id, name), in the order declared; not
        `ordered`, a hook may be reported in any order (lefthook runs jobs in parallel)."""
        self._places: dict[str, dict[str, deque[int]]] = {}
        self._ids: dict[str, str] = {}
        for at, (source, key, name) in enumerate(hooks):
            file = source if ordered else str(at)
            self._places.setdefault(key, {}).setdefault(file, deque()).append(at)
            self._ids.setdefault(name, key)
        self._next: dict[str, int] = {}

    def knows(self, key: str) -> bool:
        return key in self._places

    def id_of(self, name: str) -> str:
        """The id of the hook declared by this name (the name itself when none is)."""
        return self._ids.get(name, name)

    def take(self, key: str) -> bool:
        """Whether hook `key` may be reported now; if so, it is, with every hook its file
        declares before it (each place looked at once, however often a hook is named)."""
        files = self._places.get(key, {})
        for file, places in list(files.items()):
            start = self._next.get(file, 0)
            while places and places[0] < start:
                places.popleft()
            if not places:
                del files[file]
                continue
            self._next[file] = places.popleft() + 1
            return True
        return False


def parse_pre_commit(text: str, declared: Declared, *, indented: bool = False) -> Said:
    """pre-commit's (and prek's) report, run `--verbose`: `name.....Failed`, then `- hook id: ...`
    and the hook's other facts, a blank line and its output, up to the next status line. A status
    line is the manager's only where the line under it names a hook `declared` may report now
    (a hook's output can forge one only of a hook declared after it, once); prek (`indented`)
    names none under a hook it skipped, but indents what hooks print: a Skipped line indented
    less than that is its own."""
    said = Said()
    lines = lines_of(text)
    current: HookOutcome | None = None
    facts = False
    margin = 0  # where the manager's status lines start (prek's workspaces indent them)
    for at, line in enumerate(lines):
        own = indented and (current is None or _indent(line) < margin + 2)
        reported = _reported(lines, at, declared, own)
        if reported is not None:
            current, facts, margin = reported, True, _indent(line)
            said.outcomes.append(current)
        elif current is None:
            if line.strip():
                said.preamble.append(line)
        elif facts and line.strip().startswith("- "):
            _fact(current, line.strip())
        else:
            facts = False  # pre-commit puts a blank line between the facts and the output
            if line.strip() or current.output:
                current.output.append(line)
    for outcome in said.outcomes:
        outcome.output = _dedented(_trimmed(outcome.output))
    # A run stopped mid-hook leaves that hook's name and its dots without a status.
    last = next((line for line in reversed(lines) if line.strip()), "")
    if last.rstrip().endswith("...") and _status_line(last) is None:
        said.unfinished = last.rstrip().rstrip(".").strip() or None
    return said


def _reported(lines: list[str], at: int, declared: Declared, own: bool) -> HookOutcome | None:
    """The hook the status line at `at` reports, when it is the manager's: the line under it
    names a hook that may be reported now, or, a Skipped line, it is the manager's `own`."""
    status = _status_line(lines[at])
    if status is None:
        return None
    name, verdict = status
    under = lines[at + 1].strip() if at + 1 < len(lines) else ""
    if under.startswith(_HOOK_ID):
        hook_id = under[len(_HOOK_ID) :].strip()
        return HookOutcome(hook_id, name, verdict.lower()) if declared.take(hook_id) else None
    if verdict == "Skipped" and own:
        return HookOutcome(declared.id_of(name), name, "skipped")
    return None


def _fact(outcome: HookOutcome, fact: str) -> None:
    """One of the `- ` lines under a status line: its exit code, whether it changed files (its
    id is read with the status line, its duration is not kept)."""
    if fact.startswith(_EXIT_CODE):
        code = fact[len(_EXIT_CODE) :].strip()
        outcome.exit_code = int(code) if code.isdigit() and len(code) < 6 else None
    elif fact.startswith(_MODIFIED):
        outcome.modified = True


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _status_line(line: str) -> tuple[str, str] | None:
    """(the hook's name, its status) of a status line; None for any other line."""
    stripped = line.rstrip()
    verdict = next((word for word in STATUSES if stripped.endswith(word)), None)
    if verdict is None:
        return None
    rest = stripped[: -len(verdict)]
    if rest.endswith(")") and "(" in rest:
        rest = rest[: rest.rindex("(")]  # `(no files to check)`
    if not rest.endswith("..."):
        return None
    name = rest.rstrip(".").strip()
    return (name, verdict) if name else None


def parse_lefthook(text: str, declared: Declared) -> Said:
    """lefthook's report: `┃  name` and an arrow, then the job's output and `exit status N`;
    then a summary of `✓ name (0.01 seconds)` and `✗ name` lines. Of the jobs `declared` only,
    each reported once, by the last summary (lefthook's own, printed after every job's output);
    a job's skip line only where the summary does not name it: what a job prints adds none."""
    said = Said()
    lines = lines_of(text)
    end = next(
        (at for at in range(len(lines) - 1, -1, -1) if lines[at].strip().startswith("summary:")),
        len(lines),
    )
    summary = _summary(lines[end + 1 :], declared)
    named = {outcome.name for outcome in summary}
    outputs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[:end]:
        job = line[len(_LEFTHOOK_JOB) :].rstrip().removesuffix(_LEFTHOOK_ARROW).strip()
        skipped = line[len(_LEFTHOOK_SKIPPED) :].partition("(skip)")[0].strip()
        if line.startswith(_LEFTHOOK_JOB) and declared.knows(job):
            current = outputs.setdefault(job, [])
        elif line.strip().startswith("─"):
            current = None
        elif line.startswith(_LEFTHOOK_SKIPPED) and "(skip)" in line:
            if skipped not in named and declared.take(skipped):
                said.outcomes.append(HookOutcome(skipped, skipped, "skipped"))
        elif current is not None:
            current.append(line)
        elif line.strip():
            said.preamble.append(line)
    said.outcomes += summary
    for outcome in said.outcomes:
        kept = _trimmed(outputs.get(outcome.name, []))
        if kept and kept[-1].startswith(_EXIT_STATUS):
            code = kept.pop()[len(_EXIT_STATUS) :].strip()
            outcome.exit_code = int(code) if code.isdigit() and len(code) < 6 else None
        outcome.output = _trimmed(kept)
    return said


def _summary(lines: list[str], declared: Declared) -> list[HookOutcome]:
    """The jobs lefthook's summary says passed or failed, of those `declared`, each once."""
    found = []
    for line in lines:
        if line.startswith((_LEFTHOOK_PASSED, _LEFTHOOK_FAILED)):
            name = _without_seconds(line[2:])
            if declared.take(name):
                verdict = "passed" if line.startswith(_LEFTHOOK_PASSED) else "failed"
                found.append(HookOutcome(name, name, verdict))
    return found


def _without_seconds(text: str) -> str:
    """`name (0.01 seconds)` as `name`."""
    stripped = text.strip()
    if stripped.endswith(" seconds)") and " (" in stripped:
        return stripped[: stripped.rindex(" (")].strip()
    return stripped


def _trimmed(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _dedented(lines: list[str]) -> list[str]:
    """prek indents a hook's output by two spaces: taken off when every line has them."""
    if lines and all(line.startswith("  ") or not line.strip() for line in lines):
        return [line[2:] for line in lines]
    return lines


def located(line: str, paths: Container[str], before: str = "") -> Located | None:
    """The place a `path:line:` line names, when its path is one of `paths`; an arrow's place
    (`--> path:line:column`) takes its message from the line `before` it."""
    match = _LOCATED.match(line.strip())
    if match is None or match["path"] not in paths:
        return None
    number = int(match["line"])
    message = match["message"].strip()
    if match["arrow"]:
        if message:
            return None  # not a place alone: output that only looks like one
        message = before.strip()
    return Located(match["path"], number, message) if number > 0 else None
