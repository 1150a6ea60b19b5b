"""A hook manager's configuration read without trusting its shape (review.project_hooks.values):
each reader takes what it can use of any value, boundedly."""

from __future__ import annotations

import pytest

from landwatch.review.project_hooks.values import (
    MAX_HOOKS,
    MAX_WORDS,
    TooMany,
    mappings,
    text,
    words,
)


def test_mappings_are_the_dicts_of_a_list_at_most_max_hooks() -> None:
    assert list(mappings([{"id": "a"}, "b", 3, None, {"id": "c"}])) == [{"id": "a"}, {"id": "c"}]
    assert list(mappings({"id": "a"})) == [] and list(mappings("a")) == []
    one = {"run": "x"}
    assert len(list(mappings([one] * MAX_HOOKS))) == MAX_HOOKS
    # Past the bound, what is left unread may run: the list is refused, not cut (an audit: the
    # 501st hook ran a script no approval pinned).
    with pytest.raises(TooMany, match=f"more than {MAX_HOOKS} entries in one list"):
        list(mappings([one] * (MAX_HOOKS * 3)))  # an alias bomb's list


def test_words_are_a_string_or_the_scalars_of_a_list_at_most_max_words() -> None:
    assert words("--fix") == ["--fix"]
    assert words(["-x", 1, 2.5, {"a": 1}, None, ["y"]]) == ["-x", "1", "2.5"]
    assert words({"a": "b"}) == [] and words(None) == []
    assert len(words(["w"] * MAX_WORDS)) == MAX_WORDS
    with pytest.raises(TooMany, match="words in one list"):
        words(["w"] * (MAX_WORDS + 1))


def test_text_is_a_scalar_as_written_and_nothing_else() -> None:
    assert text("sh tools/x.sh") == "sh tools/x.sh" and text(3) == "3"
    assert text(["sh"]) == "" and text({"run": "x"}) == "" and text(None) == ""
