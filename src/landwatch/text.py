"""Text for a terminal: anything taken from a repository made printable, durations for people.

Shared by the one line, `landwatch status`, `landwatch show`, git notes and the reviewer's log;
it depends on nothing of ours.
"""

from __future__ import annotations

import itertools
import os

TYPE_CHECKING = False  # neither typing nor pathlib at run time: `landwatch prompt` pays imports
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

# Characters that reorder or hide what follows them on screen ("Trojan Source", CVE-2021-42574),
# that end a line in some terminals, or that take no room at all (a zero-width space in a path
# makes `config\u200b.py` look like `config.py`): shown as escapes, never obeyed. Every format
# character (Unicode's category Cf: the bidirectional controls, zero-width spaces, tags, ...) but
# the joiners where they make a script or an emoji, and these others that show nothing: the
# line and paragraph separators, combining marks and variation selectors that take no room, the
# Hangul fillers, blank letters, and the code points Unicode keeps invisible for the future
# (unassigned, so no category Cf yet: U+2065, U+FFF0-FFF8, the rest of U+E0000-E0FFF).
# The joiners and the emoji's variation selector (U+FE0F) are kept only after a character past
# Latin-1, inside a word of another script or an emoji; between ASCII letters they hide.
# githooks/hook.sh holds the same as code-point ranges (lw_hidden, lw_joiners), for its one line:
# tests/githooks/test_escaping.py fails when the two differ at any code point.
_JOINERS = frozenset([0x200C, 0x200D, 0xFE0F])
_INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2028, 0x2029, 0x2065, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),  # Mongolian variation selectors, the vowel separator
        *range(0xFE00, 0xFE0F),
        *range(0xFFF0, 0xFFF9),
    ]
)
# Tags (invisible text), variation selectors' supplement, and the block's unassigned rest.
_IGNORABLE_PLANE = range(0xE0000, 0xE1000)


# Where a tab shown as spaces stops: every 8 columns, as terminals and git show a line.
TAB_STOP = 8


def safe(text: str, *, tabs: bool = False) -> str:
    """Printable text: control characters (C0, DEL, C1), bidirectional and line-separator
    controls, and characters that take no room, shown as escapes; a byte that was not UTF-8 (a
    surrogate escape) shown as \\xNN.
    With `tabs` (a line of a file, shown as a line), a tab is spaces to the next tab stop,
    counted from the text's start in what is shown, every other control still an escape."""
    out = []
    column = 0  # what is shown so far, in characters: where the next tab stop is
    previous = 0  # the code point shown before, for the joiners; 0 after an escape (ASCII)
    for char in text:
        code = ord(char)
        if code == 0x09 and tabs:
            shown = " " * (TAB_STOP - column % TAB_STOP)
        elif (
            code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or _hidden(char, previous)
        ):
            shown = _escape(code)
        else:
            shown = char
        previous = code if shown is char else 0
        out.append(shown)
        column += len(shown)
    return "".join(out)


