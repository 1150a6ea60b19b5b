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

from landwatch.review import documents, jsonc
from landwatch.review.globs import matches_any
from support.timing import cpu_seconds

DEEP_JSON = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECTS = b'{"a": ' * 50_000 + b"1" + b"}" * 50_000
DEEP_TOML = b"x = " + b"[" * 100_000 + b"]" * 100_000
DEEP_INLINE_TABLES = b"x = " + b"{a = " * 5_000 + b"1" + b"}" * 5_000
LONG_NUMBER = b"1" * 5_000  # past Python's 4300 digits for an integer read from text

CANNOT_TELL: list[tuple[str, Callable[[bytes], Any], bytes, Any]] = [
    # An attribute chain the parser builds by recursion: RecursionError.
    (
        "Python attributes",
        documents.python_syntax_error,
        b"x = a" + b".b" * 200_000,
        documents.NESTED,
    ),
    # Unary minus two hundred thousand times: MemoryError from the parser.
    (
        "Python unary",
        documents.python_syntax_error,
        b"x = " + b"-" * 200_000 + b"1",
        documents.NESTED,
    ),
    ("JSON arrays", documents.json_syntax_error, DEEP_JSON, documents.NESTED),
    ("JSON objects", documents.json_syntax_error, DEEP_OBJECTS, documents.NESTED),
    ("JSONC arrays", documents.jsonc_syntax_error, DEEP_JSON, documents.NESTED),
    ("JSON number", documents.json_syntax_error, LONG_NUMBER, None),
    ("TOML arrays", documents.toml_syntax_error, DEEP_TOML, documents.NESTED),
    ("TOML inline tables", documents.toml_syntax_error, DEEP_INLINE_TABLES, documents.NESTED),
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
    assert documents.yaml_syntax_error(deep) is documents.NESTED
    assert documents.yaml_duplicate_keys(deep) == []


def alias_bomb(depth: int) -> bytes:
    """YAML's billion laughs: each level a list naming the level before nine times, by alias."""
    lines = [b"a0: &a0 [" + b", ".join([b'"lol"'] * 9) + b"]"]
    for level in range(1, depth):
        named = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{named}]".encode())
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize(
    "function",
    [
        documents.yaml_syntax_error,
        documents.github_actions_syntax_error,
        documents.yaml_duplicate_keys,
    ],
)
def test_a_node_named_by_many_aliases_is_read_once(function: Callable[[bytes], Any]) -> None:
    # Two levels more name 81 times the nodes in about 1.3 times the text: a walk that followed
    # each alias again took 81 times as long (a 432-byte workflow of nine levels, hours).
    small, large = alias_bomb(4), alias_bomb(6)
    growth = cpu_seconds(lambda: function(large)) / max(cpu_seconds(lambda: function(small)), 1e-4)
    assert growth < 9, growth
    assert function(large) in (None, [])
    # What an alias names is still read: a tag GitHub refuses, under aliases of it.
    tagged = b"a: &a [!Ref x]\nb: [*a, *a]\n"
    if function is documents.github_actions_syntax_error:
        assert function(tagged) is not None


def many_duplicates(count: int) -> bytes:
    keys = "".join(f'  "k{number}": 1,\n' for number in range(count))
    return ("{\n" + keys + keys + '  "z": 0\n}\n').encode()


def test_the_lines_of_many_duplicate_keys_are_found_in_one_pass() -> None:
    # Each key given twice was looked for on every line: 4,000 of them in 110 KB took 33 s.
    small, large = many_duplicates(300), many_duplicates(3_000)
    function = documents.json_duplicate_keys
    growth = cpu_seconds(lambda: function(large)) / max(cpu_seconds(lambda: function(small)), 1e-4)
    assert growth < 30, growth
    assert function(large)[-1] == ("k2999", 6_001)
    blanked = b'{"a": 1,\n // "a": 0\n "a": 3}'  # a comment's key is no key
    assert documents.jsonc_duplicate_keys(blanked) == [("a", 3)]
    # A key's second line, not a line holding it twice; a value that looks like it is none.
    assert function(b'{"a": {"a": 1, "a": 2},\n "b": "\\"a\\": 1"}') == [("a", None)]


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
    assert documents.duplicate_key_finder("package.json") is documents.json_duplicate_keys


