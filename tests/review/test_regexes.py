"""A repository's regular expressions (review.regexes): run by RE2 with RE2's syntax, as gitleaks
runs them; refused where RE2 cannot run them (back-references, look-arounds, errors); and fast
on the inputs that make a backtracking engine take exponential time."""

from __future__ import annotations

import re
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landwatch.review.regexes import MAX_PATTERN, RegexError, compile_safe, unverbose


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        (r"^/Users/(?i)[a-z0-9]+/x$", "/Users/ADA/x", "/USERS/ada/x"),  # gitleaks' default has it
        (r"a|(?i)b|c", "C", "d"),  # the flag holds to the end of its group
        (r"\b(pat[[:alnum:]]{14})\b", "pat0123456789abcd", "pat012"),  # POSIX classes
        (r"end\z", "the end", "end\n"),
        (r"\Qa.b*\E+", "a.b**", "axb"),  # quoted text
        (r"(?P<name>a)", "a", "b"),
    ],
)
def test_re2_syntax_means_what_re2_means(pattern: str, matches: str, misses: str) -> None:
    compiled = compile_safe(pattern)
    assert compiled.search(matches)
    assert not compiled.search(misses)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a)\1", "invalid escape sequence"),  # a back-reference
        (r"(?=secret)", "invalid perl operator"),  # a look-around
        (r"(?<!x)y", "invalid perl operator"),
        (r"(unclosed", "missing \\)"),
        ("a" * (MAX_PATTERN + 1), "longer than"),
    ],
)
def test_what_re2_cannot_run_is_refused_with_why(pattern: str, why: str) -> None:
    with pytest.raises(RegexError, match=why):
        compile_safe(pattern)


def test_a_refused_pattern_logs_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RegexError):
        compile_safe(r"(?=x)")
    assert capfd.readouterr().err == ""  # the note says why; RE2 writes no log line of its own


# What makes a backtracking engine try every way to share the target out between repeats.
WORST = [r"(a+)+$", r"(?:\w+\s?)*$", r"(a|ab)*c", r".*.*.*x", r"(.*a){20}", r"(?:a|aa)*b"]


@pytest.mark.parametrize("source", WORST)
def test_the_worst_patterns_run_in_time_linear_in_the_target(source: str) -> None:
    pattern = compile_safe(source)
    small, large = "a" * 10_000 + "!", "a" * 1_000_000 + "!"
    timings = []
    for target in (small, large):
        started = time.perf_counter()
        pattern.search(target)
        timings.append(time.perf_counter() - started)
    # A hundred times the target may take about a hundred times as long, never its square.
    assert timings[1] < max(timings[0], 1e-4) * 1_000


def test_a_target_that_is_no_utf_8_is_searched_as_the_review_shows_it() -> None:
    assert compile_safe("x").search("\udcffx")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab []^#\\\n x.*{},12\xa0\x1c", max_size=14))
def test_a_verbose_pattern_reads_as_python_reads_it(body: str) -> None:
    """unverbose: a `(?x)` pattern (pre-commit's long excludes) without its whitespace and
    comments, as Python's re drops them; RE2 has no such flag."""
    source = "(?x)" + body
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible nested set"
            python = re.compile(source)
    except re.error:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        plain = re.compile(unverbose(source))
    targets = ("a", "b", " ", "[", "]", "^", "#", "ab", "a b", "x", "\\", "a]", "\n", "a\nb")
    for target in (*targets, "{", "}", "a{1,2}", "aa", "\xa0", "\x1c", "{}", "1", ","):
        assert bool(python.search(target)) == bool(plain.search(target)), (source, target)


def test_only_a_leading_verbose_flag_is_undone() -> None:
    # A round-1 audit: `{1, 2}` is a literal to re, and a no-break space is no whitespace.
    assert compile_safe(unverbose("(?x)^a{1, 2}$")).search("a{1,2}")
    assert unverbose("(?x)a\xa0b") == "a\xa0b"
    assert unverbose("(?xi) A b  # c\n") == "(?i)Ab"
    assert unverbose("a b # c") == "a b # c"
    assert unverbose("(?i)a b") == "(?i)a b"