def _escape(code: int) -> str:
    """A character as `safe` shows what it does not print: a byte that was not UTF-8 (a
    surrogate escape, os.fsdecode's) as \\xNN, any other by its code point."""
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def well_formed(text: str) -> str:
    """`text` as valid UTF-8 can hold it: a byte that was not UTF-8, and any other lone
    surrogate, spelled as `safe` shows it (`caf\\xe9.txt`); every other character as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escape(ord(c)) if 0xD800 <= ord(c) < 0xE000 else c for c in text)
    return text


def safe_lines(text: str) -> str:
    """Text of several lines (an error's message) made printable line by line (safe), its
    newlines kept: a path it names need not be UTF-8, nor printable."""
    return "\n".join(safe(line) for line in text.split("\n"))


def _hidden(char: str, after: int) -> bool:
    """Whether `char` shows nothing, or moves what follows it, after the code point `after`."""
    code = ord(char)
    if code < 0xAD:
        return False  # ASCII and Latin-1's letters: unicodedata is not even asked
    if code in _JOINERS:
        return after <= 0xFF
    if code in _INVISIBLE or code in _IGNORABLE_PLANE:
        return True
    import unicodedata  # built in; asked only of characters past Latin-1's first

    return unicodedata.category(char) == "Cf"


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


def listed(items: Sequence[str], most: int, separator: str = ", ") -> str:
    """The first `most` of `items` joined, and how many more: `a, b, c and 4 more` (a list
    told in one line of a finding or a note stays one line)."""
    more = len(items) - most
    return separator.join(items[:most]) + (f" and {more} more" if more > 0 else "")


def repository_name(git_dir: Path | str) -> str:
    """The worktree's directory name (or the linked worktree's name) for a line about it."""
    import os.path

    parent, name = os.path.split(os.fspath(git_dir).rstrip("/"))
    if os.path.basename(parent) == "worktrees":
        return name
    if name == ".git":
        return os.path.basename(os.path.dirname(os.path.realpath(git_dir)))
    return name


def home_as_tilde(text: str) -> str:
    """`text` with this user's home directory said `~`: what is shared with others (a note a
    teammate fetches: an audit, where one named /home/me/.local/bin/bwrap) names no home."""
    home = os.path.expanduser("~").rstrip("/") + "/"
    if home in ("/", "~/"):
        return text
    # Where a path begins with it, not inside another (/mnt/backup/home/me/: a round-3 audit).
    parts = text.split(home)
    return parts[0] + "".join(
        (home if before[-1:].isalnum() or before[-1:] in ("/", ".", "_", "-", "~") else "~/") + part
        for before, part in itertools.pairwise(parts)
    )


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


# One line fitted to a width. A piece of a line is (text, style, role): KEEP is never cut
# (a rule id, a command to run), PATH loses leading directories, MESSAGE is cut at a word, and
# pieces of one DROP group ("drop:..." roles, dropped in the order they first appear) go together.
KEEP, PATH, MESSAGE, DROP = "", "path", "message", "drop:"
ELLIPSIS = "…"
MESSAGE_FLOOR = 24  # the columns a message keeps while there is something else to drop
NAME_FLOOR = 16  # the columns a path keeps of its name while the message is whole
DEFAULT_WIDTH = 80


def cells(text: str) -> int:
    """The columns `text` takes on a terminal: East Asian wide and full-width characters two,
    combining marks and format characters none (as rich's cell_len, without importing rich)."""
    import unicodedata  # here, not at the top: only a line that is fitted pays for it

    total = 0
    for char in text:
        if char.isascii():
            total += 1
        elif unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        else:
            total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def terminal_width(fd: int = 2) -> int:
    """The terminal's columns: $COLUMNS when it is a number, else the terminal `fd` is (stderr,
    where the hooks' line goes), else DEFAULT_WIDTH (a pipe, an editor's git)."""
    import os

    named = os.environ.get("COLUMNS", "")
    if usable_width(named):
        return int(named)
    try:
        return os.get_terminal_size(fd).columns or DEFAULT_WIDTH
    except (OSError, ValueError):
        return DEFAULT_WIDTH


def asked_width(text: str) -> bool:
    """A width `landwatch prompt --width` takes: usable_width's, or 0 (`$((COLUMNS / 2))` where
    COLUMNS is 1): no room, and the prompt says nothing there."""
    return text == "0" or usable_width(text)


def usable_width(text: str) -> bool:
    """A width a line can be fitted to: a positive number of columns (COLUMNS, `--width`)."""
    # ASCII digits: isdigit takes `²`, which int() refuses (a traceback, not a usage error).
    return text.isascii() and text.isdecimal() and 0 < int(text) < 100_000


def fit(pieces: tuple[tuple[str, str, str], ...], width: int) -> tuple[tuple[str, str], ...]:
    """The line's (text, style) parts in at most `width` columns, cut in this order until it
    fits: paths lose leading directories, messages words down to MESSAGE_FLOOR columns, the DROP
    groups go one by one (each time the cutting starts again from the whole texts), then the
    paths' names lose their start down to NAME_FLOOR columns, the messages words down to the
    first, then within a word, then the paths' names the rest.
    KEEP pieces stay whole: a line of them alone is as wide as they are. Adjacent parts of one
    style are joined."""
    groups = list(dict.fromkeys(role for *_, role in pieces if role.startswith(DROP)))
    for dropped in range(len(groups) + 1):
        kept = [piece for piece in pieces if piece[2] not in groups[:dropped]]
        texts = _shortened(kept, width, last=False)
        if _over(texts, width) <= 0:
            break
    else:
        texts = _shortened(kept, width, last=True)
    parts: list[tuple[str, str]] = []
    for text, (_, style, _) in zip(texts, kept, strict=True):
        if parts and parts[-1][1] == style:
            parts[-1] = (parts[-1][0] + text, style)
        elif text:
            parts.append((text, style))
    return tuple(parts)


def _shortened(pieces: list[tuple[str, str, str]], width: int, *, last: bool) -> list[str]:
    """The pieces' texts, each cut only as far as the line needs, in the order `fit` says
    (`last`: nothing is left to drop, so messages and paths may be cut to a `…`)."""
    texts = [text for text, _, _ in pieces]
    paths = [i for i, (_, _, role) in enumerate(pieces) if role == PATH]
    messages = [i for i, (_, _, role) in enumerate(pieces) if role == MESSAGE]
    for i in paths:
        texts[i] = _cut_path(texts[i], cells(texts[i]) - _over(texts, width), inside=False)
    for i in paths if last else ():  # a long name's start, while the name keeps NAME_FLOOR
        room = max(cells(texts[i]) - _over(texts, width), NAME_FLOOR)
        texts[i] = _cut_path(texts[i], room, inside=True)
    for i in reversed(messages):
        room = cells(texts[i]) - _over(texts, width)
        if last:
            texts[i] = _cut_message(texts[i], room, inside=True)
        else:
            texts[i] = _cut_message(texts[i], max(room, MESSAGE_FLOOR), inside=False)
    for i in paths if last else ():
        if (over := _over(texts, width)) > 0:
            texts[i] = _cut_path(pieces[i][0], cells(texts[i]) - over, inside=True)
    return texts


def _over(texts: list[str], width: int) -> int:
    """How many columns the texts take beyond `width` (none or less: they fit)."""
    return sum(map(cells, texts)) - width


def _cut_path(path: str, room: int, *, inside: bool) -> str:
    """`path` in `room` columns: leading directories left out (`…/pkg/mod.py`), down to its
    name; `inside`, the name's start too (`…e_name.py`, at least `…`)."""
    if not path or cells(path) <= room:
        return path
    names = path.split("/")
    for start in range(1, len(names)):
        shorter = ELLIPSIS + "/" + "/".join(names[start:])
        if cells(shorter) <= room:
            return shorter
    if not inside:
        return ELLIPSIS + "/" + names[-1] if len(names) > 1 else path
    kept: list[str] = []
    used = 1
    for unit in reversed(_units(names[-1])):
        used += cells(unit)
        if used > room:
            break
        kept.append(unit)
    return ELLIPSIS + "".join(reversed(kept))


def _cut_message(message: str, room: int, *, inside: bool) -> str:
    """`message` in `room` columns, cut after a whole word with `…`, at least its first word;
    `inside`, within a word when even that is too wide (at least `…`)."""
    if not message or cells(message) <= room:
        return message
    used, first, last = 0, 0, 0  # columns so far; where the first and the last fitting word end
    for at, char in enumerate(message):
        if char == " " and at and message[at - 1] != " ":
            first = first or at
            if used + 1 > room:
                break
            last = at
        used += cells(char)
    if last or not inside:
        return message[: last or first] + ELLIPSIS if first else message
    return cut(message, room)


def cut(text: str, width: int) -> str:
    """`text` in `width` columns: whole when it fits, else as much of its start as fits before
    `…`, never cut inside an escape `safe` wrote or a character's marks; linear in the text."""
    if cells(text) <= width:
        return text
    kept: list[str] = []
    used = 1
    for unit in _units(text):
        used += cells(unit)
        if used > width:
            break
        kept.append(unit)
    return "".join(kept) + ELLIPSIS


def _units(text: str) -> list[str]:
    """`text` in pieces no cut may go inside: an escape `safe` wrote (`\\x1b`, `\\u202e`), a
    character with the combining marks that follow it."""
    units: list[str] = []
    at = 0
    while at < len(text):
        size = 1
        if text[at] == "\\" and text[at + 1 : at + 2] in ("x", "u"):
            digits = 2 if text[at + 1] == "x" else 4
            escape = text[at + 2 : at + 2 + digits]
            hexadecimal = len(escape) == digits and all(c in "0123456789abcdef" for c in escape)
            size = 2 + digits if hexadecimal else 1
        unit = text[at : at + size]
        if units and size == 1 and cells(unit) == 0:
            units[-1] += unit  # a combining mark stays with what it marks
        else:
            units.append(unit)
        at += size
    return units
