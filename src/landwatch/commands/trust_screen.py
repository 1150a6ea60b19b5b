"""What `landwatch trust` shows: a first screen that fits a terminal of 80 columns and 24 lines
(what will run, in order; the files pinned after; what changed, counted; where it runs), then
the whole of it (each command whole, every file pinned and why, the diff since the last
approval), which the pager shows after the first screen and `--show` prints.

Everything taken from the repository goes through landwatch.text.safe before it is fitted.
"""

from __future__ import annotations

import difflib
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from landwatch.review.secrets.redaction import NONE_FOUND, Found, printable
from landwatch.text import cut, plural

if TYPE_CHECKING:
    from landwatch.review.pinned import Pinned, PinnedFile
    from landwatch.review.project_hooks.config import HookSpec
    from landwatch.review.project_hooks.pin import HooksPinned
    from landwatch.trust import Approval

# The terminal the first screen fits when nothing pages it: the smallest most people have.
WIDTH, HEIGHT = 80, 24
# The first screen's rows for the files pinned, their names packed.
FILE_ROWS = 2
INDENT = "  "
# Said once with every project hooks' approval: what trust does not pin, in one plain sentence.
LOCAL_CODE = (
    "landwatch: what these run of the repository beyond the files pinned (the modules a script "
    "imports, a Makefile, `python -m`, a sourced file, a `repo: .`) runs as each landing has it, "
    "behind the wall: no home, no network, no socket, only the checkout writable."
)
# The most lines of a file pinned that its diff aligns: difflib's matching is quadratic in the
# lines a file repeats (64,000 lines of 101 repeated ones took it 17.5 s; a 1 MB pin, minutes),
# and no configuration a person reads line by line is that long.
MOST_ALIGNED_LINES = 10_000


@dataclass
class Shown:
    """One thing `landwatch trust` asks about (linters, or project hooks): its first screen's
    parts, each line fitted, and the whole of it, line by line."""

    title: list[str]
    commands: list[str]  # what will run, in order, a row each
    pinned: list[str]  # the files pinned after
    changed: str  # what changed since the last approval, counted
    whole: list[str] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # after what runs, never cut


@dataclass
class Revs:
    """What `landwatch trust` says of the remote hook repositories' revs: a line each (the
    whole), and what the first screen adds to a rev that names a commit (`URL at REV`: ` = id`,
    or that it could not be resolved)."""

    lines: list[str]
    named: dict[str, str] = field(default_factory=dict)
    # A line each for a hook repository on this machine the build is not shown: what will not
    # run, always on the first screen, before the question.
    not_run: list[str] = field(default_factory=list)


def fitted(text: str) -> str:
    """`text` cut to the screen's WIDTH columns, an ellipsis where it was cut."""
    return cut(text, WIDTH)


def wrapped(text: str, indent: str = INDENT) -> list[str]:
    """Prose in rows of WIDTH columns, the rows after the first indented."""
    rows = textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)
    return [fitted(row) for row in rows]


def first_screen(shown: list[Shown], tail: list[str], height: int = HEIGHT) -> list[str]:
    """The first screen: each thing's title, what runs (as many as fit, then how many more),
    what is pinned and what changed, then `tail`; one row of `height` left for the question."""
    fixed = sum(len(each.title) + len(each.not_run) + len(each.pinned) + 1 for each in shown)
    fixed += len(tail) + 1
    left = height - fixed
    lines: list[str] = []
    for number, each in enumerate(shown):
        others = len(shown) - number - 1
        room = max(2, left - 2 * others)
        commands = each.commands
        if len(commands) > room:
            more = f"{INDENT}... and {len(commands) - room + 1} more: `landwatch trust --show`"
            commands = [*commands[: room - 1], more]
        left -= len(commands)
        lines += [*each.title, *commands, *each.not_run, *each.pinned, each.changed]
    return [*lines, *tail]


def linters_shown(git_dir: Path, where: str, pinned: Pinned, last: Approval | None) -> Shown:
    """The repository's linters: every command, every file given to them, what changed."""
    from landwatch.trust import describe

    commands = describe(list(pinned.linters))
    given = "they are" if pinned.linters else "your own linters would be"
    found = secrets_shown(git_dir, last, pinned.files)
    whole: list[str] = []
    if pinned.linters:
        whole.append(
            f"landwatch: {printable(where)} at HEAD runs these commands on the files a commit "
            "changes:"
        )
        whole += [f"{INDENT}{printable(line, found)}" for line in commands]
    whole.append(f"landwatch: {given} given these files of it, pinned by content:")
    whole += _files(pinned.files, "none (the file being linted only)")
    diff = differences(git_dir, last, commands, pinned.files)
    whole += [_changed_title(last), *(f"{INDENT}{printable(line, found)}" for line in diff)]
    title = wrapped(f"landwatch: {printable(where)} at HEAD runs these commands, in this order:")
    if not pinned.linters:
        title = ["landwatch: it runs no linter of its own; your own are given its files"]
    return Shown(
        title,
        [fitted(f"{INDENT}{printable(line)}") for line in commands],
        _pinned(f"landwatch: then {given} given, pinned by content", pinned.files),
        _changed(last, diff),
        whole,
    )


