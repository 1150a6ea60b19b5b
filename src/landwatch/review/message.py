"""A commit message as the message rules read it: subject, lines, the last paragraph's trailers
as git interpret-trailers reads them, and the `fixup!` prefix of an autosquash commit.

Text only, no repository: a rule is tested on a message written as a string.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from landwatch.lazy_re import lazy_compile

# Subjects `git rebase --autosquash` folds into an earlier commit.
AUTOSQUASH_PREFIXES = ("fixup! ", "squash! ", "amend! ")
_TRAILER = lazy_compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)\s*:\s*(.*)$")


@dataclass
class Message:
    """A commit message (its raw bytes, whatever their encoding) and who wrote it."""

    raw: bytes
    author_name: str
    author_email: str

    @cached_property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    @cached_property
    def subject(self) -> str:
        return self.text.partition("\n")[0]

    @cached_property
    def lines(self) -> list[str]:
        """Split once: each line asked for as a trailer split the whole message again, and a
        last paragraph of 10,000 lines took 3 s (a hostile commit's, pulled, is read too)."""
        return self.text.rstrip("\n").split("\n")

    @cached_property
    def last_paragraph(self) -> range:
        """Indexes into `lines` of the last paragraph; empty when the message is one paragraph,
        since git never reads trailers from the paragraph holding the subject."""
        lines = self.lines
        end = len(lines)
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        start = end
        while start > 0 and lines[start - 1].strip():
            start -= 1
        return range(start, end) if start > 0 else range(0)

    def trailer(self, index: int) -> tuple[str, str] | None:
        """(key, value) when line `index` is a `Key: value` line of the last paragraph."""
        if index not in self.last_paragraph:
            return None
        match = _TRAILER.match(self.lines[index])
        return (match[1], match[2].strip()) if match else None

    @cached_property
    def trailers(self) -> list[tuple[str, str]]:
        """The trailers, as git interpret-trailers reads them: the last paragraph, when every
        line of it is one."""
        found = [self.trailer(index) for index in self.last_paragraph]
        return [trailer for trailer in found if trailer is not None] if all(found) else []

    @property
    def autosquash(self) -> str | None:
        """The `fixup! ` (or `squash! `, `amend! `) prefix of the subject, if it has one."""
        return next((p for p in AUTOSQUASH_PREFIXES if self.subject.startswith(p)), None)
