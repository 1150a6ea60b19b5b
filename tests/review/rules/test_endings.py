"""How a file ends (review.rules.endings): a missing final newline or blank lines at the end,
reported only when the change brought them."""

from __future__ import annotations

from support.changes import Changes
from support.review import found, reviewed


def test_a_final_newline_missing_before_the_change_is_not_reported_again(changes: Changes) -> None:
    branch = changes.branch()
    first = branch.land({"a.txt": "one\ntwo"})
    assert found(reviewed(first), "P002") == [("P002", "a.txt", 2)]
    again = branch.land({"a.txt": "one\nthree"})  # its last line changed, still no newline
    assert found(reviewed(again), "P002") == []
    mended = branch.land({"a.txt": "one\nthree\n"})
    lost = branch.land({"a.txt": "one\nfour"})  # had one, lost it: the change did it
    assert found(reviewed(mended), "P002") == []
    assert found(reviewed(lost), "P002") == [("P002", "a.txt", 2)]


def test_blank_lines_added_at_the_end_are_reported(changes: Changes) -> None:
    branch = changes.branch()
    change = branch.land(
        {"setup.py": "x = 1\n\n\n", "one.txt": "x\n \n", "fine.txt": "x\n", "mid.txt": "a\n\nb\n"}
    )
    assert found(reviewed(change), "P013") == [("P013", "one.txt", 2), ("P013", "setup.py", 2)]
    finding = next(f for f in reviewed(change).findings if f.rule == "P013" and f.line == 2)
    assert finding.message in (
        "a blank line at the end of the file",
        "2 blank lines at the end of the file",
    )


def test_a_last_line_of_spaces_without_a_newline_is_told_once_per_rule_not_three_times(
    changes: Changes,
) -> None:
    """httpx's nav.html ended `</nav>\n ` (a space, no newline): trailing whitespace and no final
    newline say it; a blank line at the end would be a third finding on the same byte."""
    change = changes.change({"nav.html": "<nav>\n</nav>\n ", "two.txt": "x\n\n "})
    assert found(reviewed(change), "P013") == [("P013", "two.txt", 2)]
    assert ("P001", "nav.html", 3) in found(reviewed(change), "P001")
    assert ("P002", "nav.html", 3) in found(reviewed(change), "P002")


def test_blank_lines_that_were_there_before_are_not_reported(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({"notes.txt": "a\n\n"})
    change = branch.land({"notes.txt": "b\n\n"})  # the same one blank line at the end
    assert found(reviewed(change), "P013") == []
    worse = branch.land({"notes.txt": "b\n\n\n"})  # one more: the change made it worse
    assert found(reviewed(worse), "P013") == [("P013", "notes.txt", 2)]


def test_binary_files_are_not_read_for_blank_lines(changes: Changes) -> None:
    change = changes.change({"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\n\n"})
    assert found(reviewed(change), "P013") == []


def test_deleting_the_lines_after_a_blank_one_leaves_it_at_the_end(changes: Changes) -> None:
    """rust-lang/log's 90edfc3 deleted a module's last three lines and left the blank line
    before them ending the file: no blank line was added, yet the change made it so."""
    branch = changes.branch()
    branch.land({"lib.rs": "mod a;\n\nmod b;\nmod c;\n"})
    change = branch.land({"lib.rs": "mod a;\n\n"})
    assert found(reviewed(change), "P013") == [("P013", "lib.rs", 2)]
    kept = branch.land({"lib.rs": "mod z;\n\n"})  # still one blank line: nothing new
    assert found(reviewed(kept), "P013") == []
