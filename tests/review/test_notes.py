"""Reviews as git notes: one JSON document per line, written when asked, read back within bounds;
anything else a note holds (garbage, another format, another commit's, a document too large or
too deep, hostile text) ignored with its reason or shown escaped."""

from __future__ import annotations

import dataclasses
import io
import json
import os
from pathlib import Path

import pytest

from landwatch.review import notes, output
from landwatch.review.findings import DECLARED, Basis, Finding, Severity
from landwatch.review.report import Report
from landwatch.styled import Out
from support.daemon import run_reviewer
from support.repos import Repo
from support.tokens import github_token

COMMIT = "c" * 40
RULES, CONFIG = "a" * 64, "b" * 64


def a_report(*findings: Finding, commit: str = COMMIT) -> Report:
    return Report(
        commit, None, "commit", commit[:12], rules=["P001", "S002"], findings=list(findings)
    )


def a_document(report: Report, by: str = "a@team.example", at: float = 1000.0) -> str:
    return notes.document(report, reviewed_by=by, rules_version=RULES, config_hash=CONFIG, at=at)


TRAILING = Finding(
    "P001",
    "trailing-whitespace",
    Severity.WARNING,
    "trailing whitespace",
    "a.py",
    3,
    snippet="x = 1  ",
    fingerprint="0123456789abcdef0123",
)


