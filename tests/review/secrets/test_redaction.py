"""Never repeating a secret (review.secrets.redaction): at most four characters of a secret are
shown; every secret a detector finds on a line, every copy of one given and of every value a
secret rule found, is redacted; a long line shows a window around its first secret."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from landwatch.review.secrets.redaction import (
    Found,
    redact,
    redact_secrets,
    redact_words,
    redacted_snippet,
    window,
)
from support.tokens import GITHUB_TOKEN, random_text


def test_redact_keeps_at_most_four_characters() -> None:
    assert redact(GITHUB_TOKEN) == "ghp_…"
    assert redact("Zq8Wv7Tu6") == "Zq8W…"
    assert redact("Zq8Wv7Tu") == "****"
    assert redact("abc") == "****"


GITHUB = GITHUB_TOKEN


def test_every_secret_a_detector_finds_and_every_copy_of_one_given_is_redacted() -> None:
    assert redact_secrets(f"a {GITHUB} b {GITHUB}") == "a ghp_… b ghp_…"
    given = "mine is Zq8Wv7Tu6Rs5 and Zq8Wv7Tu6Rs5 again"
    assert redact_secrets(given, [(8, 20)]) == "mine is Zq8W… and Zq8W… again"
    assert redact_secrets("nothing to hide here") == "nothing to hide here"


def test_overlapping_secrets_are_one_redaction() -> None:
    text = f"t = {GITHUB}"
    assert redact_secrets(text, [(4, 20), (10, 44)]) == "t = ghp_…"


def test_a_long_line_shows_a_window_around_its_first_secret() -> None:
    line = "x = 1; " * 200 + f'token = "{GITHUB}"; ' + "y = 2; " * 200
    shown = redacted_snippet(line, [])
    assert len(shown) == 242 and "ghp_…" in shown and GITHUB not in shown
    assert shown.startswith("…") and shown.endswith("…")
    assert redacted_snippet("short and clean", []) == "short and clean"
    assert window(shown) == shown  # the engine's window of every snippet keeps this one
    assert window("x" * 1000) == "x" * 240 + "…"


def covered(spans: list[tuple[int, int]]) -> set[int]:
    return {at for start, end in spans for at in range(start, end)}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text("abc", min_size=1, max_size=6), min_size=1, max_size=40),
    st.text("abcd", max_size=200),
)
def test_every_copy_of_every_value_found_is_covered_and_nothing_else(
    values: list[str], text: str
) -> None:
    """One by one (16 values at most) or in one pass (more), the same characters are hidden:
    every copy of every value, overlapping or inside one another, and no other."""
    naive = {
        (at, at + len(value))
        for value in values
        for at in range(len(text))
        if text.startswith(value, at)
    }
    absent = [f"z{n}" for n in range(17)]  # past 16 values: the one pass, whatever `values`
    assert covered(Found(values).spans(text)) == covered(list(naive))
    assert covered(Found([*values, *absent]).spans(text)) == covered(list(naive))


def test_a_value_found_is_redacted_wherever_it_shows() -> None:
    found = Found(["Xk9fQ2mZp7Lw3RtYv"])
    assert redact_secrets("    value: Xk9fQ2mZp7Lw3RtYv ", found=found) == "    value: Xk9f… "
    assert redact_secrets("nothing of it here", found=found) == "nothing of it here"
    assert not Found() and not Found([""])


def test_words_kept_hide_every_url_s_user_info_and_say_the_same_read_again() -> None:
    """A token given as a URL's user (`TOKEN:x-oauth-basic@`), which no detector knows by its
    shape, is hidden as a password is; words redacted once are the same redacted again (a
    state read and written again), and `git` of ssh://git@ stays in github."""
    token = random_text("user", 40, "0123456789abcdef")
    said = redact_words(f"cannot reach https://{token}:x-oauth-basic@github.com/o/r.git")
    assert said == f"cannot reach https://{token[:4]}…@github.com/o/r.git"
    assert redact_words("ssh://git@github.com/o/r.git") == "ssh://****@github.com/o/r.git"
    for words in (said, f"DEPLOY_TOKEN={GITHUB} at https://ci:{token}@host/x"):
        assert redact_words(redact_words(words)) == redact_words(words)
