"""What the project's fixing hooks did to each file, line by line: where a line of the file as
they left it was in the committed one (a later hook's `path:line` is read against their fix),
which hooks changed which file, and what a fixer said it fixed.

The hooks run once, in order, on one checkout: a hook sees the file as the fixing hooks before it
left it, and only the committed file and the file at the end are known. A hook's line is read
against the committed file when no fixer before it changed the file, against the file at the end
when no fixer after it moved the file's lines, and is not placed on a line otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from landwatch.lazy_re import lazy_compile
from landwatch.review.project_hooks.output import HookOutcome

# The fixers that change lines where they stand and never move one (pre-commit-hooks' own ids):
# a line a hook named before them is the same line after.
LINE_KEEPING = frozenset(
    {"trailing-whitespace", "end-of-file-fixer", "mixed-line-ending", "fix-byte-order-marker"}
)
# How fixers name each file they fixed: pre-commit-hooks' fixers and isort (`Fixing PATH`),
# black (`reformatted PATH`), ruff's `--show-fixes` (`- PATH:` above the rules it fixed there).
_NAMING = ("Fixing ", "reformatted ", "- ")
# ruff's `--show-fixes`: `    1 x F401 (unused-import)` under `- PATH:`, its x a multiplication
# sign.
_RULE_FIXED = lazy_compile(
    "\\s+[0-9]{1,9} \u00d7 " r"(?P<rule>[A-Z]{1,8}[0-9]{1,8} \([a-z0-9-]{1,80}\))$"
)
# ruff's summary: `Found 2 errors (1 fixed, 1 remaining).`
_RUFF_SUMMARY = lazy_compile(r"Found [0-9]{1,9} errors? \((?P<fixed>[0-9]{1,9}) fixed, ")

# Where a hook's line is read: on the committed file, on the file as the hooks left it, or not
# known (fixers before and after it changed the file).
COMMITTED, AT_END, UNKNOWN = "committed", "at the end", "unknown"


class Hunk(NamedTuple):
    """One hunk of a diff without context: the committed lines it replaces, the new ones (a
    start of 0 lines is the line before, as in a unified diff)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int


class FileFix(NamedTuple):
    """One file's fix: the hunks with whitespace at line ends ignored (how its lines moved) and
    the exact hunks (what the fixers changed)."""

    moved: tuple[Hunk, ...]
    changed: tuple[Hunk, ...]


def committed_line(hunks: Sequence[Hunk], number: int) -> tuple[int, bool]:
    """Where line `number` of the fixed file was in the committed one, and whether a fixer
    changed or added it (then the nearest committed line: the one it replaced, or the one
    before what it added)."""
    offset = 0
    for hunk in hunks:
        first = hunk.new_start if hunk.new_lines else hunk.new_start + 1
        if number < first:
            break
        if number < hunk.new_start + hunk.new_lines:
            if not hunk.old_lines:
                return max(hunk.old_start, 1), True
            return hunk.old_start + min(number - hunk.new_start, hunk.old_lines - 1), True
        old_end = hunk.old_start + (hunk.old_lines or 1)
        offset = old_end - (hunk.new_start + (hunk.new_lines or 1))
    return number + offset, False


def changed_lines(hunks: Sequence[Hunk]) -> list[int]:
    """The committed lines a fix changed or removed (for what it added, the line before)."""
    lines: list[int] = []
    for hunk in hunks:
        if hunk.old_lines:
            lines += range(hunk.old_start, hunk.old_start + hunk.old_lines)
        else:
            lines.append(max(hunk.old_start, 1))
    return sorted(set(lines))


def lines_fixed(fix: FileFix | None, hook: str, shared: bool) -> list[int]:
    """The committed lines a fixer changed in a file: every line the fix changed when it alone
    changed the file; when others did too, a line-keeping fixer's are the lines changed only at
    their end and another's the rest (every line, when that leaves none)."""
    if fix is None:
        return []
    every = changed_lines(fix.changed)
    if not shared:
        return every
    moved = set(changed_lines(fix.moved))
    own = [number for number in every if (number not in moved) == (hook in LINE_KEEPING)]
    return own or every