def hooks_shown(git_dir: Path, hooks: HooksPinned, revs: Revs, last: Approval | None) -> Shown:
    """The project's hooks: every hook, each remote's commit (`revs`, said already), every file
    pinned with them, what changed."""
    paths = printable(", ".join(each.path for each in hooks.declared))
    found = secrets_shown(git_dir, last, hooks.files)
    whole = [
        f"landwatch: HEAD's project hooks ({paths}) run these on the files a commit changes, "
        "with your own pre-commit, prek or lefthook:"
    ]
    whole += [
        f"{INDENT}{printable(line, found)}"
        for line in hooks.commands() or ("(none at this stage)",)
    ]
    problems = [
        f"{INDENT}({printable(each.problem)}: nothing of it runs)"
        for each in hooks.declared
        if each.problem
    ]
    whole += problems
    whole += revs.lines
    whole += revs.not_run
    whole.append("landwatch: pinned with them by content (a change to any asks again):")
    whole += [*_files(hooks.files, "none"), LOCAL_CODE]
    diff = differences(git_dir, last, hooks.commands(), hooks.files)
    whole += [_changed_title(last), *(f"{INDENT}{printable(line, found)}" for line in diff)]
    title = wrapped(f"landwatch: HEAD's project hooks ({paths}) run these, in order:")
    commands = _hook_rows([hook for each in hooks.declared for hook in each.hooks], revs.named)
    commands += [fitted(line) for line in problems]
    pinned = _pinned("landwatch: then pinned by content (a change to any asks again)", hooks.files)
    pinned += wrapped(
        f"{INDENT}not pinned: what they run beyond these (imports, a Makefile, `repo: .`) "
        "runs as each landing has it, behind the wall",
        INDENT * 2,
    )
    not_run = [row for line in revs.not_run for row in wrapped(line)]
    return Shown(title, commands, pinned, _changed(last, diff), whole, not_run)


def _hook_rows(hooks: list[HookSpec], named: dict[str, str]) -> list[str]:
    """A row per hook, in order; a remote repository's hooks that run as it defines them in
    the rows of one (its URL, its rev and the commit a name resolved to, their ids)."""
    from landwatch.review.project_hooks.config import AS_DEFINED

    groups: list[tuple[str, list[str]]] = []
    for hook in hooks:
        if hook.entry == AS_DEFINED and groups and groups[-1][0] == hook.where:
            groups[-1][1].append(hook.id)
        elif hook.entry == AS_DEFINED:
            groups.append((hook.where, [hook.id]))
        else:
            groups.append(("", [f"{hook.id}: {hook.entry}  [{hook.where}]"]))
    rows = []
    for where, ids in groups:
        if not where:
            rows.append(fitted(f"{INDENT}{printable(ids[0])}"))
            continue
        remote = where.partition(";")[0]
        shown = printable(_short_where(where)) + named.get(remote, "")
        rows += wrapped(f"{INDENT}{shown}: {printable(', '.join(ids))}", INDENT * 2)
    return rows


def _short_where(where: str) -> str:
    """A remote's URL without its scheme, a commit id as its first 12 characters."""
    url, _, rest = where.partition(" at ")
    url = url.split("://", 1)[-1]
    rev, _, language = rest.partition(";")
    if len(rev) == 40 and all(char in "0123456789abcdef" for char in rev):
        rev = rev[:12]
    return f"{url} at {rev}{';' + language if language else ''}" if rest else url


def _pinned(title: str, files: tuple[PinnedFile, ...]) -> list[str]:
    """The first screen's rows of the files pinned: their names packed in FILE_ROWS rows, and
    what of a pyproject.toml is pinned, said as it is."""
    from landwatch.review.config import PYPROJECT
    from landwatch.review.pinned import tool_tables

    if not files:
        return [f"{title}: no file"]
    names = [printable(file.path) for file in files if file.path != PYPROJECT]
    rows = textwrap.wrap(", ".join(names), WIDTH - len(INDENT), break_on_hyphens=False)
    if len(rows) > FILE_ROWS:
        shown_names = len(", ".join(rows[: FILE_ROWS - 1]).split(", "))
        rest = f"... and {len(names) - shown_names + 1} more: `landwatch trust --show`"
        rows = [*rows[: FILE_ROWS - 1], rest]
    lines = [f"{title}: {plural(len(files), 'file')}"]
    lines += [fitted(INDENT + row) for row in rows]
    for file in files:
        if file.path != PYPROJECT:
            continue
        tools = tool_tables(file)
        if tools is None:
            why = (
                printable(file.why)
                if file.why and file.data is None
                else "it does not read as TOML"
            )
            said = f"pinned whole ({why}): any change to it asks again"
        else:
            said = (
                f"its [tool] tables, all {len(tools)} (whichever tool reads them): a change "
                "to one asks again, not to [project]"
            )
        lines += wrapped(f"{INDENT}{PYPROJECT}: {said}", INDENT * 2)
    return lines


