"""Where a repository's allowances are kept: a private file per finding or commit allowed, read
back whole; allowing one thing again replaces it; what cannot be read is left out and said in one
line, never a crash, and nothing is read or written through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from landwatch import allowances, layout
from landwatch.review.allowed import Allowance
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report

ONE, OTHER = "1" * 40, "2" * 40
FINGERPRINT = "0123456789abcdef0123"


def an_allowance(
    reason: str = "fix-later", *, at: float = 1_700_000_000.0, **what: str
) -> Allowance:
    return Allowance(
        reason, "Ann <ann@example.com>", at, what.get("fingerprint"), what.get("commit")
    )


def test_recorded_allowances_are_kept_private_and_read_back_oldest_first(git_dir: Path) -> None:
    newer = an_allowance("used-in-tests", at=2_000.0, fingerprint=FINGERPRINT)
    older = an_allowance("false-positive", at=1_000.0, commit=ONE)
    allowances.record(git_dir, newer)
    allowances.record(git_dir, older)
    assert allowances.recorded(git_dir) == [older, newer]
    place = layout.ALLOWED.path(git_dir)
    assert stat.S_IMODE(place.stat().st_mode) == 0o700
    assert {stat.S_IMODE(path.stat().st_mode) for path in place.iterdir()} == {0o600}
    # The same finding allowed again: the new decision replaces the old.
    again = an_allowance("fix-later", at=3_000.0, fingerprint=FINGERPRINT)
    allowances.record(git_dir, again)
    assert allowances.recorded(git_dir) == [older, again]
    assert allowances.read(git_dir) == ([older, again], None)


def test_a_corrupt_file_is_left_out_and_said_in_one_line(git_dir: Path) -> None:
    kept = an_allowance(commit=ONE)
    allowances.record(git_dir, kept)
    place = layout.ALLOWED.path(git_dir)
    (place / f"commit-{OTHER}.json").write_text('{"reason": "fix-later", "who":')
    (place / "fingerprint-0000.json").write_text("\x00\xff")
    # Well formed, but not what its name says: no allowance of that file's.
    (place / f"commit-{OTHER}x.json").write_text((place / f"commit-{ONE}.json").read_text())
    found, said = allowances.read(git_dir)
    assert found == [kept] and allowances.recorded(git_dir) == [kept]
    assert said is not None and "\n" not in said
    assert said.startswith("3 files in ") and "cannot be read as allowances (corrupt)" in said


def test_a_link_in_place_of_the_store_is_not_followed(git_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"commit-{ONE}.json").write_text(
        '{"reason": "fix-later", "who": "Mallory", "when": 1, "fingerprint": null, '
        f'"commit": "{ONE}"}}'
    )
    layout.repository_dir(git_dir).mkdir(exist_ok=True)
    os.symlink(elsewhere, layout.ALLOWED.path(git_dir))
    found, said = allowances.read(git_dir)
    assert found == [] and said is not None and "cannot be read" in said
    assert allowances.covering(git_dir, Report(ONE, None, "commit", "x")) == []


def test_covering_joins_what_is_recorded_here_and_what_a_report_carries(git_dir: Path) -> None:
    key = Finding(
        "S001", "private-key", Severity.ERROR, "key", "id_rsa", 1, fingerprint=FINGERPRINT
    )
    here = an_allowance(fingerprint=FINGERPRINT)
    allowances.record(git_dir, here)
    allowances.record(git_dir, an_allowance(commit=OTHER))  # another commit's: covers nothing
    theirs = Allowance("used-in-tests", "Bob <bob@example.com>", 5.0, None, ONE)
    report = Report(ONE, None, "commit", ONE[:12], findings=[key], allowed=[theirs, here])
    assert allowances.covering(git_dir, report) == [here, theirs]
    assert allowances.covering(git_dir, Report(ONE, None, "commit", "x")) == []
