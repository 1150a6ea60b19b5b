"""The one line of unread reviews and its markers, on strings: what a marker holds and reads back
as, garbage read as nothing, the worst named and the rest counted, everything escaped."""

from __future__ import annotations

from landwatch.one_line import SHOW_UNREAD, VERSION, Told, words
from landwatch.review.findings import Severity
from landwatch.text import cells, fit

OID = "3f786850e387550fdab836ed7e6dc881de23001b"
OTHER = "9fceb02d0ae598e95dc970b74767f19372d61af8"


def line(*told: Told) -> str:
    return "".join(text for text, _, _ in words(told))


def test_a_marker_reads_back_as_written_whatever_its_fields_hold() -> None:
    told = Told(
        OID, Severity.ERROR, "S002", "AWS access key ID\t\n", "b\tc.py", 3, "2 warnings", OTHER
    )
    text = told.text()
    assert text.startswith(VERSION) and text.count(b"\n") == 2 and text.count(b"\t") == 6
    back = Told.parse(OID, text)
    assert back is not None
    fields = (back.severity, back.rule, back.message, back.path, back.line, back.rest)
    assert fields == (3, "S002", "AWS access key ID\\x09\\x0a", "b\\x09c.py", 3, "2 warnings")
    assert back.replaces == OTHER


def test_a_marker_written_before_markers_named_what_they_replaced_still_reads() -> None:
    back = Told.parse(OID, VERSION + b"2\tP001\tm\tp\t3\t\n")
    assert back is not None and (back.rule, back.line, back.replaces) == ("P001", 3, "")
    # What stands where the replaced commit goes is one, or nothing.
    odd = Told.parse(OID, VERSION + b"2\tP001\tm\tp\t3\t\t\x1b[31mred\n")
    assert odd is not None and odd.replaces == ""


def test_what_is_not_a_marker_of_this_format_reads_as_nothing() -> None:
    for garbage in (
        b"",
        b"landwatch-unread 2\n3\tS002\tm\tp\t3\t\n",
        VERSION + b"9\tS002\tm\tp\t3\t\n",
        VERSION + b"3\t\tm\tp\t3\t\n",
        VERSION + b"3\tS002\tm\tp\t3\n",
        VERSION + b"3\tS002\tm\tp\t3\t\t\textra\n",
    ):
        assert Told.parse(OID, garbage) is None, garbage
    odd_line = Told.parse(OID, VERSION + b"2\tP001\tm\tp\t99999999999\t\n")
    assert odd_line is not None and odd_line.line is None


def test_the_line_names_the_worst_then_the_rest_then_the_command() -> None:
    warned = Told(OTHER, Severity.WARNING, "P001", "trailing whitespace", "a.txt", 1)
    key = Told(OID, Severity.ERROR, "S002", "AWS access key ID", "src/b.py", 3, "2 warnings")
    assert line(warned, key) == (
        "landwatch: S002 AWS access key ID in src/b.py:3, +2 warnings · landwatch show 3f78685"
        f" (1 more unread: {SHOW_UNREAD})"
    )
    # Of equals, the newest (the first given).
    assert line(warned, Told(OID, Severity.WARNING, "P002", "m", "b")).startswith(
        "landwatch: P001 trailing whitespace in a.txt:1 · landwatch show 9fceb02 ("
    )


def test_a_finding_carried_over_a_rewrite_names_the_commit_it_replaced() -> None:
    carried = Told(OID, Severity.WARNING, "P001", "trailing whitespace", "a.txt", 1, "", OTHER)
    assert line(carried) == (
        "landwatch: P001 trailing whitespace in a.txt:1 · landwatch show 3f78685 (replaces 9fceb02)"
    )
    narrow = "".join(text for text, _ in fit(words([carried]), 60))
    assert "replaces" not in narrow and narrow.endswith("landwatch show 3f78685")


def test_each_place_whole_until_the_line_is_fitted() -> None:
    message = Told(OID, Severity.WARNING, "M001", "x" * 200, None, 1)
    assert (
        line(message)
        == f"landwatch: M001 {'x' * 200} in the commit message · landwatch show 3f78685"
    )
    change = Told(OID, Severity.WARNING, "C003", "a lockfile deleted")
    assert line(change) == "landwatch: C003 a lockfile deleted · landwatch show 3f78685"
    far = Told(OID, Severity.WARNING, "P001", "m", "deep/" * 20 + "a.txt", 2)
    assert line(far) == f"landwatch: P001 m in {'deep/' * 20}a.txt:2 · landwatch show 3f78685"


def test_fitted_the_path_goes_first_then_the_message_then_the_rest() -> None:
    key = Told(
        OID,
        Severity.ERROR,
        "S002",
        "AWS access key ID in a long message",
        "a/b/c/d.py",
        3,
        "2 warnings",
    )
    told = [key, Told(OTHER, Severity.WARNING, "P001", "m", "x")]
    more = " (1 more unread: landwatch show --unread)"
    show = " · landwatch show 3f78685"
    expected = {
        200: line(*told),
        130: f"landwatch: S002 AWS access key ID in a… in …/d.py:3, +2 warnings{show}{more}",
        120: f"landwatch: S002 AWS access key ID in a… in …/d.py:3{show}{more}",
        # Once what else is unread goes, the message and the path are whole again.
        110: f"landwatch: S002 AWS access key ID in a long message in a/b/c/d.py:3{show}",
        80: "landwatch: S002 AWS access key ID in a… in …/d.py:3 · landwatch show 3f78685",
        60: "landwatch: S002 AWS… in …/d.py:3 · landwatch show 3f78685",
        50: "landwatch: S002 … in …y:3 · landwatch show 3f78685",
    }
    for width, shown in expected.items():
        assert "".join(text for text, _ in fit(words(told), width)) == shown, width
        assert cells(shown) <= width


def test_a_marker_planted_raw_is_escaped_on_the_line() -> None:
    planted = VERSION + "3\tS\x1b[2J\tm\u202e\tp\x07\t1\t1 \x1b[31mwarning\n".encode()
    told = Told.parse(OID, planted)
    assert told is not None
    shown = line(told)
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "S\\x1b[2J m\\u202e in p\\x07:1, +1 \\x1b[31mwarning" in shown
