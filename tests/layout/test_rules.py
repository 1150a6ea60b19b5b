"""layout.rules: what each kind of rule makes of a setting's text, and the one line, its text
escaped, where the text cannot be used (test_settings holds each setting to its rule)."""

from __future__ import annotations

from landwatch.layout.rules import (
    Parsed,
    any_text,
    boolean,
    globs,
    niceness,
    problem,
    seconds,
    word,
)


def test_a_problem_is_one_line_its_text_escaped() -> None:
    said = problem("landwatch.x", "\x1b[2Jmine", "not usable; landwatch uses none")
    assert said == "git config landwatch.x = '\\x1b[2Jmine' is not usable; landwatch uses none"


def test_seconds_are_whole_and_at_least_the_floor() -> None:
    rule = seconds(least=60)
    assert rule("s", "90", "600") == Parsed(90)
    assert rule("s", "59", "600").value == 60 and rule("s", "59", "600").problem is not None
    assert rule("s", "0600", "600").value == 600  # the shell's arithmetic reads it as octal


def test_words_booleans_and_niceness_take_what_git_spells_and_nothing_else() -> None:
    assert boolean("off")("b", "On", "false") == Parsed(True)
    assert boolean("landwatch keeps it")("b", "2", "true").problem is not None
    assert word(("off", "on"), "off")("w", "ON", "off") == Parsed("on")
    assert word(("off", "on"), "off")("w", "", "off") == Parsed("off")
    assert niceness("n", "19", "10") == Parsed(19) and niceness("n", "20", "10").value == 10


def test_text_and_globs_are_taken_as_written() -> None:
    assert any_text("t", "", "") == Parsed(None) and any_text("t", "up stream", "").value
    assert globs("g", "main\nrelease/* hot*", "") == Parsed(("main", "release/*", "hot*"))
