"""Making repository data printable: controls, Trojan Source characters and bytes that are not
UTF-8 are shown as escapes; ordinary text, accents and emoji are left alone."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from landwatch.text import (
    DROP,
    KEEP,
    MESSAGE,
    PATH,
    cells,
    cut,
    duration,
    fit,
    home_as_tilde,
    listed,
    safe,
    safe_lines,
    short_path,
    well_formed,
)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain café 日本 ✓", "plain café 日本 ✓"),
        ("bell\x07esc\x1b[31m", "bell\\x07esc\\x1b[31m"),
        ("del\x7f c1\x9b", "del\\x7f c1\\x9b"),
        ("abc\u202edcba\u2066\u2069", "abc\\u202edcba\\u2066\\u2069"),
        ("lrm\u200e rlm\u200f alm\u061c", "lrm\\u200e rlm\\u200f alm\\u061c"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("config\u200b.py \u2060\ufeff", "config\\u200b.py \\u2060\\ufeff"),
        ("tag\U000e0041\U000e007f", "tag\\U000e0041\\U000e007f"),
        # An audit: more that take no room, and looked like nothing in a path.
        ("config\u206a.py\U000e0100", "config\\u206a.py\\U000e0100"),
        ("a\u034fb\u180bc\ufe00d\u3164e\u00adf", "a\\u034fb\\u180bc\\ufe00d\\u3164e\\xadf"),
        ("\ufff9\U0001d173\u2064", "\\ufff9\\U0001d173\\u2064"),
        ("heart \u2764\ufe0f", "heart \u2764\ufe0f"),  # an emoji's own selector kept
        (
            "a family \U0001f468\u200d\U0001f469 سلام\u200c",
            "a family \U0001f468\u200d\U0001f469 سلام\u200c",
        ),
        # An audit: the joiners and the emoji's selector between ASCII letters hid as well,
        # and the code points kept invisible for the future (unassigned, so no Cf yet).
        ("config\u200d.py c\u200cd e\ufe0ff", "config\\u200d.py c\\u200cd e\\ufe0ff"),
        ("a\u2065b\ufff0c\U000e0080d\U000e01f0e", "a\\u2065b\\ufff0c\\U000e0080d\\U000e01f0e"),
        # A joiner after what is shown as an escape stands between ASCII characters.
        ("\u202e\u200dx caf\udce9\u200d", "\\u202e\\u200dx caf\\xe9\\u200d"),
        ("caf\udce9.txt", "caf\\xe9.txt"),  # a byte that was not UTF-8, as os.fsdecode keeps it
        ("lone\ud800", "lone\\ud800"),
    ],
)
def test_safe(raw: str, shown: str) -> None:
    assert safe(raw) == shown


def test_well_formed_spells_only_what_utf8_cannot_hold_as_safe_does() -> None:
    """JSON for other programs keeps its text (controls are JSON's to escape), but a byte that
    was not UTF-8 and any other lone surrogate, which strict parsers refuse, read as shown."""
    assert well_formed("tab\t\x1b caf\udce9 \ud800 é") == "tab\t\x1b caf\\xe9 \\ud800 é"
    assert well_formed("plain café") == "plain café"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\tx = 1", "        x = 1"),  # a tab at the start: to column 8
        ("a\tb", "a       b"),  # to the next stop, not eight spaces
        ("1234567\tb", "1234567 b"),  # one column before a stop: one space
        ("12345678\tb", "12345678        b"),  # on a stop: the whole next one
        ("\t\tend\t", " " * 16 + "end     "),  # a trailing tab keeps its width
        ("esc\x1b\tb", "esc\\x1b b"),  # stops count what is shown: the escape's 4 columns
        ("bell\x07\r\x0b\x0c", "bell\\x07\\x0d\\x0b\\x0c"),  # other controls: escapes
        ("rlo\u202e\tx", "rlo\\u202e       x"),
    ],
)
def test_a_line_shows_tabs_as_spaces_to_the_next_stop(raw: str, shown: str) -> None:
    assert safe(raw, tabs=True) == shown


def test_a_tab_is_still_an_escape_where_text_is_no_line() -> None:
    # A path, a subject, a message: a tab there is a surprise worth showing.
    assert safe("a\tb") == "a\\x09b"


def test_lines_are_each_made_safe_and_kept_lines() -> None:
    """An error the front door says over two lines, naming a path that is not UTF-8."""
    said = "caf\udce9/none is not a directory\n  \x1b[31mthere"
    assert safe_lines(said) == "caf\\xe9/none is not a directory\n  \\x1b[31mthere"


def test_duration() -> None:
    assert [duration(s) for s in (5, 150, 7200, 7260, 3 * 86400)] == [
        "5 s",
        "2 min",
        "2 h",
        "2 h 1 min",
        "3 days",
    ]


def test_a_short_path_shortens_only_a_real_home() -> None:
    assert short_path("/home/me/work/x/.git", 80, home="/home/me/") == "~/work/x/.git"
    assert short_path("/work/x/.git", 80, home="/") == "/work/x/.git"  # HOME=/ in a container
    assert short_path("/home/meg/x", 80, home="/home/me") == "/home/meg/x"


def test_a_short_path_keeps_the_repository_s_name_and_leaves_out_its_middle() -> None:
    long = "/srv/work/clients/acme-corporation/web-shop-frontend/.git"
    assert short_path(long, 40) == "/srv/work/…/web-shop-frontend/.git"
    assert short_path(long, 30) == "/srv/…/web-shop-frontend/.git"
    assert short_path(long, 25) == "/…/web-shop-frontend/.git"
    # A name too long alone is shortened in its own middle, never to `…/.git`.
    assert short_path(long, 20) == "…/web-sh…ontend/.git"
    worktree = "/srv/r/.git/worktrees/topic-branch"
    assert short_path(worktree, 33) == "/…/r/.git/worktrees/topic-branch"
    assert short_path("/srv/git/mirrors/upstream-project.git", 25) == "/…/upstream-project.git"
    assert all(len(short_path(long, width)) <= width for width in range(10, len(long) + 1))


def fitted(pieces: tuple[tuple[str, str, str], ...], width: int) -> str:
    return "".join(text for text, _ in fit(pieces, width))


def line_of(message: str, path: str) -> tuple[tuple[str, str, str], ...]:
    return (
        ("landwatch: ", "bold", KEEP),
        ("S002 ", "red", KEEP),
        (message, "red", MESSAGE),
        (" in ", "", KEEP),
        (path, "", PATH),
        (":3", "", KEEP),
        (", +2 warnings", "", f"{DROP}rest"),
        (" · ", "", KEEP),
        ("landwatch show 3f78685", "bold cyan", KEEP),
    )


PARTIAL_ESCAPE = r"\\(x[0-9a-f]?|u[0-9a-f]{0,3})?$"  # `\`, `\x1`, `\u20`: an escape cut


def test_display_columns_are_counted_as_rich_counts_them() -> None:
    for text in (
        "plain",
        "鍵が見つかりました",
        "\uff46\uff55\uff4c\uff4c",  # full-width
        "e\u0301te",
        "a\u200bb",
        "😀 x",
        "\\x1b[2J",
    ):
        assert cells(text) == cell_len(text), text


@pytest.mark.parametrize(
    ("message", "path"),
    [
        ("AWS access key ID found in a very long message about it", "src/pkg/mod.py"),
        ("x" * 300, "deep/" * 60 + "name.py"),
        (
            "鍵が見つかりました 秘密の値がコミットに含まれています",
            "src/日本語/パッケージ/モジュール.py",
        ),
        ("an escape \\x1b[2J\\x1b[2J\\u202e in a message", "p\\x07q/r\\x1bs.py"),
        ("combining e\u0301e\u0301e\u0301e\u0301 marks", "a/" + "e\u0301" * 30),
    ],
)
def test_a_line_fits_every_width_keeping_the_rule_and_the_command_whole(
    message: str, path: str
) -> None:
    pieces = line_of(message, path)
    floor = cells("landwatch: S002 … in …:3 · landwatch show 3f78685")
    for width in range(1, 260):
        shown = fitted(pieces, width)
        assert cells(shown) <= max(width, floor), (width, shown)
        assert shown.startswith("landwatch: S002 ") and shown.endswith(" · landwatch show 3f78685")
        said, _, rest = shown.removeprefix("landwatch: S002 ").rpartition(" in ")
        where = rest.removesuffix(" · landwatch show 3f78685").removesuffix(", +2 warnings")
        where = where.removesuffix(":3")
        kept_start = said.removesuffix("…")
        kept_end = where.removeprefix("…").removeprefix("/") if where != path else path
        assert message.startswith(kept_start) and path.endswith(kept_end), (width, shown)
        # Never cut inside an escape, nor between a character and its combining marks.
        assert not re.search(PARTIAL_ESCAPE, kept_start)
        assert not re.search(PARTIAL_ESCAPE, path[: len(path) - len(kept_end)])
        assert not message[len(kept_start) :].startswith("\u0301")
        assert not kept_end.startswith("\u0301")


def test_the_path_loses_leading_directories_before_the_message_loses_a_word() -> None:
    pieces = line_of("a message of words", "src/landwatch/commands/notice.py")
    whole = fitted(pieces, 500)
    assert whole == (
        "landwatch: S002 a message of words in src/landwatch/commands/notice.py:3, +2 warnings"
        " · landwatch show 3f78685"
    )
    width = cells(whole) - 4
    assert fitted(pieces, width) == whole.replace("src/landwatch/", "…/")
    assert fitted(pieces, cells(whole) - 30) == (
        "landwatch: S002 a message of words in …/notice.py:3 · landwatch show 3f78685"
    )
    assert fitted(pieces, 70) == (
        "landwatch: S002 a message… in …/notice.py:3 · landwatch show 3f78685"
    )


def test_parts_of_one_style_are_joined_and_empty_ones_left_out() -> None:
    assert fit(line_of("m", "p.py"), 200)[:2] == (("landwatch: ", "bold"), ("S002 m", "red"))
    assert fit((("a", "", KEEP), ("", "x", MESSAGE), ("b", "", KEEP)), 1) == (("ab", ""),)


def test_a_text_cut_to_a_width_keeps_its_escapes_whole() -> None:
    """The trust screen's rows: as much of the start as fits before `…`, never half an escape
    (its own loop cut one, and measured the text again at every character it took off)."""
    assert cut("short", 80) == "short"
    assert cut("ab\\x1bcd", 4) == "ab…" and cut("ab\\x1bcd", 7) == "ab\\x1b…"
    assert cut("漢字の列", 5) == "漢字…"
    long = "a" * 200_000
    assert cut(long, 80) == "a" * 79 + "…"


def test_a_list_is_told_in_one_line_the_rest_counted() -> None:
    assert listed(["a", "b"], 3) == "a, b"
    assert listed(["a", "b", "c", "d", "e"], 3) == "a, b, c and 2 more"
    assert listed(["x 1", "y 2"], 1, "; ") == "x 1 and 1 more"
    assert listed([], 3) == ""


def test_the_home_is_said_as_tilde_where_text_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/me/")
    assert (
        home_as_tilde("/home/me/.local/bin/bwrap, /home/meg/x") == "~/.local/bin/bwrap, /home/meg/x"
    )
    # Only where a path begins with it (a round-3 audit: /mnt/backup~/notes.txt).
    assert home_as_tilde("/mnt/backup/home/me/notes.txt") == "/mnt/backup/home/me/notes.txt"
    assert home_as_tilde("(/home/me/a) '/home/me/b'") == "(~/a) '~/b'"
    monkeypatch.setenv("HOME", "/")
    assert home_as_tilde("/usr/bin/bwrap") == "/usr/bin/bwrap"
