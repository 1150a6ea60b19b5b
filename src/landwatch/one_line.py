"""The one line of unread reviews, and the unread markers it is made of: each marker holds what
the line says of its review (the worst finding not told yet, the rest counted), written when
the review is stored (report_store). So the line, and a shell prompt, read a few small files and
no report; this module imports nothing heavier than landwatch.files and landwatch.text.
"""

from __future__ import annotations

import os

from landwatch.files import list_entries, read_file
from landwatch.text import DROP, KEEP, MESSAGE, PATH, safe

TYPE_CHECKING = False  # typing is not imported: a shell prompt pays for every import
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

VERSION = b"landwatch-unread 1\n"
SHOW_UNREAD = "landwatch show --unread"
# Severities by value (landwatch.review.findings.Severity: info 1, warning 2, error 3).
STYLES = {3: "red", 2: "yellow", 1: "cyan"}
_FIELDS = 7
MARKER_LIMIT = 16 << 10  # a marker's text is a line; anything longer is none of ours


class Told:
    """What the one line says of one unread review: its worst finding not told yet (rule,
    message, place), what else the review found (`2 warnings, 1 info`, or ""), and the commit
    a rebase or amend replaced that held the same finding ("" when none did)."""

    __slots__ = ("commit", "line", "message", "path", "replaces", "rest", "rule", "severity")

    def __init__(
        self,
        commit: str,
        severity: int,
        rule: str,
        message: str,
        path: str | None = None,
        line: int | None = None,
        rest: str = "",
        replaces: str = "",
    ) -> None:
        self.commit = commit
        self.severity = severity
        self.rule = rule
        self.message = message
        self.path = path
        self.line = line
        self.rest = rest
        self.replaces = replaces

    def text(self) -> bytes:
        """The marker's content: its fields escaped (no tab or line end is left in one), tab
        separated, after the format's first line."""
        fields = (
            self.severity,
            self.rule,
            self.message,
            self.path or "",
            self.line or "",
            self.rest,
            self.replaces,
        )
        return VERSION + "\t".join(safe(str(field)) for field in fields).encode() + b"\n"

    @classmethod
    def parse(cls, commit: str, data: bytes) -> Told | None:
        """The marker's content read back; None for anything else (an older landwatch's empty
        marker, garbage), whose review the caller reads instead."""
        if not data.startswith(VERSION):
            return None
        fields = data[len(VERSION) :].decode("utf-8", "replace").rstrip("\n").split("\t")
        if len(fields) == _FIELDS - 1:
            fields.append("")  # written before a marker named the commit it replaced
        if len(fields) != _FIELDS or fields[0] not in ("1", "2", "3") or not fields[1]:
            return None
        severity, rule, message, path, line, rest, replaces = fields
        number = int(line) if line.isdigit() and len(line) < 10 else None
        replaced = replaces if _is_commit(replaces) else ""
        return cls(commit, int(severity), rule, message, path or None, number, rest, replaced)


def _is_commit(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def markers(directory: Path | str, *, trusted: Path | str) -> list[str]:
    """The commits with an unread marker in `directory`, newest first (a marker's mtime is when
    its review was stored; among equals, the later name first)."""
    try:
        entries = list_entries(directory, trusted=trusted)
    except OSError:
        return []
    newest = sorted(entries, key=lambda entry: (entry[1].st_mtime, entry[0]), reverse=True)
    return [name for name, _ in newest]


def read(directory: Path | str, *, trusted: Path | str) -> list[tuple[str, Told | None]]:
    """Each marker's commit and what it says, newest first (None: it says nothing readable)."""
    found = []
    for commit in markers(directory, trusted=trusted):
        try:
            data = read_file(os.path.join(directory, commit), trusted=trusted, limit=MARKER_LIMIT)
        except OSError:
            data = b""
        found.append((commit, Told.parse(commit, data)))
    return found


def worst(told: Sequence[Told]) -> Told:
    """The review whose finding the line names: the worst, the newest among equals (`told` is
    newest first, and max keeps the first of equals)."""
    return max(told, key=lambda each: each.severity)


def words(told: Sequence[Told]) -> tuple[tuple[str, str, str], ...]:
    """The one line, as (text, style, role) pieces for landwatch.text.fit: the worst unread
    finding named (rule, message, place), then what else is unread, then the command. What came
    from a repository is escaped here, whatever the marker holds; its secrets were redacted by
    the review. Fitted to a width, the path is shortened first, then the message, then what
    else that review found, the commit it replaced and the other reviews unread go; the rule
    and commands stay whole."""
    named = worst(told)
    more = len(told) - 1
    style = STYLES.get(named.severity, "")
    where: tuple[tuple[str, str, str], ...]
    if named.path is not None:
        where = (" in ", "", KEEP), (safe(named.path), "", PATH)
        at = (f":{named.line}" if named.line else "", "", KEEP)
    else:  # the commit message, or nothing: the change as a whole
        where = ((" in the commit message" if named.line else "", "", KEEP),)
        at = ("", "", KEEP)
    return (
        ("landwatch: ", "bold", KEEP),
        (f"{safe(named.rule)} ", style, KEEP),
        (safe(named.message), style, MESSAGE),
        *where,
        at,
        (f", +{safe(named.rest)}" if named.rest else "", "", f"{DROP}rest"),
        (" · ", "", KEEP),
        (f"landwatch show {safe(named.commit[:7])}", "bold cyan", KEEP),
        (f" (replaces {named.replaces[:7]})" if named.replaces else "", "dim", f"{DROP}replaces"),
        (f" ({more} more unread: " if more > 0 else "", "dim", f"{DROP}more"),
        (SHOW_UNREAD if more > 0 else "", "bold cyan", f"{DROP}more"),
        (")" if more > 0 else "", "dim", f"{DROP}more"),
    )


# --- the lines more urgent than findings, spelled here so a shell prompt needs nothing more ---

TRUST_COMMAND = "landwatch trust"
STATUS_COMMAND = "landwatch status"
START_COMMAND = "landwatch service start"
LINTERS, HOOKS = "linters", "hooks"  # what an approval is of (landwatch.trust)


def held_back_subject(token: str) -> str:
    """What a line of the held-back file is of: a linters' digest alone (as before hooks were),
    a hooks' after its subject (landwatch.trust writes them)."""
    return token.partition(" ")[0] if " " in token else LINTERS


def held_back_tokens(path: Path | str, *, trusted: Path | str) -> list[str]:
    """The digests a held-back file names (landwatch.trust's), a line each: a few, one per
    subject; none when it is not there or not readable."""
    try:
        text = read_file(path, trusted=trusted).decode()
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in text.splitlines()[:8] if line.strip()]