# (path, text, the syntax error told: its line and the start of its words, or None)
TOOLS_JSON = [
    # Tools that take comments and trailing commas: their configuration is no syntax error.
    (".oxfmtrc.json", b'{\n  "semi": false,\n  "singleQuote": true,\n}\n', None),
    (".oxlintrc.json", b'{\n  // the rules\n  "rules": {"eqeqeq": "warn",},\n}\n', None),
    ("biome.json", b'{\n  /* schema */ "formatter": {"enabled": true,},\n}\n', None),
    ("web/biome.jsonc", b'{"linter": {"enabled": true}, // on\n}\n', None),
    ("deno.json", b'{\n  "tasks": {"dev": "deno run main.ts",}, // run\n}\n', None),
    ("deno.jsonc", b'{"imports": {"std/": "https://deno.land/std/"}, // pinned\n}\n', None),
    ("turbo.json", b'{\n  // pipeline\n  "tasks": {"build": {},},\n}\n', None),
    ("packages/a/.swcrc", b'{\n  "jsc": {"target": "es2022",}, // modern\n}\n', None),
    ("tsconfig.build.json", b'{"extends": "./tsconfig.json", /* build */}\n', None),
    ("jsconfig-web.json", b'{"compilerOptions": {}, // web\n}\n', None),
    (".vscode/launch.json", b'{\n  // launch\n  "configurations": [],\n}\n', None),
    (".devcontainer/devcontainer.json", b'{"name": "dev", // box\n}\n', None),
    # A `.json` no tool is known to read: comments taken, a trailing comma still refused.
    ("config/app.json", b'{\n  // the port\n  "port": 8080\n}\n', None),
    ("config/app.json", b'{\n  // the port\n  "port": 8080,\n}\n', (4, "Expecting property")),
    ("config/app.json", b'{"url": "https://a.example//b",\n}\n', (2, "Expecting property")),
    ("config/app.json", b'{"glob": "src/*.ts" /* x */ "b": 1}', (1, "Expecting ','")),
    ("config/app.json", b'{\n  "a": 1\n  /* never closed\n}\n', (3, "a comment opened")),
    # ESLint and TSLint strip comments, then JSON.parse: a trailing comma is an error.
    (".eslintrc.json", b'{\n  // rules\n  "root": true\n}\n', None),
    (".eslintrc.json", b'{\n  "root": true,\n}\n', (3, "Expecting property")),
    # JSON read by a plain JSON parser: a comment or a trailing comma is an error.
    ("package.json", b'{\n  "name": "a",\n}\n', (3, "Expecting property")),
    ("package.json", b'{\n  // the name\n  "name": "a"\n}\n', (2, "Expecting property")),
    ("tsconfig.json", b'{\n  "a": 1\n  "b": 2\n}\n', (3, "Expecting ','")),
]


@pytest.mark.parametrize(("path", "text", "told"), TOOLS_JSON)
def test_json_is_read_as_its_tool_reads_it(
    path: str, text: bytes, told: tuple[int, str] | None
) -> None:
    check = documents.syntax_check(path)
    assert check is not None and matches_any(path, documents.SYNTAX_CHECKED), path
    error = check[1](text)
    if told is None:
        assert error is None, (path, error)
    else:
        assert error is not None and error[0] == told[0] and error[1].startswith(told[1]), error


def test_a_json_file_with_comments_still_has_its_duplicates_found() -> None:
    text = b'{\n  // first\n  "a": 1,\n  "a": 2\n}\n'
    assert documents.duplicate_key_finder("config/app.json") is documents.any_json_duplicate_keys
    assert documents.any_json_duplicate_keys(text) == [("a", 4)]
    assert documents.json_duplicate_keys(text) == []  # not JSON as a plain parser reads it


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
    documents.commented_json_syntax_error,
    documents.any_json_syntax_error,
    documents.toml_syntax_error,
    documents.yaml_syntax_error,
    jsonc.without_comments,
    documents.json_duplicate_keys,
    documents.jsonc_duplicate_keys,
    documents.any_json_duplicate_keys,
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
