"""Message rules on messages written as strings: what each reports, and what it lets through
beside it (a commit's message is these bytes exactly when committed with --cleanup=verbatim).
"""

from __future__ import annotations

import pytest

from landwatch.review.findings import Finding, Severity
from landwatch.review.message import Message
from landwatch.review.rules.base import MessageRule
from landwatch.review.rules.message import (
    RULES,
    BlankLineAfterSubject,
    BodyLineLength,
    ConventionalCommits,
    SignedOffBy,
    SubjectLength,
    WorkInProgress,
)
from support.timing import cpu_seconds

LONG_URL = "https://example.com/" + "a" * 120
AUTHOR = "T <t@example.com>"


def message(text: str, author: str = AUTHOR) -> Message:
    """The message `text` by `author` (`Name <email>`), as a commit holding exactly it."""
    name, _, email = author.removesuffix(">").partition(" <")
    return Message(text.encode(), name, email)


def check(rule: MessageRule, text: str, author: str = AUTHOR) -> list[Finding]:
    return list(rule.check_message(message(text, author)))


def test_every_rule_is_registered_with_docs_and_an_example() -> None:
    assert [rule.id for rule in RULES] == ["M001", "M002", "M003", "M004", "M005", "M006"]
    for rule in RULES:
        assert rule.doc() and rule.example


def test_subject_length_counts_characters() -> None:
    rule = SubjectLength()
    assert check(rule, "x" * 72) == []
    (finding,) = check(rule, "x" * 73 + "\n\nbody")
    assert (finding.rule, finding.line, finding.severity) == ("M001", 1, Severity.WARNING)
    assert "73 characters (limit 72)" in finding.message
    # 72 characters, 144 bytes.
    assert check(rule, "é" * 72) == []


def test_subject_length_option() -> None:
    assert check(SubjectLength(max_length=50), "x" * 50) == []
    assert len(check(SubjectLength(max_length=50), "x" * 51)) == 1


def test_blank_line_after_subject() -> None:
    rule = BlankLineAfterSubject()
    (finding,) = check(rule, "Fix the parser\nIt dropped the last token.\n")
    assert (finding.line, finding.snippet) == (2, "It dropped the last token.")
    assert check(rule, "Fix the parser\n\nIt dropped the last token.\n") == []
    assert check(rule, "Fix the parser\n") == []
    assert check(rule, "Fix the parser\n  \nIt dropped the last token.\n") == []


def test_body_line_length_reports_prose_with_its_line_number() -> None:
    rule = BodyLineLength()
    text = "Subject\n\nShort line.\n" + "w" * 101 + "\n" + "v" * 100 + "\n"
    (finding,) = check(rule, text)
    assert (finding.line, finding.severity) == (4, Severity.INFO)
    assert "101 characters (limit 100)" in finding.message


def test_body_line_length_lets_urls_through() -> None:
    rule = BodyLineLength()
    for line in (
        LONG_URL,
        f"<{LONG_URL}>",
        f"[1]: {LONG_URL}",
        f"- {LONG_URL}",
        f"The whole discussion is at {LONG_URL} for anyone curious",
    ):
        assert check(rule, f"Subject\n\n{line}\n\nMore prose.\n") == [], line
    # A short URL does not excuse the prose around it.
    prose = "Read " + "the long explanation " * 5 + "at https://example.com/x before changing it."
    assert len(check(rule, f"Subject\n\n{prose}\n")) == 1


def test_body_line_length_lets_trailers_through_only_in_the_last_paragraph() -> None:
    rule = BodyLineLength()
    trailer = "Co-authored-by: " + "Somebody With A Very Long Name " * 3 + "<someone@example.com>"
    assert check(rule, f"Subject\n\nWhy it changed.\n\n{trailer}\nReviewed-by: R\n") == []
    (finding,) = check(rule, f"Subject\n\n{trailer}\n\nWhy it changed.\n")
    assert finding.line == 3


def test_body_line_length_lets_quoted_code_through() -> None:
    rule = BodyLineLength()
    log = "Traceback: " + "frame " * 30
    assert check(rule, f"Subject\n\nIt failed with:\n\n    {log}\n\tx{log}\n") == []
    assert len(check(rule, f"Subject\n\nIt failed with:\n\n  {log}\n")) == 1


def test_body_line_length_option() -> None:
    assert len(check(BodyLineLength(max_length=72), "Subject\n\n" + "w" * 73)) == 1


@pytest.mark.parametrize(
    "subject",
    [
        "fixup! Parse the config once",
        "squash! Parse the config once",
        "amend! Parse the config once",
        "WIP: parse the config once",
        "[wip] parse the config once",
        "Parse the config once (Wip)",
        "Parse the config once, still WIP.",
    ],
)
def test_work_in_progress_reports(subject: str) -> None:
    (finding,) = check(WorkInProgress(), subject)
    assert (finding.rule, finding.line) == ("M004", 1)