def test_notes_are_written_when_asked(repo: Repo) -> None:
    repo.git("config", "landwatch.notes", "true")
    repo.git("config", "user.email", "me@team.example")
    oid = repo.land("noted", {"a.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    note = repo.git("notes", "--ref", "landwatch", "show", "HEAD")
    [line] = note.splitlines()
    data = json.loads(line)
    assert data["landwatch_note"] == 1 and data["commit"] == oid
    assert data["reviewed_by"] == "me@team.example"
    assert [(f["rule"], f["path"], f["line"]) for f in data["findings"]] == [("P001", "a.txt", 1)]
    assert len(data["rules_version"]) == 64 and len(data["config_hash"]) == 64
    assert line.isascii() and "\x1b" not in line


def test_a_token_in_a_file_name_is_redacted_in_the_note(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    repo.git("config", "landwatch.notes", "true")
    repo.land("noted", {f"{token}.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    note = repo.git("notes", "--ref", "landwatch", "show", "HEAD")
    assert "ghp_\\u2026.txt" in note and token not in note and token[4:] not in note


def test_a_document_reads_back_as_the_review_it_is() -> None:
    report = a_report(TRAILING)
    read = notes.parse(a_document(report).encode(), COMMIT)
    assert not read.ignored
    [shared] = read.reviews
    assert shared.reviewed_by == "a@team.example" and shared.complete
    assert (shared.rules_version, shared.config_hash) == (RULES, CONFIG)
    assert shared.report.findings == report.findings
    assert shared.report.reviewed_by == "a@team.example" and shared.learned is None
    # As an older landwatch said it, and with the project's own types as it says it now.
    older = {"subject_limit": 90, "conventional": True, "signs_off": False}
    for taught in (older, {**older, "conventional_types": ["types"]}):
        line = notes.document(
            report, reviewed_by="b@x", rules_version=RULES, config_hash=CONFIG, at=0, learned=taught
        )
        assert notes.parse(line.encode(), COMMIT).reviews[0].learned == taught


GARBAGE = {
    "not JSON": b"landwatch: 1 warning (an older landwatch's summary)",
    "not a landwatch review": b'{"a": 1}',
    "format 7, not 1": json.dumps({notes.KEY: 7, "commit": COMMIT}).encode(),
    "of another commit": a_document(a_report(commit="d" * 40)).encode(),
    "malformed findings": a_document(a_report()).replace('"findings":[]', '"findings":{}').encode(),
    "malformed finding severity": a_document(a_report(TRAILING))
    .replace('"warning"', '"fatal"')
    .encode(),
    "malformed finding line": a_document(a_report(TRAILING))
    .replace('"line":3', '"line":-3')
    .encode(),
    "malformed reviewed_by": a_document(a_report()).replace('"a@team.example"', "1").encode(),
    "malformed standards": a_document(a_report())
    .replace('"standards":null', '"standards":[1]')
    .encode(),
    "malformed standards types": a_document(a_report())
    .replace(
        '"standards":null',
        '"standards":{"subject_limit":72,"conventional":true,"signs_off":false,'
        '"conventional_types":"feat"}',
    )
    .encode(),
    "over 256 KiB": b'{"pad": "' + b"x" * (300 << 10) + b'"}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "not UTF-8": b'{"landwatch_note": 1, "commit": "\xff"}',
}


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_garbage_of_every_kind_is_ignored_saying_why(kind: str) -> None:
    read = notes.parse(GARBAGE[kind] + b"\n" + a_document(a_report()).encode(), COMMIT)
    assert len(read.reviews) == 1  # the good line beside it still counts
    [reason] = read.ignored
    expected = {
        "deep": "not JSON",
        "not UTF-8": "not JSON",
        "malformed standards types": "malformed standards",
    }.get(kind, kind)
    assert reason == expected
    assert read.said() == f"1 line ignored ({expected})"


def test_a_note_is_read_whole_and_a_document_once() -> None:
    """Issue 37, attack 10: the note was read only 32 lines far, so 32 lines that sort first
    (cat_sort_uniq sorts them) hid the real review after them. Every line is read now; a line
    repeated is one document, a line that differs in any byte another."""
    forged = [a_document(a_report(), by="mallory@x", at=at).encode() for at in range(40)]
    real = a_document(a_report(TRAILING), by="a@team.example", at=5000).encode()
    lines = sorted([*forged, real, real, b"garbage"])
    assert lines.index(real) > 32
    read = notes.parse(b"\n".join(lines), COMMIT)
    assert [r.document for r in read.reviews].count(real) == 1 and len(read.reviews) == 41
    assert read.said() == "1 line ignored (not JSON)"


def test_a_note_too_large_to_read_whole_is_not_read_at_all() -> None:
    """Past its bytes or its lines, none of a note is read (its commit is then reviewed): the
    lines read would otherwise hide the rest."""
    line = a_document(a_report(), by="mallory@x").encode()
    lines = [line] + [b"{%d" % n for n in range(notes.MAX_LINES)]
    with pytest.raises(ValueError, match=f"257 lines, over {notes.MAX_LINES}: not read"):
        notes.parse(b"\n".join(lines), COMMIT)
    assert len(notes.parse(b"\n".join(lines[:-1]), COMMIT).reviews) == 1
    with pytest.raises(ValueError, match="over 1,048,576: not read"):
        notes.parse(b"x" * (notes.MAX_NOTE_BYTES + 1), COMMIT)
    mine = a_document(a_report(TRAILING), by="me@x")
    assert notes.composed(b"\n".join(lines), mine, COMMIT) == mine + "\n"  # written anew


def test_hostile_text_is_shown_escaped_and_secrets_redacted() -> None:
    token = github_token("H0st")
    hostile = Finding(
        "P001",
        "[bold red]trailing[/]",
        Severity.ERROR,
        f"\x1b]0;pwned\x07 all clear \u202e {token}",
        "evil\x1b[2J.py",
        1,
        snippet=f"key = '{token}'",
        fingerprint="ab",
    )
    [shared] = notes.parse(
        a_document(a_report(hostile), by="\x1b[31mmallory").encode(), COMMIT
    ).reviews
    finding = shared.report.findings[0]
    assert token not in finding.message and token not in (finding.snippet or "")
    screen = io.StringIO()
    output.render(shared.report, Out(screen, width=200, terminal=True, color=False))
    shown = screen.getvalue()
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "[bold red]trailing[/]" in shown  # markup shown as text, never obeyed
    assert "shared by \\x1b[31mmallory" in shown and "evil\\x1b[2J.py" in shown


def test_every_text_of_a_note_a_person_reads_has_its_secrets_redacted() -> None:
    """An audit: a note's finding's name, whose standard decided it (its source) and who shared
    it were read as written, so a token a forger (or a landwatch that redacted less) put there
    was shown whole by `show`, its JSON and its SARIF; only the message, path and snippet were
    redacted again."""
    token = github_token("N0te")
    finding = Finding(
        "P001",
        f"name-{token}",
        Severity.WARNING,
        "m",
        "a.py",
        1,
        fingerprint="ab",
        basis=Basis(DECLARED, f"src-{token}"),
    )
    [shared] = notes.parse(a_document(a_report(finding), by=f"by-{token}").encode(), COMMIT).reviews
    assert token not in json.dumps(shared.report.as_dict()) and token not in repr(shared)
    screen = io.StringIO()
    output.render(shared.report, Out(screen, width=200, terminal=True, color=False))
    assert token not in screen.getvalue() and "P001 name…: m [declared: src-…]" in screen.getvalue()


def test_a_note_too_large_is_not_read(repo: Repo) -> None:
    oid = repo.head()
    big = repo.path.parent / "big-note"
    big.write_bytes(b"x" * (notes.MAX_NOTE_BYTES + 1))
    repo.git("notes", "--ref", "landwatch", "add", "-F", str(big), oid)
    from landwatch.review.change import open_repository

    with pytest.raises(ValueError, match="over 1,048,576"):
        notes.read_note(open_repository(repo.git_dir), oid)


def test_a_review_written_joins_the_others_and_replaces_its_own() -> None:
    mine_then = a_document(a_report(), by="me@x", at=1)
    theirs = a_document(a_report(TRAILING), by="them@x", at=2)
    held = "\n".join([mine_then, "garbage", theirs]).encode()
    mine_now = a_document(a_report(TRAILING), by="me@x", at=3)
    composed = notes.composed(held, mine_now, COMMIT)
    assert composed.splitlines() == sorted([theirs, mine_now])
    assert notes.composed(None, mine_now, COMMIT) == mine_now + "\n"


def test_a_note_written_stays_within_its_bytes_keeping_the_writer_s_and_the_newest() -> None:
    """No line cap bounds what is written now: the bytes do. The writer's document always, then
    the others newest first while the note stays readable (within MAX_NOTE_BYTES)."""
    wordy = [
        Finding("P001", "trailing-whitespace", Severity.WARNING, "w" * 4000, "a.py", n)
        for n in range(1, 48)
    ]
    theirs = [a_document(a_report(*wordy), by=f"t{at}@x", at=at) for at in range(5)]
    held = "\n".join(theirs).encode()
    assert len(held) <= notes.MAX_NOTE_BYTES and len(notes.parse(held, COMMIT).reviews) == 5
    mine = a_document(a_report(*wordy), by="me@x", at=0)
    note = notes.composed(held, mine, COMMIT)
    assert len(note.encode()) <= notes.MAX_NOTE_BYTES
    kept = note.splitlines()
    assert mine in kept and kept == sorted(kept)
    assert [text for text in theirs if text in kept] == theirs[1:]  # the oldest left out


def test_a_note_carries_the_allowances_of_its_findings_and_reads_them_warily() -> None:
    from landwatch.review.allowed import Allowance

    token = github_token("Q7w2")
    mine = Allowance("fix-later", "Ann <ann@team.example>", 1_000.0, TRAILING.fingerprint, None)
    sly = Allowance("used-in-tests", f"Eve {token}", 2_000.0, None, COMMIT)
    elsewhere = Allowance("false-positive", "Ann", 3_000.0, None, "d" * 40)  # another commit's
    report = a_report(TRAILING)
    report.allowed = [mine, sly, elsewhere]
    line = a_document(report)
    assert line.isascii() and '"allowed":' in line
    [read] = notes.parse(line.encode(), COMMIT).reviews
    assert read.report.allowed[0] == mine and read.report.allowed[1].reason == "used-in-tests"
    assert token not in read.report.allowed[1].who and len(read.report.allowed) == 2
    # Garbage among them is dropped; a list too long, or not a list, is no document of ours.
    data = json.loads(line)
    data["allowed"].append({"reason": "because", "who": 1})
    [read] = notes.parse(json.dumps(data).encode(), COMMIT).reviews
    assert len(read.report.allowed) == 2
    for wrong in ("fix-later", [mine.as_dict()] * (notes.MAX_ALLOWED + 1)):
        data["allowed"] = wrong
        assert notes.parse(json.dumps(data).encode(), COMMIT).ignored == {"malformed allowed": 1}
    # None allowed: the document is the one written before allowances were.
    assert '"allowed"' not in a_document(a_report(TRAILING))


def test_a_document_rewritten_to_carry_allowances_keeps_every_other_byte() -> None:
    from landwatch.review.allowed import Allowance

    plain = a_document(a_report(TRAILING))
    mine = Allowance("fix-later", "Ann", 1_000.0, TRAILING.fingerprint, None)
    carrying = notes.with_allowed(plain.encode(), [mine])
    report = a_report(TRAILING)
    report.allowed = [mine]
    assert carrying == a_document(report)
    assert notes.with_allowed(carrying.encode(), []) == plain


NOT_UTF8 = os.fsdecode(b"caf\xe9/\xff.txt")  # any bytes but NUL: how git holds a path


def test_a_path_not_utf8_is_written_readable_and_read_back_exactly() -> None:
    """A strict parser (Go's, jq) reads the note: valid UTF-8, the path readable in `path`, its
    bytes in `path_bytes`; landwatch reads the path back exact. Before: a lone surrogate."""
    line = a_document(a_report(dataclasses.replace(TRAILING, path=NOT_UTF8)))
    [finding] = json.loads(line)["findings"]
    assert finding["path"].encode("utf-8") == b"caf\\xe9/\\xff.txt"
    assert finding["path_bytes"] == "caf%E9/%FF.txt"
    [review] = notes.parse(line.encode(), COMMIT).reviews
    assert review.report.findings[0].path == NOT_UTF8


def test_an_older_note_s_surrogate_escaped_path_is_read_and_kept_exact() -> None:
    """An older landwatch wrote the path surrogate-escaped: still read, and written again with
    its bytes when the note carries an allowance; a lone surrogate no byte makes is no path."""
    from landwatch.review.allowed import Allowance

    older = a_document(a_report(TRAILING)).replace('"a.py"', json.dumps(NOT_UTF8))
    [review] = notes.parse(older.encode(), COMMIT).reviews
    assert review.report.findings[0].path == NOT_UTF8
    mine = Allowance("fix-later", "Ann", 1_000.0, TRAILING.fingerprint, None)
    again = notes.with_allowed(older.encode(), [mine])
    assert again.isascii() and "\\ud" not in again
    assert notes.parse(again.encode(), COMMIT).reviews[0].report.findings[0].path == NOT_UTF8
    for bad in ('"a.py\\ud800"', '"a.py","path_bytes":"caf\\u00e9"'):
        forged = a_document(a_report(TRAILING)).replace('"a.py"', bad)
        assert notes.parse(forged.encode(), COMMIT).said() == "1 line ignored (malformed path)"


def test_a_note_shared_says_the_reviewer_s_home_as_tilde(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit: the wall's note naming the reviewer's `~/.local/bin/bwrap` by its whole path
    went into the shared note, to every teammate."""
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    report = a_report()
    report.notes = [f"there is no wall here: {tmp_path}/me/.local/bin/bwrap cannot run here"]
    shared = json.loads(a_document(report))
    assert shared["notes"] == ["there is no wall here: ~/.local/bin/bwrap cannot run here"]
