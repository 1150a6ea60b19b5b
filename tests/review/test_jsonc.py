"""JSON with comments read as JSON: what is blanked (comments outside strings, trailing commas
when asked) and what is not (anything inside a string), line ends kept, in one linear pass."""

from __future__ import annotations

import json

import pytest

from landwatch.review import jsonc

# (what, the text, the text as JSON with trailing commas taken, whether it held a comment)
STRIPPED = [
    ("line comment", b'{"a": 1} // b\n', b'{"a": 1}     \n', True),
    ("block comment over lines", b'{/* a\nb */"c": 1}', b'{    \n    "c": 1}', True),
    ("trailing comma", b'{"a": [1, 2,],\n}', b'{"a": [1, 2 ] \n}', False),
    ("comma, comment, close", b"[1, // x\n]", b"[1      \n]", True),
    ("a URL in a string", b'{"u": "https://a.example//"}', b'{"u": "https://a.example//"}', False),
    ("/* in a string", b'{"g": "src/*.ts", "h": "*/"}', b'{"g": "src/*.ts", "h": "*/"}', False),
    ("an escaped quote", b'{"a": "\\"//", "b": 1}', b'{"a": "\\"//", "b": 1}', False),
    ("an escaped backslash", b'{"a": "\\\\"} // c', b'{"a": "\\\\"}     ', True),
    ("a comma between values", b"[1, /* x */ 2]", b"[1,         2]", True),
    ("two commas: one taken", b"[1,,]", b"[1, ]", False),
    ("a lone slash", b"[1 / 2]", b"[1 / 2]", False),
    ("no comment at all", b'{"a": [1, 2]}', b'{"a": [1, 2]}', False),
    ("UTF-8 in a comment", "[1] // é\n".encode(), b"[1]      \n", True),
]


@pytest.mark.parametrize(("what", "text", "expected", "comments"), STRIPPED)
def test_comments_outside_strings_are_blanked(
    what: str, text: bytes, expected: bytes, comments: bool
) -> None:
    stripped = jsonc.strip(text, trailing_commas=True)
    assert stripped == jsonc.Stripped(expected, comments, None), what
    assert len(stripped.text) == len(text)  # every byte where it was: lines and columns kept


def test_trailing_commas_are_kept_when_the_tool_refuses_them() -> None:
    text = b'{\n  // c\n  "a": 1,\n}'
    assert jsonc.strip(text, trailing_commas=False).text == b'{\n      \n  "a": 1,\n}'
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(jsonc.strip(text, trailing_commas=False).text)
    assert refused.value.lineno == 4  # the file's own line
    assert json.loads(jsonc.without_comments(text)) == {"a": 1}


def test_a_comment_never_closed_is_told_with_its_line() -> None:
    text = b'{\n  "a": 1, // fine\n  /* open\n  "b": 2\n}\n'
    stripped = jsonc.strip(text, trailing_commas=True)
    assert stripped.unclosed == 3 and stripped.comments
    assert stripped.text.startswith(b'{\n  "a": 1,        \n  /* open')  # left as written


def test_a_quote_left_open_ends_at_its_line() -> None:
    # JSON strings hold no line end: a comment on the next line is still a comment.
    stripped = jsonc.strip(b'{"a": "open\n// c\n}', trailing_commas=True)
    assert stripped.text == b'{"a": "open\n    \n}' and stripped.comments


@pytest.mark.parametrize(
    "text",
    [
        b"/* " * 200_000,  # every opener would scan to the end with a lazy `.*?`
        b'"' + b"\\x" * 200_000,  # one string, all escapes
        b"[" + b", " * 200_000 + b"1]",  # commas pending, each undone
        b'"a" ' * 200_000 + b"// end",
    ],
)
def test_hostile_input_is_read_in_one_pass(text: bytes) -> None:
    stripped = jsonc.strip(text, trailing_commas=True)
    assert len(stripped.text) == len(text)
