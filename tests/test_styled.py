"""Styled text on strings: colours only where a terminal takes them, lines wrapped at words and
never past the width, tables aligned, and a long text wrapped in time linear in its length."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from landwatch.styled import Out, paint, table, wrap
from landwatch.text import cells


def plain(lines: list[list[tuple[str, str]]]) -> list[str]:
    return ["".join(text for text, _ in line) for line in lines]


def test_paint_colours_each_span_in_its_style_and_leaves_plain_text_alone() -> None:
    spans = [("landwatch: ", "bold"), ("P001", "bold red"), (" there", "")]
    assert paint(spans, color=True) == "\x1b[1mlandwatch: \x1b[0m\x1b[1;31mP001\x1b[0m there"
    assert paint(spans, color=False) == "landwatch: P001 there"


def test_a_line_is_broken_at_the_space_nearest_the_width_and_that_space_goes() -> None:
    lines = plain(wrap([("the quick brown fox jumps over the lazy dog", "")], 15))
    assert lines == ["the quick brown", "fox jumps over", "the lazy dog"]


def test_a_word_longer_than_a_line_is_broken_where_the_line_ends() -> None:
    assert plain(wrap([("x " + "a" * 25, "")], 10)) == ["x", "a" * 10, "a" * 10, "a" * 5]


def test_an_indent_the_text_starts_with_is_kept_and_a_newline_starts_a_line() -> None:
    lines = plain(wrap([("    indented\n  next line here", "")], 12))
    assert lines == ["    indented", "  next line", "here"]


def test_the_styles_of_words_survive_the_wrap_joined_where_they_are_one() -> None:
    lines = wrap([("bold words ", "bold"), ("then plain", "")], 40)
    assert lines == [[("bold words ", "bold"), ("then plain", "")]]


def test_wide_characters_take_two_columns_of_the_width() -> None:
    lines = plain(wrap([("漢字漢字 漢字漢字", "")], 9))
    assert lines == ["漢字漢字", "漢字漢字"]


@given(st.text(alphabet=st.sampled_from("ab 漢\n\u0301"), max_size=200), st.integers(1, 30))
def test_no_line_is_wider_than_the_width_and_no_word_is_lost(text: str, width: int) -> None:
    lines = plain(wrap([(text, "")], width))
    assert all(cells(line) <= max(width, 2) for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "").replace("\n", "")


def test_wrapping_a_long_text_is_linear_in_its_length() -> None:
    """A million-character message is wrapped in one pass: a quadratic wrap would not end."""
    lines = wrap([("word " * 200_000, "")], 80)
    assert len(lines) == 12_500


def test_on_a_terminal_the_body_is_wrapped_under_its_start() -> None:
    screen = io.StringIO()
    out = Out(screen, width=31, terminal=True, color=False)
    out.wrapped([("  12 ", "dim")], [("P001 a message long enough to be wrapped twice", "")])
    assert screen.getvalue().splitlines() == [
        "  12 P001 a message long enough",
        "     to be wrapped twice",
    ]


def test_into_a_pipe_each_line_is_whole_and_uncoloured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    screen = io.StringIO()
    out = Out(screen, width=20)
    assert not out.terminal and not out.color
    out.wrapped([("lead ", "bold")], [("a body much longer than twenty columns", "red")])
    assert screen.getvalue() == "lead a body much longer than twenty columns\n"


@pytest.mark.parametrize(
    ("variables", "coloured"),
    [({}, True), ({"NO_COLOR": "1"}, False), ({"TERM": "dumb"}, False)],
)
def test_a_terminal_takes_colours_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], coloured: bool
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert Out(io.StringIO(), terminal=True).color is coloured


def test_force_color_makes_a_pipe_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    out = Out(io.StringIO())
    assert out.terminal and out.color


def test_columns_names_the_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "132")
    assert Out(io.StringIO()).width == 132
    monkeypatch.setenv("COLUMNS", "wide")
    assert Out(io.StringIO()).width == 80


def test_a_table_aligns_counts_right_and_wraps_its_first_column() -> None:
    screen = io.StringIO()
    out = Out(screen, width=40, terminal=True, color=False)
    rows = [
        [[("/a/short/.git", "")], [("3", "")], [("12", "")]],
        [
            [("/b/.git", ""), ("\n  skipped: the repository is gone", "red")],
            [("-", "")],
            [("-", "")],
        ],
    ]
    table(out, ("worktree", "waiting", "given up"), rows, right=(1, 2), room=20)
    assert screen.getvalue().splitlines() == [
        "worktree              waiting  given up",
        "/a/short/.git               3        12",
        "/b/.git                     -         -",
        "  skipped: the",
        "repository is gone",
    ]


def test_a_table_gives_its_wrapped_column_what_the_others_leave() -> None:
    screen = io.StringIO()
    out = Out(screen, width=30, terminal=True, color=False)
    table(
        out, ("id", "checks"), [[[("C001", "")], [("a check said in many words", "")]]], wrapped=1
    )
    assert screen.getvalue().splitlines() == [
        "id    checks",
        "C001  a check said in many",
        "      words",
    ]