@pytest.mark.parametrize(
    "subject",
    [
        "Wipe the cache on logout",
        "Fix swipe gestures",
        "Merge wip-branch into main",
        "Move docs/wip/ notes into the guide",
        "Rename wip.txt to notes.txt",
        "Document the fixup! prefix",
    ],
)
def test_work_in_progress_lets_through(subject: str) -> None:
    assert check(WorkInProgress(), subject) == []


def test_only_work_in_progress_runs_on_fixups() -> None:
    assert WorkInProgress.runs_on_fixups is True
    others = [rule for rule in RULES if rule is not WorkInProgress]
    assert not any(getattr(rule, "runs_on_fixups", False) for rule in others)


@pytest.mark.parametrize(
    "subject",
    ["feat: add retries", "fix(parser)!: drop the last token", "Docs: explain retries"],
)
def test_conventional_commits_accepts(subject: str) -> None:
    assert ConventionalCommits.severity is Severity.OFF
    assert check(ConventionalCommits(), subject) == []


@pytest.mark.parametrize(
    ("subject", "problem"),
    [
        ("Add retries", "not a conventional commit"),
        ("feature: add retries", "unknown conventional commit type 'feature'"),
        ("feat:   ", "no description"),
        ("feat:add retries", "space after the colon"),
        ("feat(): add retries", "empty conventional commit scope"),
    ],
)
def test_conventional_commits_reports(subject: str, problem: str) -> None:
    (finding,) = check(ConventionalCommits(Severity.WARNING), subject)
    assert problem in finding.message
    assert finding.severity is Severity.WARNING


@pytest.mark.parametrize(
    "subject",
    [
        "Merge pull request #12 from owner/branch",
        "Merge branch 'main' into feature",
        "Merge commit from fork",  # GitHub's, for a security advisory's merge
        "Merged in feature/login (pull request #3)",
        'Revert "feat: add retries"',
        "v5.7.2",
        "Bumped v6.0.0-alpha.1",
        "chore(release): 1.2.3",
        "Release 2.1.0",
    ],
)
def test_conventional_commits_leave_what_tools_write_alone(subject: str) -> None:
    assert check(ConventionalCommits(Severity.WARNING), subject) == []


@pytest.mark.parametrize(
    "subject", ["Merge the parser work", "Version bump to 1.2.3", "Fix port parsing (#6603)"]
)
def test_conventional_commits_still_judge_what_people_write(subject: str) -> None:
    assert len(check(ConventionalCommits(Severity.WARNING), subject)) == 1


def test_conventional_commits_types_option() -> None:
    rule = ConventionalCommits(types=["feature", "bugfix"])
    assert check(rule, "feature: add retries") == []
    assert len(check(rule, "feat: add retries")) == 1


def test_signed_off_by() -> None:
    rule = SignedOffBy()
    assert SignedOffBy.severity is Severity.OFF
    assert check(rule, "Fix\n\nWhy.\n\nSigned-off-by: T <t@example.com>\n") == []
    # Case of the key and of the address do not matter; other sign-offs may come first.
    signed = "Signed-off-by: R <r@example.com>\nsigned-off-by: T <T@Example.COM>\n"
    assert check(rule, f"Fix\n\nWhy.\n\n{signed}") == []
    (missing,) = check(rule, "Fix\n\nWhy.\n")
    assert missing.message == "no Signed-off-by trailer"


def test_signed_off_by_someone_else() -> None:
    text = "Fix\n\nWhy.\n\nAcked-by: A <a@example.com>\nSigned-off-by: O <o@example.com>\n"
    (finding,) = check(SignedOffBy(), text)
    assert finding.line == 6
    assert "O <o@example.com>" in finding.message
    assert "<t@example.com>" in finding.message
    assert check(SignedOffBy(), text, author="O <o@example.com>") == []


def test_signed_off_by_is_read_from_the_last_paragraph_only() -> None:
    assert len(check(SignedOffBy(), "Signed-off-by: T <t@example.com>\n")) == 1
    text = "Fix\n\nSigned-off-by: T <t@example.com>\n\nA closing thought.\n"
    assert len(check(SignedOffBy(), text)) == 1


# Messages of a last paragraph of many lines: long ones, trailers, neither. A hostile commit
# pulled from a teammate's remote is reviewed too (told at error only, but read whole).
LONG_MESSAGES = {
    "long body lines": "x" * 101,
    "trailers": "Signed-off-by: A <a@example.com>",
    "short lines": "a line",
}


@pytest.mark.parametrize("line", list(LONG_MESSAGES.values()), ids=list(LONG_MESSAGES))
def test_every_message_rule_reads_a_message_in_time_linear_in_it(line: str) -> None:
    """Ten times the lines may take about ten times as long, never a hundred: each line of the
    last paragraph asked for as a trailer split the whole message again (10,000 lines: 3 s)."""

    def read(lines: int) -> float:
        text = "Subject\n\n" + f"{line}\n" * lines

        def review() -> None:
            written = message(text)  # afresh each time: a message keeps what it has read
            _ = written.trailers  # what suppressions read of every message
            for rule in RULES:
                list(rule().check_message(written))

        return cpu_seconds(review)

    small, large = read(1_000), read(10_000)
    assert large / max(small, 1e-4) < 30, (small, large)
