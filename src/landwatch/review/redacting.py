"""The review's one redaction step: whatever rule, plug-in or linter made a finding, no path,
snippet, message or identity of it shows a secret, nor does a note or a linter's words.

A secret is what a detector recognises on a line alone, and every value a secret rule found,
however it knew it (a Kubernetes Secret's data, the line above, the kind of file): a line a
secret finding redacts is shown whole by no other finding, whoever's words quote it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import FileChange
from landwatch.review.checking import Unfinished, message_lines
from landwatch.review.findings import Finding, fingerprint
from landwatch.review.message import Message
from landwatch.review.secrets.private_keys import KEY_MATERIAL, key_block_lines
from landwatch.review.secrets.redaction import (
    NONE_FOUND,
    Found,
    forget_lines,
    redact_secrets,
    window,
)

# A string a secret's line leaves to the next ones: its literal closed at the line's end (maybe
# before a `+`, or a backslash but in a shell's script, where `"a" \` then `"b"` are two words:
# round 2 found `"postgres"` hidden everywhere, round 3 Python's joined lines shown), the next
# lines only literals (maybe after a `+`); or a triple quote left open, or a backslash ending
# the line inside a quoted string, up to where it closes.
MOST_CONTINUED = 8
_SHORTEST_CONTINUED = 4
_CLOSED_AT_THE_END = lazy_compile(r"[\"']\s*+\+?\s*+")
_JOINED_AT_THE_END = lazy_compile(r"[\"']\s*+[+\\]?\s*+")
_SHELL_SCRIPTS = (".sh", ".bash", ".zsh", ".ksh", "Dockerfile", "Makefile", ".mk", ".env")
_LITERAL = lazy_compile(r"[rbuf]{0,2}([\"'])([^\"'\\]++)\1", re.IGNORECASE)
_LITERALS_ONLY = lazy_compile(
    r"\s*+(?:\+?\s*+[rbuf]{0,2}([\"'])[^\"'\\]++\1\s*+)++[)\],;+\\]*+\s*+", re.IGNORECASE
)
_TRIPLE = lazy_compile(r'"""|\'\'\'')


@dataclass
class LinesRead:
    """The text of each line a secret finding may sit on: the lines of `files` the secret rules
    read, once a file, and the lines of `message` (a finding of no path), when given."""

    files: Mapping[str, FileChange]
    message: Message | None = None
    _texts: dict[str | None, dict[int, str]] = field(default_factory=dict, repr=False)

    def value(self, finding: Finding) -> str | None:
        """The value a secret finding is about, read again from its line by its span."""
        if finding.line is None or finding.span is None:
            return None
        texts = self._texts.get(finding.path)
        if texts is None:
            texts = self._texts[finding.path] = self._read(finding.path)
        text = texts.get(finding.line)
        if text is None:
            return None
        start, end = finding.span
        return text[start:end]

    def continued(self, finding: Finding) -> list[str]:
        """What the lines after a secret finding's hold of its string, where its line leaves it
        to them: `("Aq1…"` then `"Ft5…")`, or a triple quote not closed (an audit: a whitespace
        finding on the second line showed that half whole). At most MOST_CONTINUED lines."""
        texts = self._texts.get(finding.path, {})
        if finding.line is None or finding.span is None or finding.line not in texts:
            return []
        text, (start, end) = texts[finding.line], finding.span
        following = (texts.get(finding.line + at) for at in range(1, MOST_CONTINUED + 1))
        said: list[str] = []
        shell = (finding.path or "").endswith(_SHELL_SCRIPTS)
        quote = text[start - 1 : start] if start and text[start - 1] in "\"'" else ""
        if (_CLOSED_AT_THE_END if shell else _JOINED_AT_THE_END).fullmatch(text, end):
            for line in following:
                if line is None or not _LITERALS_ONLY.fullmatch(line):
                    break
                said += [literal[2] for literal in _LITERAL.finditer(line)]
        # The string is the secret: a triple-quoted configuration holding one is not (round 2).
        elif not text[end:].strip() and text[:start].rstrip().endswith(('"""', "'''")):
            for line in following:
                if line is None:
                    break
                head = _TRIPLE.split(line, maxsplit=1)
                said.append(head[0].strip())
                if len(head) > 1:
                    break
        elif text[end:] == "\\" and quote:  # not a shell's unquoted word: round 3
            for line in following:
                if line is None or (quote not in line and not line.endswith("\\")):
                    break
                said.append(line.partition(quote)[0].strip().rstrip("\\"))
                if quote in line:
                    break
        return [value for value in said if len(value) >= _SHORTEST_CONTINUED]

    def _read(self, path: str | None) -> dict[int, str]:
        if path is None:
            lines = message_lines(self.message) if self.message is not None else []
        else:
            file = self.files.get(path)
            lines = file.secret_lines if file is not None else []
        return {line.number: line.text for line in lines}


