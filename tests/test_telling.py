"""What the one line is to tell of a kept review (landwatch.telling): what its reader saw is not
told again, the worst of the rest is named, and a finding carried from a replaced commit says so."""

from __future__ import annotations

from pathlib import Path

from landwatch import line_markers
from landwatch.review.findings import CUT, Finding, Severity, fingerprint
from landwatch.review.report import Report
from landwatch.telling import not_in, not_seen, told_of, worth_telling
from support.queue import new_repository, oid


def finding(rule: str, severity: Severity, line: int) -> Finding:
    found = Finding(rule, "a-rule", severity, "something to fix", "a.py", line, None, "x  ")
    found.fingerprint = fingerprint(rule, "a.py", f"x = {line}")
    return found


def kept(number: int, *findings: Finding) -> Report:
    return Report(oid(number), None, "commit", oid(number)[:12], findings=list(findings))


WARNING = finding("P001", Severity.WARNING, 1)
ERROR = finding("P004", Severity.ERROR, 2)
INFO = finding("P009", Severity.INFO, 3)


def test_what_a_told_review_held_is_seen_and_one_still_unread_told_nothing(
    tmp_path: Path,
) -> None:
    git_dir = new_repository(tmp_path / "repo")
    told, unread = kept(1, WARNING), kept(2, ERROR)
    line_markers.mark_unread(git_dir, unread.commit, None)
    assert not_seen(git_dir, [WARNING, ERROR], [told, unread]) == [ERROR]
    # Set aside for the review that replaced it: nothing of it was told.
    assert not_seen(git_dir, [WARNING, ERROR], [told], aside=[told.commit]) == [WARNING, ERROR]


def test_a_finding_seen_only_less_severe_before_is_told(tmp_path: Path) -> None:
    """The rewrite audit's: a key copied in a later commit was info there ("copied, not new");
    a rebase removing the first copy made it an error in the replayed commit, which was never
    told, its fingerprint counted as seen. A finding is seen only as severe as it was."""
    git_dir = new_repository(tmp_path / "repo")
    copied = finding("S002", Severity.INFO, 5)
    now_new = finding("S002", Severity.ERROR, 5)
    assert not_seen(git_dir, [now_new], [kept(1, copied)]) == [now_new]
    assert not_seen(git_dir, [copied], [kept(1, now_new)]) == []
    assert not_seen(git_dir, [now_new], [kept(1, copied), kept(2, now_new)]) == []


def test_what_another_review_holds_at_least_as_severe_is_not_told_whatever_its_line(
    tmp_path: Path,
) -> None:
    """A landed range's line (not_in): what a review of a commit it brings holds is that
    commit's line's to tell, told or unread; only a finding more severe there is the range's."""
    git_dir = new_repository(tmp_path / "repo")
    unread, milder = kept(1, WARNING), kept(2, finding("P004", Severity.WARNING, 2))
    line_markers.mark_unread(git_dir, unread.commit, None)
    assert not_in([WARNING, ERROR, INFO], [unread, milder]) == [ERROR, INFO]
    assert not_in([WARNING], []) == [WARNING]


def test_another_secret_on_a_line_told_before_is_not_seen(tmp_path: Path) -> None:
    """An audit: a secret's fingerprint is its redacted line's, alike for any token written
    there; a teammate's new key on the line of a key told and read (merged in, or a part of a
    split) went untold. The secret found (secret_digest) tells the two apart."""
    git_dir = new_repository(tmp_path / "repo")
    old, new = finding("S002", Severity.ERROR, 2), finding("S002", Severity.ERROR, 2)
    old.secret_digest, new.secret_digest = "a" * 16, "b" * 16
    assert not_in([new], [kept(1, old)]) == [new]
    assert not_seen(git_dir, [new], [kept(1, old)]) == [new]
    assert not_in([old], [kept(1, old)]) == []


def test_worth_telling_is_at_the_level_asked_and_a_cut_review_always() -> None:
    cut = finding(CUT, Severity.INFO, 4)
    review = kept(1, WARNING, ERROR, INFO, cut)
    assert worth_telling(review, Severity.WARNING) == [WARNING, ERROR, cut]
    assert worth_telling(review, Severity.ERROR) == [ERROR, cut]


def test_the_line_names_the_worst_counts_the_rest_and_where_it_was_carried_from() -> None:
    review = kept(2, WARNING, ERROR, INFO)
    assert told_of(review, []) is None
    said = told_of(review, [WARNING, ERROR], [kept(1, ERROR)])
    assert said is not None
    assert (said.rule, said.line, said.severity) == ("P004", 2, int(Severity.ERROR))
    assert said.rest == "1 warning, 1 info" and said.replaces == oid(1)
    alone = told_of(review, [WARNING])
    assert alone is not None and alone.rule == "P001" and alone.replaces == ""
