"""Reading what a hook manager printed: each hook's status, exit code, whether it changed files,
and what it said (pre-commit's and prek's format, lefthook's), and the `path:line:` lines in that.

Every step is a pass over the lines with string operations or a pattern that cannot backtrack
(docs/security.md: every scan linear in its input); lines are cut before they are read.
"""

from __future__ import annotations

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


def parse_pre_commit(text: str) -> Said:
    """pre-commit's (and prek's) report: `name.....Failed`, then `- hook id: ...` lines, a blank
    line and the hook's output, up to the next status line."""
    said = Said()
    current: HookOutcome | None = None
    for line in lines_of(text):
        status = _status_line(line)
        if status is not None:
            name, verdict = status
            current = HookOutcome(name, name, verdict.lower())
            said.outcomes.append(current)
        elif current is None:
            if line.strip():
                said.preamble.append(line)
        elif line.startswith(_HOOK_ID) and not current.output:
            current.id = line[len(_HOOK_ID) :].strip() or current.id
        elif line.startswith(_EXIT_CODE) and not current.output:
            code = line[len(_EXIT_CODE) :].strip()
            current.exit_code = int(code) if code.isdigit() and len(code) < 6 else None
        elif line.startswith(_MODIFIED) and not current.output:
            current.modified = True
        elif line.startswith("- ") and not current.output:
            continue  # another fact of the hook (its duration)
        elif line.strip() or current.output:
            current.output.append(line)
    for outcome in said.outcomes:
        outcome.output = _dedented(_trimmed(outcome.output))
    # A run stopped mid-hook leaves that hook's name and its dots without a status.
    last = next((line for line in reversed(lines_of(text)) if line.strip()), "")
    if last.rstrip().endswith("...") and _status_line(last) is None:
        said.unfinished = last.rstrip().rstrip(".").strip() or None
    return said


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


def parse_lefthook(text: str) -> Said:
    """lefthook's report: `┃  name` and an arrow, then the job's output and `exit status N`;
    then a summary of `✓ name (0.01 seconds)` and `✗ name` lines."""
    said = Said()
    outputs: dict[str, list[str]] = {}
    current: list[str] | None = None
    in_summary = False
    for line in lines_of(text):
        if line.startswith(_LEFTHOOK_JOB):
            name = line[len(_LEFTHOOK_JOB) :].rstrip().removesuffix(_LEFTHOOK_ARROW)
            current = outputs.setdefault(name.strip(), [])
        elif line.strip().startswith("summary:"):
            in_summary, current = True, None
        elif line.strip().startswith("─"):
            current = None
        elif in_summary and line.startswith((_LEFTHOOK_PASSED, _LEFTHOOK_FAILED)):
            verdict = "passed" if line.startswith(_LEFTHOOK_PASSED) else "failed"
            name = _without_seconds(line[2:])
            said.outcomes.append(HookOutcome(name, name, verdict))
        elif line.startswith(_LEFTHOOK_SKIPPED) and "(skip)" in line:
            name = line[len(_LEFTHOOK_SKIPPED) :].partition("(skip)")[0].strip()
            said.outcomes.append(HookOutcome(name, name, "skipped"))
        elif current is not None:
            current.append(line)
        elif line.strip() and not in_summary:
            said.preamble.append(line)
    for outcome in said.outcomes:
        lines = _trimmed(outputs.get(outcome.name, []))
        if lines and lines[-1].startswith(_EXIT_STATUS):
            code = lines.pop()[len(_EXIT_STATUS) :].strip()
            outcome.exit_code = int(code) if code.isdigit() and len(code) < 6 else None
        outcome.output = _trimmed(lines)
    return said


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


def located(line: str, paths: set[str], before: str = "") -> Located | None:
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
