"""Reading committed files never raises: whatever the bytes (nested past Python's stack, a number
past what Python converts, not text at all), every function of review.documents answers, and a
document nobody can judge gets "cannot tell", the answer a document that parses gets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from landwatch.review import documents

DEEP_JSON = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECTS = b'{"a": ' * 50_000 + b"1" + b"}" * 50_000
DEEP_TOML = b"x = " + b"[" * 100_000 + b"]" * 100_000
DEEP_INLINE_TABLES = b"x = " + b"{a = " * 5_000 + b"1" + b"}" * 5_000
LONG_NUMBER = b"1" * 5_000  # past Python's 4300 digits for an integer read from text

CANNOT_TELL: list[tuple[str, Callable[[bytes], Any], bytes, Any]] = [
    # An attribute chain the parser builds by recursion: RecursionError.
    ("Python attributes", documents.python_syntax_error, b"x = a" + b".b" * 200_000, None),
    # Unary minus two hundred thousand times: MemoryError from the parser.
    ("Python unary", documents.python_syntax_error, b"x = " + b"-" * 200_000 + b"1", None),
    ("JSON arrays", documents.json_syntax_error, DEEP_JSON, None),
    ("JSON objects", documents.json_syntax_error, DEEP_OBJECTS, None),
    ("JSONC arrays", documents.jsonc_syntax_error, DEEP_JSON, None),
    ("JSON number", documents.json_syntax_error, LONG_NUMBER, None),
    ("TOML arrays", documents.toml_syntax_error, DEEP_TOML, None),
    ("TOML inline tables", documents.toml_syntax_error, DEEP_INLINE_TABLES, None),
    ("TOML number", documents.toml_syntax_error, b"x = " + LONG_NUMBER, None),
    ("JSON duplicates", documents.json_duplicate_keys, DEEP_OBJECTS, []),
    ("JSONC duplicates", documents.jsonc_duplicate_keys, DEEP_JSON, []),
    ("JSON number duplicates", documents.json_duplicate_keys, b'{"a": ' + LONG_NUMBER + b"}", []),
    ("JSON read", documents.read_json, DEEP_JSON, None),
    ("JSON number read", documents.read_json, LONG_NUMBER, None),
    ("TOML read", documents.read_toml, DEEP_TOML, None),
    ("TOML number read", documents.read_toml, b"x = " + LONG_NUMBER, None),
]


@pytest.mark.parametrize(
    ("function", "text", "answer"),
    [case[1:] for case in CANNOT_TELL],
    ids=[case[0] for case in CANNOT_TELL],
)
def test_a_document_past_what_python_can_hold_cannot_be_told(
    function: Callable[[bytes], Any], text: bytes, answer: Any
) -> None:
    assert function(text) == answer


def test_yaml_past_the_pure_python_composers_stack_cannot_be_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # libyaml refuses such nesting as a syntax error of its own; the composer written in Python,
    # used where libyaml is not installed, recurses until RecursionError.
    deep = b"[" * 5_000 + b"]" * 5_000  # five times what either allows
    assert documents.yaml_syntax_error(deep) == (1, "exceeded maximum nesting depth")
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    assert documents.yaml_syntax_error(deep) is None
    assert documents.yaml_duplicate_keys(deep) == []


def test_what_can_be_told_still_is() -> None:
    python = documents.python_syntax_error(b"def f(:\n")
    assert python is not None and python[0] == 1
    assert documents.python_syntax_error(b"x = 1\0") is not None  # null bytes
    assert documents.json_syntax_error(b'{"a": 1,}') == (
        1,
        "Expecting property name enclosed in double quotes",
    )
    assert documents.jsonc_syntax_error(b'{\n  // a comment\n  "a": 1,\n}') is None
    toml = documents.toml_syntax_error(b"a = 1\na = 2\n")  # TOML forbids a key twice
    assert toml is not None and toml[0] == 2
    assert documents.json_duplicate_keys(b'{"a": 1,\n "a": 2}') == [("a", 2)]
    assert documents.yaml_duplicate_keys(b"a: 1\nb: 2\na: 3\n") == [("a", 3)]
    assert documents.read_toml(b'a = "b"\n') == {"a": "b"}
    assert documents.read_text(b"caf\xe9") is None


def test_each_path_gets_its_language_or_none() -> None:
    languages = {
        path: (check[0] if (check := documents.syntax_check(path)) else None)
        for path in ("a.py", "b.pyi", "c.json", "tsconfig.json", "d.toml", "e.yml", "f.txt", "g")
    }
    assert languages == {
        "a.py": "Python",
        "b.pyi": "Python",
        "c.json": "JSON",
        "tsconfig.json": "JSON with comments",
        "d.toml": "TOML",
        "e.yml": "YAML",
        "f.txt": None,
        "g": None,
    }
    assert documents.duplicate_key_finder(".vscode/settings.json") is documents.jsonc_duplicate_keys
    assert documents.duplicate_key_finder("ci.yaml") is documents.yaml_duplicate_keys
    assert documents.duplicate_key_finder("Cargo.toml") is None  # TOML refuses a key twice


# Bytes that open and close what each language nests, among quotes, comments, numbers, line
# ends and bytes that are not UTF-8: the shapes parsers stumble on.
PIECES = st.sampled_from(
    [
        b"[",
        b"]",
        b"{",
        b"}",
        b"(",
        b")",
        b'"',
        b"'",
        b"//",
        b"/*",
        b"*/",
        b"#",
        b"a",
        b"=",
        b":",
        b",",
        b".",
        b"-",
        b"1" * 40,
        b"\n",
        b"  ",
        b"\t",
        b"\0",
        b"\xff",
        b"\xef\xbb\xbf",
        b"- ",
        b"&x ",
        b"*x",
        b"!!",
        b"<<: ",
        b"\\u",
    ]
)
FUNCTIONS: list[Callable[[bytes], Any]] = [
    documents.python_syntax_error,
    documents.json_syntax_error,
    documents.jsonc_syntax_error,
    documents.toml_syntax_error,
    documents.yaml_syntax_error,
    documents.without_comments,
    documents.json_duplicate_keys,
    documents.jsonc_duplicate_keys,
    documents.yaml_duplicate_keys,
    documents.read_json,
    documents.read_toml,
    documents.read_text,
]


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.lists(PIECES, max_size=200).map(b"".join)))
def test_every_function_answers_any_bytes(text: bytes) -> None:
    for function in FUNCTIONS:
        answer = function(text)  # raising here is the failure
        if function.__name__.endswith("_error"):
            assert answer is None or (isinstance(answer, tuple) and isinstance(answer[1], str))
        elif function.__name__.endswith("_keys"):
            assert isinstance(answer, list)