def _named(outcome: HookOutcome, tails: dict[str | None, Any]) -> set[str]:
    """The files of `tails` (_tails) that a hook's output names as fixed (by the path as given,
    or one ending in it: isort names the absolute path), each line read once, however many."""
    found: set[str] = set()
    for line in outcome.output:
        stripped = line.strip()
        prefix = next((each for each in _NAMING if stripped.startswith(each)), None)
        if prefix is not None:
            path = stripped[len(prefix) :].removesuffix(":").removeprefix("./")
            found.update(_ending(tails, path))
    return found


def _tails(paths: Sequence[str]) -> dict[str | None, Any]:
    """`paths` by their parts from the last: a path's own entry under None."""
    tails: dict[str | None, Any] = {}
    for path in paths:
        node = tails
        for part in reversed(path.split("/")):
            node = node.setdefault(part, {})
        node[None] = path
    return tails


def _ending(tails: dict[str | None, Any], path: str) -> Iterator[str]:
    """The paths of `tails` that `path` is, or ends in after a `/`."""
    node = tails
    for part in reversed(path.split("/")):
        node = node.get(part, {})
        if None in node:
            yield node[None]


def fixers_of(
    outcomes: Sequence[HookOutcome], changed: Sequence[str], beside: Sequence[str] = ()
) -> dict[str, list[int]]:
    """For each changed file, the hooks (their place in `outcomes`, in order) that may have
    changed it: those that said they modified files and named it, or named none of the files
    they changed (those `beside` the change's too: a hook naming only those changed none of
    the change's)."""
    by_file: dict[str, list[int]] = {path: [] for path in changed}
    tails = _tails([*changed, *beside])
    for index, outcome in enumerate(outcomes):
        if not outcome.modified:
            continue
        named = _named(outcome, tails)
        for path in named.intersection(by_file) if named else changed:
            by_file[path].append(index)
    return by_file


class Reach(NamedTuple):
    """Of the hooks that changed a file (their places in order): the first, and the last that
    may move its lines (-1: none of them)."""

    first: int
    moving: int


def reach_of(outcomes: Sequence[HookOutcome], fixers: Sequence[int]) -> Reach | None:
    """The reach of the hooks that changed a file (`fixers`); None when none said it did."""
    if not fixers:
        return None
    moving = [fixer for fixer in fixers if outcomes[fixer].id not in LINE_KEEPING]
    return Reach(fixers[0], moving[-1] if moving else -1)


def sight(reach: Reach | None, index: int) -> str:
    """Which file the hook at `index` read a changed file as, given the reach of the hooks that
    changed it: its own fix comes before what it says (ruff --fix reports what is left)."""
    if reach is None:
        return UNKNOWN  # changed, by a hook that did not say so (lefthook says nothing)
    if reach.first > index:
        return COMMITTED
    if reach.moving <= index:
        return AT_END  # no fixer after it moved a line
    return UNKNOWN


class Fixed(NamedTuple):
    """What a fixer said it fixed: the rules ruff's `--show-fixes` lists under each file, and
    ruff's count of errors fixed (read once, whichever files it changed)."""

    rules: dict[str, list[str]]
    errors: int

    def of(self, path: str, only_file: bool) -> str:
        """What it fixed in `path`: its rules there; else its count of errors fixed, when this
        was the one file it changed (`only_file`)."""
        rules = self.rules.get(path)
        if rules:
            return "fixed " + ", ".join(rules)
        if only_file and self.errors:
            return f"fixed {self.errors} error{'' if self.errors == 1 else 's'}"
        return ""


def said_fixed(outcome: HookOutcome) -> Fixed:
    """What a fixer's output says it fixed, read in one pass."""
    rules: dict[str, list[str]] = {}
    under: list[str] | None = None
    summary = None
    for line in outcome.output:
        stripped = line.strip()
        if stripped.startswith("- ") and stripped.endswith(":"):
            under = rules.setdefault(stripped[2:-1].removeprefix("./"), [])
        elif under is not None and (match := _RULE_FIXED.match(line.rstrip())) is not None:
            under.append(match["rule"])
        elif not stripped:
            under = None
        summary = _RUFF_SUMMARY.match(stripped) or summary
    return Fixed(rules, int(summary["fixed"]) if summary is not None else 0)