def _files(files: tuple[PinnedFile, ...], none: str) -> list[str]:
    lines = [
        f"{INDENT}{printable(file.path)}" + (f" ({printable(file.why)})" if file.why else "")
        for file in files
    ]
    return lines or [f"{INDENT}{none}"]


def _changed_title(last: Approval | None) -> str:
    if last is None:
        return "landwatch: nothing was trusted here before; as committed:"
    return f"landwatch: changed since you last trusted this repository ({when(last)}):"


def _changed(last: Approval | None, diff: list[str]) -> str:
    """What changed since the last approval, counted in a row."""
    files = sum(1 for line in diff if line.startswith("+++ "))
    lines = sum(1 for line in diff if line[:1] in "+-" and line[:4] not in ("+++ ", "--- "))
    counted = f"{plural(files, 'file')}, {plural(lines, 'line')}"
    if last is None:
        return fitted(f"landwatch: nothing was trusted here before: {counted} as committed")
    if not files and not lines:
        return fitted(f"landwatch: changed since {when(last)}: {diff[0] if diff else ''}")
    return fitted(f"landwatch: trusted {when(last)}; changed since: {counted} of diff")


def differences(
    git_dir: Path, last: Approval | None, commands: tuple[str, ...], files: tuple[PinnedFile, ...]
) -> list[str]:
    """A unified diff of the commands and of each file pinned, from the last approval to HEAD."""
    lines: list[str] = []
    if last is not None:  # the first time, the commands listed are all there is
        lines += difflib.unified_diff(
            list(last.commands),
            list(commands),
            "commands (trusted)",
            "commands (HEAD)",
            lineterm="",
        )
    before = dict(last.files) if last else {}
    now = {file.path: file for file in files}
    for path in sorted(set(before) | set(now)):
        old = _blob_lines(git_dir, before.get(path))
        new_file = now.get(path)
        new = _text_lines(new_file.data) if new_file is not None and new_file.data else []
        if new_file is not None and before.get(path) == new_file.oid and last is not None:
            continue  # the very same blob
        if max(len(old), len(new)) > MOST_ALIGNED_LINES:
            lines += _unaligned(old, new, path)
            continue
        lines += difflib.unified_diff(old, new, f"{path} (trusted)", f"{path} (HEAD)", lineterm="")
    # What differs then is how their output is read (format, pattern, filter).
    return lines or ["(the commands and files are the same; how their output is read differs)"]


def _unaligned(old: list[str], new: list[str], path: str) -> list[str]:
    """The lines `new` lost, then the lines it gained, each in its file's order, not aligned:
    what a diff of files too long to align (MOST_ALIGNED_LINES) shows, in one pass over each."""
    removed, added = Counter(old), Counter(new)
    removed.subtract(new)
    added.subtract(old)
    lines = [
        f"--- {path} (trusted)",
        f"+++ {path} (HEAD)",
        f"@@ {len(old):,} lines, then {len(new):,}: too many to align; the lines removed, then "
        "the lines added (a line only moved is neither) @@",
    ]
    for sign, side, extra in (("-", old, removed), ("+", new, added)):
        for line in side:
            if extra[line] > 0:
                extra[line] -= 1
                lines.append(sign + line)
    return lines


def secrets_shown(git_dir: Path, last: Approval | None, files: tuple[PinnedFile, ...]) -> Found:
    """The values the secret rules find in the files pinned, as at HEAD and as trusted before,
    each read whole: what only its place tells (a settings file's bare value) is hidden too."""
    now = {file.path: file.data for file in files if file.data}
    trusted = last.files if last is not None else ()
    before = {path: data for path, oid in trusted if (data := _blob(git_dir, oid))}
    if not now and not before:
        return NONE_FOUND
    from landwatch.review.known_secrets import found_in_files

    return found_in_files([now, before])


def _blob_lines(git_dir: Path, oid: str | None) -> list[str]:
    """The lines of a blob as approved; what an old approval did not keep, or git no longer
    has, is said in a line."""
    if oid is None:
        return []
    data = _blob(git_dir, oid)
    if data is None:
        return [f"(the version trusted, {oid[:12]}, is no longer in this repository)"]
    return _text_lines(data)


def _blob(git_dir: Path, oid: str | None) -> bytes | None:
    """A blob's content; None for none, or one git no longer has."""
    if oid is None:
        return None
    import pygit2

    from landwatch.review.change import open_repository

    try:
        blob = open_repository(git_dir)[oid]
    except (KeyError, ValueError):
        blob = None
    return blob.data if isinstance(blob, pygit2.Blob) else None


def _text_lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="surrogateescape").splitlines()


def when(approval: Approval) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(approval.approved))
