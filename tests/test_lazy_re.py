"""A pattern compiled at its first match answers as `re.compile`'s would, in str and bytes."""

from __future__ import annotations

import re

from landwatch.lazy_re import lazy_compile


def test_nothing_is_compiled_before_the_first_match_and_once_after() -> None:
    word = lazy_compile(r"(?P<word>[a-z]+)", re.I)
    assert word.pattern == "(?P<word>[a-z]+)" and word.flags == re.I
    assert "_compiled" not in vars(word)
    assert word.search("12 Ab") is not None
    first = vars(word)["_compiled"]
    assert word.compiled is first and word.groupindex == {"word": 1}
    # The compiled pattern's own method answers from then on, not one of the class's.
    assert word.search == first.search and word.match("Ab") is not None


def test_every_method_answers_as_the_compiled_pattern() -> None:
    lazy, eager = lazy_compile(r"(\d)-"), re.compile(r"(\d)-")
    text = "1-2-x-3-"
    for method in ("search", "match", "fullmatch"):
        found, expected = getattr(lazy, method)(text, 2), getattr(eager, method)(text, 2)
        assert (found and found.span()) == (expected and expected.span())
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.findall(text) == eager.findall(text) == ["1", "2", "3"]
    assert lazy.split(text, 1) == eager.split(text, 1)
    assert lazy.sub(r"<\1>", text, 2) == eager.sub(r"<\1>", text, 2)
    assert lazy.subn(lambda m: m[1] * 2, text) == eager.subn(lambda m: m[1] * 2, text)


def test_bytes_patterns_stay_bytes() -> None:
    newline = lazy_compile(rb"\r?\n")
    assert newline.split(b"a\r\nb\nc") == [b"a", b"b", b"c"]
    assert newline.fullmatch(b"\n") is not None
