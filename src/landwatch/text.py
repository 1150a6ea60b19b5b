"""Text for a terminal: anything taken from a repository made printable, durations for people.

Shared by the one line, `landwatch status`, `landwatch show`, git notes and the reviewer's log;
it depends on nothing of ours.
"""

from __future__ import annotations

from pathlib import Path

# Characters that reorder or hide what follows them on screen ("Trojan Source", CVE-2021-42574)
# and that end a line in some terminals: shown as escapes, never obeyed.
_INVISIBLE = frozenset(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
)


def safe(text: str) -> str:
    """Printable text: control characters (C0, DEL, C1), bidirectional and line-separator
    controls shown as escapes; a byte that was not UTF-8 (a surrogate escape) shown as \\xNN."""
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in _INVISIBLE:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
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
    """A path that fits `width`: the home directory as ~, then, if still too long, its start
    left out at a `/` (`…/project/.git`), never cut inside a name when that can be helped."""
    home = (home or "").rstrip("/")  # a home of / shortens nothing
    if home and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    if len(path) <= width:
        return path
    tail = path[-(width - 1) :] if width > 1 else ""
    cut = tail.find("/")
    if 0 <= cut < len(tail) - 1:
        tail = tail[cut:]
    return "…" + tail
