"""Text for a terminal: anything taken from a repository made printable, durations for people.

Shared by the one line, `landwatch status`, `landwatch show`, git notes and the reviewer's log;
it depends on nothing of ours.
"""

from __future__ import annotations

TYPE_CHECKING = False  # neither typing nor pathlib at run time: `landwatch prompt` pays imports
if TYPE_CHECKING:
    from pathlib import Path

# Characters that reorder or hide what follows them on screen ("Trojan Source", CVE-2021-42574)
# and that end a line in some terminals: shown as escapes, never obeyed.
_INVISIBLE = frozenset(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
)


# Where a tab shown as spaces stops: every 8 columns, as terminals and git show a line.
TAB_STOP = 8


def safe(text: str, *, tabs: bool = False) -> str:
    """Printable text: control characters (C0, DEL, C1), bidirectional and line-separator
    controls shown as escapes; a byte that was not UTF-8 (a surrogate escape) shown as \\xNN.
    With `tabs` (a line of a file, shown as a line), a tab is spaces to the next tab stop,
    counted from the text's start in what is shown, every other control still an escape."""
    out = []
    column = 0  # what is shown so far, in characters: where the next tab stop is
    for char in text:
        code = ord(char)
        if code == 0x09 and tabs:
            shown = " " * (TAB_STOP - column % TAB_STOP)
        elif 0xDC80 <= code <= 0xDCFF:
            shown = f"\\x{code - 0xDC00:02x}"
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in _INVISIBLE:
            shown = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        else:
            shown = char
        out.append(shown)
        column += len(shown)
    return "".join(out)


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 line`, `2 lines`, `1 commit waits`... (`many`: the plural when it is not word + s)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def repository_name(git_dir: Path) -> str:
    """The worktree's directory name (or the linked worktree's name) for a line about it."""
    if git_dir.parent.name == "worktrees":
        return git_dir.name
    return git_dir.resolve().parent.name if git_dir.name == ".git" else git_dir.name


def short_path(path: str, width: int, home: str | None = None) -> str:
    """A path that fits `width`: the home directory as ~, then, if still too long, its middle
    left out at `/`s (`~/work/…/project/.git`). The repository's own name (the directory
    holding `.git`, or the last one) stays, shortened in its own middle only when it alone is
    too long (`…/a-very-l…ng-name/.git`)."""
    home = (home or "").rstrip("/")  # a home of / shortens nothing
    if home and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    if len(path) <= width:
        return path
    parts = path.split("/")
    # `project/.git`, `project/.git/worktrees/topic`: the name is the directory holding `.git`.
    at = next((i for i in range(len(parts) - 1, 0, -1) if parts[i] == ".git"), 0)
    at = at if at >= len(parts) - 3 else len(parts)
    name, after = parts[at - 1], "".join(f"/{part}" for part in parts[at:])
    before = path[: len(path) - len(name) - len(after)]
    # As much of the start as fits beside `…/name`, back to the end of a whole directory.
    start = before[: max(0, width - len(name) - len(after) - 2)]
    start = start[: start.rfind("/") + 1]
    if start:
        return start + "…/" + name + after
    room = max(width - len(after) - 2, 3)
    if len(name) > room:
        half = (room - 1) // 2
        name = name[: room - 1 - half] + "…" + name[len(name) - half :]
    return "…/" + name + after