def found_secrets(findings: Iterable[Finding], read: LinesRead) -> Found:
    """The value at each secret finding's span: taken before findings are merged (a burst keeps
    one span) or dropped (a declaration's), since hiding too much is harmless."""
    values: list[str] = []
    for finding in findings:
        value = read.value(finding) if finding.span is not None else None
        if value:
            values += [value, *read.continued(finding)]
    return Found(values)


def refingerprinted(findings: list[Finding], found: Found) -> None:
    """Each finding whose line or words hold a value the secret rules `found` given an identity
    made with them redacted: its own hashed the secret, and a fingerprint (SARIF's, a burst's
    made of them) must never confirm a guess. The same commit gets the same one, run to run."""
    if not found:
        return
    for finding in findings:
        shown = finding.snippet if finding.snippet is not None else finding.message
        if found.spans(shown) or found.spans(finding.message):
            finding.fingerprint = fingerprint(finding.rule, finding.path, shown, found=found)


def redact(
    findings: list[Finding],
    notes: list[str],
    runs: list[dict[str, str]],
    files: dict[str, FileChange],
    found: Found = NONE_FOUND,
    message: Message | None = None,
) -> None:
    """Whatever rule, plug-in or linter made a finding, no path, snippet or message of it shows
    a secret a detector recognises or a secret rule `found`; nor does a note or a linter's
    words. A snippet of a line inside a private key's block shows no line at all: a body line
    holds nothing a detector knows on its own. Every output (show, JSON, SARIF, the git note)
    shows the report, so it is redacted here; the last redaction of its lines, which the
    detectors then let go of. A message rule's snippet is of `message`, a key pasted there too."""
    key_lines = _key_lines(findings, files, message)
    for finding in findings:
        finding.message = redact_secrets(finding.message, found=found)
        if finding.snippet is not None:
            if finding.line in key_lines.get(finding.path or "", ()):
                finding.snippet = KEY_MATERIAL
            else:
                # Redacted whole (a key's body is told by its header), then a window of each
                # line (a hook's words are lines): no report holds a minified file's line.
                said = redact_secrets(finding.snippet, found=found).split("\n")
                finding.snippet = "\n".join(window(line) for line in said)
        if finding.path is not None:
            # A token in a file name; the fingerprint hashed the path redacted already.
            finding.path = redact_secrets(finding.path)
    notes[:] = [_redacted_note(note, found) for note in notes]
    for run in runs:
        run["detail"] = redact_secrets(run.get("detail", ""), found=found)
        if "path" in run:
            run["path"] = redact_secrets(run["path"])
    forget_lines()


def _key_lines(
    findings: list[Finding], files: dict[str, FileChange], message: Message | None
) -> dict[str, set[int]]:
    """The lines inside private key blocks of each file a finding shows a line of (the message's
    by ""): its committed content read once, looked through only when it holds a key's header."""
    key_lines: dict[str, set[int]] = {}
    for finding in findings:
        path = finding.path or ""
        if finding.snippet is None or finding.line is None or path in key_lines:
            continue
        file = files.get(path)
        content = file.new_content() if file is not None else None
        if not path and message is not None:
            content = message.text.rstrip("\n").encode()  # numbered as its lines are
        key_lines[path] = key_block_lines(content) if content is not None else set()
    return key_lines


def _redacted_note(note: str, found: Found) -> str:
    """`note` redacted; a rule's that could not finish still says which (checking.Unfinished)."""
    said = redact_secrets(note, found=found)
    return Unfinished(said, note.rule) if isinstance(note, Unfinished) else said
