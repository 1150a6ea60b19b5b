"""What every secret rule shares: added lines and the commit message scanned, a value already in
the file before the change told at info, each finding shown by one redacted copy of its line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from landwatch.lazy_re import lazy_compile
from landwatch.review.binary import as_text
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity, secret_digest
from landwatch.review.globs import TEST_PATHS, matches_any
from landwatch.review.rules.base import LineRule
from landwatch.review.secrets.redaction import redacted_snippet

MOST_PER_LINE = 16
# A value is looked for in the file before the change whole, each search reading all of it, for
# the first MOST_SEARCHED of a file; past them among its words alone (split where no value a
# detector takes ends), read once: 10,000 secrets added to a 7 MiB file took 40 s (an audit).
# A value not found so is told at its own severity, not lowered: never less than it deserves.
MOST_SEARCHED = 32
_WORD_EDGES = lazy_compile(rb"[\s\"'`,;=:()\[\]{}<>]+")


class _Before:
    """A file's content before the change, and what was read of it to find values in."""

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.searched = 0
        self._words: frozenset[bytes] | None = None

    def holds(self, value: bytes) -> bool:
        if self.searched < MOST_SEARCHED:
            self.searched += 1
            return value in self.content
        if self._words is None:
            self._words = frozenset(_WORD_EDGES.split(self.content))
        return value in self._words


class SecretRule(LineRule):
    """A rule that finds credentials: on the added lines of a file, and on the commit message
    (`scan` with no path). It honours `gitleaks:allow` and `pragma: allowlist secret`.

    A new secret is reported wherever it lands, whatever the file or its directory held before.
    Only two things lower one to info, and neither drops it: the same value was already in the
    file before the change (a move or a copy, not a new leak; review.copied_secrets looks in
    the rest of the tree before), and a conventional test path
    (tests/, testdata/, *_test.go, ...), where test keys and fixtures live, unless the value is
    one the service provably made (`sure_anywhere`: a checksum that holds).
    """

    secret = True
    refuses_push = True
    _kept_before: _Before | None = None  # the file before the change last asked of (`_before`)

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        before = file.old_content() if file.old_id is not None else None
        if before is not None and file.binary:  # its text, as its lines were read (UTF-16 decoded)
            text = as_text(before)
            before = text.data if text is not None else None
        return self.scan(file.path, lines, before=before)

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        """The secrets on `lines` of `path` (None: the commit message); `before` is the file's
        content before the change, where a value already there is no new leak."""
        raise NotImplementedError

    def lowered(
        self, finding: Finding, path: str | None, value: str, before: bytes | None
    ) -> Finding:
        """The finding at info, saying why, when it is no new leak or sits in test data."""
        if (
            before is not None
            and value
            and self._before(before).holds(value.encode("utf-8", "surrogatepass"))
        ):
            finding.severity = min(finding.severity, Severity.INFO)
            finding.message += " (already in this file before the change: moved, not new)"
            return finding
        if self.sure_anywhere(value):
            return finding
        return self.in_test_data(finding, path)

    def _before(self, content: bytes) -> _Before:
        """What is known of `content` (one file's before), kept while it is the one asked of."""
        kept = self._kept_before
        if kept is None or kept.content is not content:
            kept = self._kept_before = _Before(content)
        return kept

    def sure_anywhere(self, value: str) -> bool:
        """Whether `value` is a credential the service provably made, told at its severity even
        in test data; none by default."""
        return False

    def in_test_data(self, finding: Finding, path: str | None) -> Finding:
        """The finding at info, saying so, when `path` is a conventional test path."""
        if path is not None and matches_any(path, TEST_PATHS):
            finding.severity = min(finding.severity, Severity.INFO)
            finding.message += " (in a test path)"
        return finding

    def span_findings(
        self,
        path: str | None,
        line: Line,
        found: Sequence[tuple[str, int, int]],
        seen: Counter[str],
        describe: Callable[[str, str], str] = lambda label, _value: label,
        before: bytes | None = None,
    ) -> Iterator[Finding]:
        """A finding for each (label, start, end) secret of `line`, all shown by one copy of the
        line with every one of them redacted; a value seen before in the scan is another
        occurrence, not the same finding. `describe` makes the message of a label and value;
        `before`, the file before the change, lowers a value already there (`lowered`)."""
        if not found:
            return
        snippet = redacted_snippet(line.text, [(start, end) for _, start, end in found])
        # Past a few findings a file's are one finding listing their lines (merged_past), so
        # a line of thousands (minified, or built to slow the review) need not make them all.
        found = found[:MOST_PER_LINE]
        for label, start, end in found:
            value = line.text[start:end]
            occurrence = seen[value]
            seen[value] += 1
            finding = self.finding(
                describe(label, value),
                path=path,
                number=line.number,
                content=snippet,  # the identity holds the redacted line, never the secret
                occurrence=occurrence,
                snippet=snippet,
            )
            finding.span = (start, end)  # the place, not the value: for the declarations
            finding.secret_digest = secret_digest(value)
            yield self.lowered(finding, path, value, before)
