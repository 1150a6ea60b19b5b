"""Making repository data printable: controls, Trojan Source characters and bytes that are not
UTF-8 are shown as escapes; ordinary text, accents and emoji are left alone."""

from __future__ import annotations

import pytest

from landwatch.text import duration, safe, short_path


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain café 日本 ✓", "plain café 日本 ✓"),
        ("bell\x07esc\x1b[31m", "bell\\x07esc\\x1b[31m"),
        ("del\x7f c1\x9b", "del\\x7f c1\\x9b"),
        ("abc\u202edcba\u2066\u2069", "abc\\u202edcba\\u2066\\u2069"),
        ("lrm\u200e rlm\u200f alm\u061c", "lrm\\u200e rlm\\u200f alm\\u061c"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("caf\udce9.txt", "caf\\xe9.txt"),  # a byte that was not UTF-8, as os.fsdecode keeps it
        ("lone\ud800", "lone\\ud800"),
    ],
)
def test_safe(raw: str, shown: str) -> None:
    assert safe(raw) == shown


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
