"""A repository's regular expressions (review.regexes): RE2's syntax read as Python's, patterns
that could backtrack badly refused, and every accepted one fast on its worst input up to the
longest target it is given."""

from __future__ import annotations

import time

import pytest

from landwatch.review.regexes import MAX_TARGET, RegexError, compile_safe, from_go


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"^/Users/(?i)[a-z0-9]+/x$", r"^/Users/(?i:[a-z0-9]+/x$)"),  # gitleaks' default has it
        (r"a|(?i)b|c", r"a|(?i:b|c)"),  # to the end of the group, its later branches too
        (r"(x(?i)y)z", r"(x(?i:y))z"),
        (r"(?i)abc", r"(?i)abc"),  # at the very start Python reads it as RE2 does
        (r"(?-i)a", r"(?-i:a)"),
        (r"\b(pat[[:alnum:]]{14})\b", r"\b(pat[0-9A-Za-z]{14})\b"),
        (r"[[:digit:]_-]", r"[0-9_-]"),
        (r"[[]", r"[\[]"),
        (r"[a&&b]", r"[a\&\&b]"),
        (r"end\z", r"end\Z"),
        (r"\Qa.b*\E+", r"a\.b\*+"),
        (r"(?<name>a)", r"(?P<name>a)"),
        (r"[(?i)]x", r"[(?i)]x"),  # inside a class nothing is a group
    ],
)
def test_re2_syntax_is_read_as_python_reads_it(go: str, python: str) -> None:
    assert from_go(go) == python
    compile_safe(go)


def test_what_re2_means_is_what_python_matches() -> None:
    assert compile_safe(r"^/Users/(?i)[a-z]+/x$").search("/Users/ADA/x")
    assert not compile_safe(r"^/Users/(?i)[a-z]+/x$").search("/USERS/ada/x")
    assert compile_safe(r"a|(?i)b|c").search("C")
    assert not compile_safe(r"[[:digit:]]").search("x[:")


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a+)+$", "a repeat inside a repeat"),
        (r"(?:\w+\s?)*$", "a repeat inside a repeat"),
        (r"(a|ab)*c", "an alternation inside a repeat"),
        (r"(?:\w|\d\d)*c", "an alternation inside a repeat"),
        (r"(?:ab|a)*c", "an alternation inside a repeat"),
        (r"(?:\.\w+\d*)+!", "a repeat inside a repeat"),  # two ways to split each pass
        (r"(?:\.[^x]*)+y", "a repeat inside a repeat"),  # the repeat takes the `.` too
        (r"(?i)(?:a[A-Z]*)+!", "a repeat inside a repeat"),  # in either case
        (r"(?:a(?i:[A-Z])*)+!", "a repeat inside a repeat"),
        (r"(?:\.(?:a|aa))+!", "an alternation inside a repeat"),
        (r"(a)\1", "a back-reference"),
        (r"(?=secret)", "a look-around"),
        (r"(?<!x)y", "a look-around"),
        (r".*.*.*x", "too many repeats"),
        (r"(.*a){20}", "too many repeats"),
        (r"(?U)a+", "U flag"),
        (r"[[:^alpha:]]", "POSIX class"),
        (r"\pL", "not a regular expression"),
        (r"(unclosed", "not a regular expression"),
        ("a" * 5000, "longer than"),
    ],
)
def test_what_could_backtrack_badly_or_cannot_be_read_is_refused(pattern: str, why: str) -> None:
    with pytest.raises(RegexError, match=why):
        compile_safe(pattern)


def test_what_cannot_backtrack_is_accepted() -> None:
    assert compile_safe(r"(?:foo|bar)+").search("foobar")  # branches start apart
    assert compile_safe(r"(?:\.[A-Za-z]\w++)+$").search("x.ab.cd")  # possessive: never given back
    assert compile_safe(r"(?:\.[A-Za-z]\w+)+$").search("x.ab.cd")  # each pass starts at a `.`
    assert compile_safe(r"python[23](?:\.\d{1,2})+/").search("python3.11/")
    assert compile_safe(r"(?:/.*)?$").search("/x")  # an optional part does not loop
    assert compile_safe(r"(?:[0-9]{3}-)+").search("123-")  # a fixed count inside
    assert compile_safe(r"(?:a|aa){10}").max_target == MAX_TARGET


def test_a_pattern_runs_only_on_targets_short_enough_for_its_repeats() -> None:
    assert [compile_safe("x" + ".*x" * n).max_target for n in range(3)] == [4096, 256, 64]
    assert compile_safe(r"[a-z]+-[a-z]+-x").max_target == 4096  # each stops at its `-`
    assert compile_safe(r"[a-z]+[A-Z]+[0-9]+$").max_target == 4096  # or at the end
    assert compile_safe(r"(?:\.\d{1,2})+/").max_target == 2048  # two ways to read a pass
    assert compile_safe("^x" + ".*x" * 3).max_target == 64  # anchored: one place to start
    pattern = compile_safe(r"a.*b")
    assert pattern.search("a" * 255 + "b")
    assert not pattern.search("a" * 256 + "b")  # not matched: what it would let through is kept
    assert not compile_safe(r"x$").search("x\n")  # a target of lines is none


# Each repeat able to take any part of the target, then nothing fits; and patterns a fuzzer
# found slow before the length of a pass counted.
WORST = [
    *(
        body * repeats + "[^a]"
        for body in ("[a-z]*", ".*", "(?:a|b)*", "[a-z]*?")
        for repeats in (1, 2)
    ),
    "a{0,60}" * 3 + "[^a]",
    r"[a-z]+?(?:ab|ac)*?!",
    r".+a*c",
    r"(?:ab|ac)*\w*!",
    r".+(?:\w{2}a{2})+$",
    r"(?:a|b)*a??c",
    r"a?(?:[ab]{2}(?:ab){0,3}.{0,3}[a-z]*)!",
]


@pytest.mark.parametrize("source", WORST)
@pytest.mark.parametrize("unit", ["a", "ab", "a-", "a."])
def test_every_accepted_pattern_is_fast_on_its_worst_targets(source: str, unit: str) -> None:
    pattern = compile_safe(source)
    target = unit * (pattern.max_target // len(unit))
    started = time.perf_counter()
    pattern.search(target)
    assert time.perf_counter() - started < 1.0