def held_back_subjects(tokens: Sequence[str]) -> list[str]:
    """What those digests were held back of, in the order the line names them: LINTERS, HOOKS."""
    present = {held_back_subject(token) for token in tokens}
    return [subject for subject in (LINTERS, HOOKS) if subject in present]


def untrusted_words(subjects: Sequence[str], repository: str) -> tuple[tuple[str, str, str], ...]:
    """The line telling that committed linters, or the project's hooks, did not run for want
    of trust (`subjects`: LINTERS, HOOKS) in `repository` (a name, escaped here)."""
    what = {
        (HOOKS,): "the project's hooks",
        (LINTERS, HOOKS): "the linters and the project's hooks committed",
    }.get(tuple(subjects), "the linters committed")
    return (
        ("landwatch: ", "bold", KEEP),
        (what, "yellow", MESSAGE),
        (f" in {safe(repository)}", "yellow", f"{DROP}repository"),
        (" did not run", "yellow", KEEP),
        (": nothing allowed their commands", "", f"{DROP}why"),
        ("; review them with ", "", KEEP),
        (TRUST_COMMAND, "bold cyan", KEEP),
    )


def item_named(item_id: str, digits: int = 7) -> str:
    """How an item given up is named: `the review of 3f78685`. Garbage set aside
    (`invalid-<digest>`) names no commit: no kind, no id to show."""
    kind, _, oid = item_id.partition("-")
    if not _is_commit(oid):
        return "an unreadable item (not one landwatch wrote)"
    return f"the {safe(kind)} of {oid[:digits]}"


def stale_words(
    commits: int, repository: str, age: str, *, drained: bool
) -> tuple[tuple[str, str, str], ...]:
    """The line telling that `commits` landed commits have waited `age` (the oldest) in
    `repository`: nobody reviews them (the reviewer is not running), or, not `drained`, the
    reviewer does not know the repository."""
    items = "1 landed commit waits" if commits == 1 else f"{commits} landed commits wait"
    if drained:
        why, command = "nobody is reviewing them. Start the reviewer", START_COMMAND
    else:
        why, command = "your reviewer does not drain this repository", "landwatch install"
    return (
        ("landwatch: ", "bold", KEEP),
        (f"{items} for review in {safe(repository)}", "yellow", MESSAGE),
        (f" (the oldest for {age}); {why}", "", MESSAGE),
        (": ", "", KEEP),
        (command, "bold cyan", KEEP),
    )


def given_up_words(
    what: str, more: int, repository: str, *, held_back: bool = False
) -> tuple[tuple[str, str, str], ...]:
    """The line telling of items given up: the first named (`what`, already safe), how many
    more, in `repository`; `held_back`: a push the push gate held back, a finding."""
    return (
        ("landwatch: ", "bold", KEEP),
        (f"{'held back' if held_back else 'gave up'} {what}", "red", MESSAGE),
        (f" and {more} more" if more else "", "red", MESSAGE),
        (" in " + safe(repository), "", f"{DROP}repository"),
        ("; see ", "", KEEP),
        (STATUS_COMMAND, "bold cyan", KEEP),
    )
