"""A commit message as the message rules read it (review.message): its subject and lines from any
bytes, the trailers of its last paragraph as git interpret-trailers reads them (none from the
paragraph holding the subject), and the autosquash prefix."""

from __future__ import annotations

import pytest

from landwatch.review.message import Message


def message(text: str | bytes) -> Message:
    return Message(text.encode() if isinstance(text, str) else text, "Ada", "ada@example.org")


def test_subject_and_lines_of_any_bytes() -> None:
    read = message(b"Caf\xe9 prices\n\nsecond paragraph\n\n\n")
    assert read.subject == "Caf\ufffd prices"
    assert read.lines == ["Caf\ufffd prices", "", "second paragraph"]
    assert message("").subject == "" and message("").lines == [""]


def test_the_trailers_are_the_last_paragraph_when_every_line_is_one() -> None:
    read = message(
        "Fix the total\n\nBody: not a trailer, not the last paragraph.\n\n"
        "Signed-off-by: Ada <ada@example.org>\nCo-authored-by :  Bob <bob@example.org>\n\n"
    )
    assert read.trailers == [
        ("Signed-off-by", "Ada <ada@example.org>"),
        ("Co-authored-by", "Bob <bob@example.org>"),
    ]
    assert read.trailer(2) is None  # in the body, not the last paragraph
    assert read.trailer(4) == ("Signed-off-by", "Ada <ada@example.org>")


def test_no_trailers_where_git_reads_none() -> None:
    assert message("Signed-off-by: Ada <ada@example.org>\n").trailers == []  # the subject's
    mixed = message("Subject\n\nSigned-off-by: Ada <a@b>\nand a line of prose\n")
    assert mixed.trailers == []  # one line of the paragraph is no trailer: none are
    assert mixed.trailer(2) == ("Signed-off-by", "Ada <a@b>")  # that line alone still is one


@pytest.mark.parametrize(
    ("subject", "prefix"),
    [
        ("fixup! Sum the prices", "fixup! "),
        ("squash! Sum the prices", "squash! "),
        ("amend! Sum the prices", "amend! "),
        ("fixup!Sum the prices", None),
        ("Fixup! Sum the prices", None),
        ("Sum the prices, fixup! later", None),
    ],
)
def test_the_autosquash_prefix(subject: str, prefix: str | None) -> None:
    assert message(subject + "\n").autosquash == prefix
