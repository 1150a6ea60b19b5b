"""Reviews as git notes under refs/notes/landwatch: one JSON document per line, one line per
review of the annotated commit (a teammate's and one's own side by side), so that git's
`cat_sort_uniq` merge of two clones' notes keeps every review.

Importing it costs no pygit2 (the share kind runs in the reviewer's own process). A note is
data from whoever wrote it, never an instruction: every document is read within
bounds, checked field by field, and redacted again; anything else is ignored and said in a line.
A note is read whole or not at all (past MAX_NOTE_BYTES or MAX_LINES), so that no line can hide
another by sorting first: a note not read stands for no review, and its commit is reviewed.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from landwatch import __version__
from landwatch.json_out import read_with_bytes, strict_json, with_bytes
from landwatch.lazy_re import lazy_compile
from landwatch.review import allowed
from landwatch.review.allowed import Allowance
from landwatch.review.findings import Basis, Finding, Severity, stored_digest
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import redact_secrets
from landwatch.text import home_as_tilde

if TYPE_CHECKING:
    import pygit2

NOTES_REF = "refs/notes/landwatch"
FORMAT = 1
KEY = "landwatch_note"  # the key every document has, holding its format
# Bounds on what is read: a note's blob, its lines, one document (a line). A note past the first
# two is not read at all: reading only its first lines let lines that sort first (cat_sort_uniq
# sorts them) hide the ones after. A line is one review, and a team's reviews of one commit are
# far fewer than MAX_LINES. 1 MiB of distinct junk lines took 0.9 s to read; 256 lines take 1 ms
# (junk) to 5 ms (documents of a finding each), and a note refused for its lines 10 ms.
MAX_NOTE_BYTES = 1 << 20
MAX_LINES = 256
MAX_DOCUMENT_BYTES = 256 << 10
# What one document carries: more findings are counted, and such a review is not taken.
MAX_FINDINGS = 500
# Allowances one document carries (`landwatch allow`, those covering its findings): more are no
# document of ours.
MAX_ALLOWED = 200
# Bounds on a field: longer is no document of ours.
_TEXT = {"rule": 100, "name": 100, "message": 4000, "snippet": 2000}
_PATH = 4096  # a path's characters: a byte not UTF-8 one (`path_bytes` decoded)
_HEX = lazy_compile(r"[0-9a-f]{1,64}")
_SHAPES = ("commit", "root", "merge")


@dataclass
class SharedReview:
    """One review a note holds: who made it, when, under which rules and configuration, and the
    review itself as a report (its `reviewed_by` says whose it is)."""

    report: Report
    reviewed_by: str
    reviewed_at: float
    rules_version: str
    config_hash: str
    landwatch: str
    omitted: int = 0  # findings left out of the document (past MAX_FINDINGS)
    learned: dict[str, Any] | None = None  # what the history taught its reviewer (effective)
    document: bytes = field(default=b"", repr=False)  # the line read: its identity, whole

    @property
    def complete(self) -> bool:
        """Whether it is the whole review: every line checked, every finding in the document."""
        return not self.report.truncated and not self.omitted


@dataclass
class ReadNote:
    """What a note of one commit holds: its reviews, and a short reason per line ignored."""

    reviews: list[SharedReview] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)  # lines ignored, by reason

    def said(self) -> str:
        """The ignored lines in a few words: `2 lines ignored (not JSON, format 7)`."""
        reasons = ", ".join(self.ignored)
        count = self.ignored.total()
        return f"{count:,} line{'' if count == 1 else 's'} ignored ({reasons})"


def document(
    report: Report,
    *,
    reviewed_by: str,
    rules_version: str,
    config_hash: str,
    at: float,
    learned: dict[str, Any] | None = None,
) -> str:
    """The review of one commit (not of a range) as one line of JSON, ASCII only: `git log
    --notes` prints it raw, and JSON's escapes leave no control character in it; valid UTF-8 for
    any reader (strict_json). `learned`: what the history taught the rules (Standards.effective)."""
    findings = report.findings[:MAX_FINDINGS]
    data: dict[str, Any] = {
        KEY: FORMAT,
        "commit": report.commit,
        "shape": report.shape,
        "landwatch": __version__,
        "rules_version": rules_version,
        "config_hash": config_hash,
        "reviewed_by": reviewed_by,
        "reviewed_at": int(at),
        "rules": report.rules,
        "config": report.config,
        "truncated": report.truncated,
        "lines_checked": report.lines_checked,
        "findings": [finding.as_dict() for finding in findings],
        "omitted": len(report.findings) - len(findings),
        "notes": [home_as_tilde(note) for note in report.notes[:50]],
        "standards": learned,
    }
    if report.allowed:  # only then: a note with none is what landwatch wrote before allowances
        data["allowed"] = [one.as_dict() for one in report.allowed[:MAX_ALLOWED]]
    line = strict_json(data, sort_keys=True, separators=(",", ":"))
    if len(line) > MAX_DOCUMENT_BYTES:
        # Snippets make most of a big document; without them it says what was found, and where.
        data["findings"] = [dict(f, snippet=None) for f in data["findings"]]
        line = strict_json(data, sort_keys=True, separators=(",", ":"))
    return line


def parse(data: bytes, commit: str) -> ReadNote:
    """The reviews in a note of `commit`, every line read, each checked, one review per distinct
    line; what is not one is counted as ignored. ValueError for a note too large to read whole
    (over MAX_NOTE_BYTES or MAX_LINES): none of it is read."""
    if len(data) > MAX_NOTE_BYTES:
        raise ValueError(f"a note of {len(data):,} bytes, over {MAX_NOTE_BYTES:,}: not read")
    lines = [line for line in data.split(b"\n") if line.strip()]
    if len(lines) > MAX_LINES:
        raise ValueError(f"a note of {len(lines):,} lines, over {MAX_LINES}: not read")
    read = ReadNote()
    for line in dict.fromkeys(lines):
        try:
            review = _review(line, commit)
        except ValueError as error:
            read.ignored[str(error)] += 1
            continue
        review.document = line
        read.reviews.append(review)
    return read


def _review(line: bytes, commit: str) -> SharedReview:
    if len(line) > MAX_DOCUMENT_BYTES:
        raise ValueError("over 256 KiB")
    if not line.lstrip().startswith(b"{"):
        raise ValueError("not JSON")  # said without a parse: a note may hold many such lines
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(data, dict) or KEY not in data:
        raise ValueError("not a landwatch review")
    version = data[KEY]
    if version != FORMAT or isinstance(version, bool):
        shown = version if isinstance(version, int) else repr(str(version)[:20])
        raise ValueError(f"format {shown}, not {FORMAT}")
    if data.get("commit") != commit:
        raise ValueError("of another commit")
    shape = _choice(data, "shape", _SHAPES)
    reviewed_by = redact_secrets(_text(data, "reviewed_by", 254))
    rules = data.get("rules")
    if not isinstance(rules, list) or not all(_short(rule, 100) for rule in rules):
        raise ValueError("malformed rules")
    findings = data.get("findings")
    notes = data.get("notes", [])
    if not isinstance(findings, list) or len(findings) > MAX_FINDINGS:
        raise ValueError("malformed findings")
    if not isinstance(notes, list) or not all(_short(note, 4000) for note in notes[:50]):
        raise ValueError("malformed notes")
    checked = [_finding(item) for item in findings]
    report = Report(
        commit=commit,
        base=None,
        shape=shape,
        label=commit[:12],
        rules=list(rules),
        findings=checked,
        allowed=_allowed(data.get("allowed", []), commit, checked),
        truncated=_flag(data, "truncated"),
        lines_checked=_count(data, "lines_checked"),
        config=redact_secrets(_text(data, "config", 200)),
        notes=[redact_secrets(note) for note in notes[:50]],
        started=float(_count(data, "reviewed_at")),
        reviewed_by=reviewed_by,
    )
    return SharedReview(
        report,
        reviewed_by,
        float(_count(data, "reviewed_at")),
        _hex(data, "rules_version"),
        _hex(data, "config_hash"),
        _text(data, "landwatch", 40),
        _count(data, "omitted"),
        _learned(data.get("standards")),
    )


def _finding(item: Any) -> Finding:
    """One finding of a document, every field checked and every text redacted again: a note may
    come from a landwatch that redacted less, or from someone who redacted nothing."""
    if not isinstance(item, dict):
        raise ValueError("malformed finding")
    texts: dict[str, str] = {}
    for name, most in _TEXT.items():
        value = item.get(name)
        if value is None and name == "snippet":
            continue
        if not _short(value, most) or (name == "rule" and not value):
            raise ValueError(f"malformed finding {name}")
        texts[name] = str(value)
    severity = item.get("severity")
    if severity not in ("info", "warning", "error"):
        raise ValueError("malformed finding severity")
    line, end = _line(item.get("line")), _line(item.get("end_line"))
    fingerprint = item.get("fingerprint", "")
    if not isinstance(fingerprint, str) or (fingerprint and not _HEX.fullmatch(fingerprint)):
        raise ValueError("malformed finding fingerprint")
    # A path not UTF-8 is its own bytes (`path_bytes`), shown readable in `path`.
    path, snippet = read_with_bytes(item, "path", _PATH), texts.get("snippet")
    basis = Basis.from_dict(item.get("decided_by"))
    if basis is not None and basis.source is not None:
        basis = basis._replace(source=redact_secrets(basis.source))
    return Finding(
        texts["rule"],
        redact_secrets(texts["name"]),
        Severity[severity.upper()],
        redact_secrets(texts["message"]),
        redact_secrets(path) if path is not None else None,
        line,
        end,
        redact_secrets(snippet) if snippet is not None else None,
        fingerprint,
        basis=basis,
        secret_digest=stored_digest(item.get("secret_digest")),
    )


def _allowed(value: Any, commit: str, findings: list[Finding]) -> list[Allowance]:
    """The allowances a document carries that cover its findings, who allowed redacted again;
    entries that are no allowance, or cover nothing here, dropped."""
    if not isinstance(value, list) or len(value) > MAX_ALLOWED:
        raise ValueError("malformed allowed")
    found = [one for item in value if (one := Allowance.from_dict(item)) is not None]
    kept = allowed.covering(found, commit, findings)
    return [one._replace(who=redact_secrets(one.who)) for one in kept]


def with_allowed(line: bytes, allowances: list[Allowance]) -> str:
    """The document `line` (one of ours, read by `parse`) carrying `allowances` instead of
    what it carried, every other field as written (a path an older landwatch wrote as a lone
    surrogate in today's form, its bytes kept)."""
    data = json.loads(line.decode("utf-8"))
    for finding in data["findings"]:
        finding.update(with_bytes("path", read_with_bytes(finding, "path")))
    data.pop("allowed", None)
    if allowances:
        data["allowed"] = [one.as_dict() for one in allowances[:MAX_ALLOWED]]
    return strict_json(data, sort_keys=True, separators=(",", ":"))


_LEARNED_KEYS = {"subject_limit", "conventional", "signs_off"}
# Said since the project's own Conventional Commits types were learned; older notes lack it.
_LEARNED_TYPES = "conventional_types"
_MOST_TYPES, _LONGEST_TYPE = 64, 64


def _learned(value: Any) -> dict[str, Any] | None:
    """What a document says its reviewer learned, when it says it in the form of ours."""
    if value is None:
        return None
    limit = value.get("subject_limit") if isinstance(value, dict) else None
    types = value.get(_LEARNED_TYPES, []) if isinstance(value, dict) else None
    if (
        not isinstance(value, dict)
        or set(value) - {_LEARNED_TYPES} != _LEARNED_KEYS
        or not (limit is None or (isinstance(limit, int) and not isinstance(limit, bool)))
        or not all(isinstance(value[key], bool) for key in ("conventional", "signs_off"))
        or not isinstance(types, list)
        or len(types) > _MOST_TYPES
        or not all(_short(kind, _LONGEST_TYPE) for kind in types)
    ):
        raise ValueError("malformed standards")
    return dict(value)


def _short(value: Any, most: int) -> bool:
    return isinstance(value, str) and len(value) <= most


def _text(data: dict[str, Any], name: str, most: int) -> str:
    value = data.get(name, "")
    if not _short(value, most):
        raise ValueError(f"malformed {name}")
    return str(value)


def _hex(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ValueError(f"malformed {name}")
    return value


def _choice(data: dict[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = data.get(name)
    if value not in choices:
        raise ValueError(f"malformed {name}")
    return str(value)


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise ValueError(f"malformed {name}")
    return value


def _count(data: dict[str, Any], name: str) -> int:
    value = data.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 53:
        raise ValueError(f"malformed {name}")
    return value


def _line(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 1 << 31:
        raise ValueError("malformed finding line")
    return value


def read_note(repo: pygit2.Repository, commit: str, ref: str = NOTES_REF) -> bytes | None:
    """The note of `commit` under `ref`, if it has one of at most MAX_NOTE_BYTES; None when it
    has none. ValueError for a note too large to read (its size is read from its header)."""
    import pygit2

    try:
        note = repo.lookup_note(commit, ref)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    size = repo.odb.read_header(note.id)[1]
    if size > MAX_NOTE_BYTES:
        raise ValueError(f"a note of {size:,} bytes, over {MAX_NOTE_BYTES:,}: not read")
    blob = repo[note.id]
    return blob.data if isinstance(blob, pygit2.Blob) else None


def composed(existing: bytes | None, line: str, commit: str) -> str:
    """The note of `commit` once `line` (a document of ours) is added, sorted as git's
    cat_sort_uniq leaves them and readable whole (within MAX_NOTE_BYTES and MAX_LINES): always
    `line`, then the reviews it held (one of the same reviewer under the same rules and
    configuration replaced), the newest first while they fit; anything else dropped, and all of
    a note too large to read."""
    new = _review(line.encode(), commit)
    mine = (new.reviewed_by, new.rules_version, new.config_hash)
    try:
        held = parse(existing or b"", commit).reviews
    except ValueError:
        held = []
    others = sorted(
        (
            (review.reviewed_at, review.document)
            for review in held
            if (review.reviewed_by, review.rules_version, review.config_hash) != mine
        ),
        reverse=True,
    )
    ours = line.encode()
    kept, room = {ours}, MAX_NOTE_BYTES - len(ours) - 1
    for _, document in others:
        if len(kept) < MAX_LINES and len(document) < room and document not in kept:
            kept.add(document)
            room -= len(document) + 1
    return b"\n".join(sorted(kept)).decode() + "\n"


def write_note(repo: pygit2.Repository, commit: str, text: str, ref: str = NOTES_REF) -> str:
    """`text` as the note of `commit` under `ref`, replacing what was there; the note's id."""
    import pygit2

    try:
        signature = repo.default_signature
    except (KeyError, pygit2.GitError):
        signature = pygit2.Signature("landwatch", "landwatch@localhost")
    return str(repo.create_note(text, signature, signature, commit, ref, True))
