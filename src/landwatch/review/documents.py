"""Reading committed files, never raising: the syntax of the languages the review parses (Python,
JSON, JSON with comments, TOML, YAML), the keys one mapping gives twice, and whole documents.

Every function answers for any bytes. A document nested past what Python's parsers can hold
(RecursionError, MemoryError), or holding a number past what Python converts, gets the answer
"cannot tell": no syntax error, no duplicate, nothing read; never an exception out of a review.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from collections.abc import Callable
from typing import Any

from landwatch.review.globs import matches_any

# A syntax error: the line it is on (None when the parser does not say) and the parser's words.
Problem = tuple[int | None, str]
SyntaxCheck = Callable[[bytes], Problem | None]
# A key given twice in one mapping, and the line of its second giving when it can be told.
Duplicate = tuple[str, int | None]
DuplicateFinder = Callable[[bytes], list[Duplicate]]
# What a parser raises for a document nested deeper than Python's stack or memory allow: valid
# or not, nobody can tell, and the review must go on.
TOO_DEEP = (RecursionError, MemoryError)

# JSON with comments: VS Code, TypeScript and dev containers read these with `//` and `/* */`
# comments and trailing commas; a JSON parser calls every one of them broken.
JSONC_FILES = (
    "*.jsonc",
    "tsconfig.json",
    "tsconfig.*.json",
    "jsconfig.json",
    "jsconfig.*.json",
    ".vscode/*.json",
    "*.code-workspace",
    "devcontainer.json",
    ".devcontainer.json",
    ".devcontainer/*.json",
    ".eslintrc.json",
    "tslint.json",
    "api-extractor.json",
    "typedoc.json",
)
_JSONC_COMMENTS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.S)
_JSONC_COMMAS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|,(?=\s*[}\]])')


def without_comments(text: bytes) -> bytes:
    """JSONC as JSON: comments, then trailing commas, blanked (line ends kept, so line numbers
    still point into the file); strings are left as they are."""

    def blank(match: re.Match[bytes]) -> bytes:
        token = match[0]
        if token.startswith(b'"'):
            return token
        return re.sub(rb"[^\n]", b" ", token)

    return _JSONC_COMMAS.sub(blank, _JSONC_COMMENTS.sub(blank, text))


def python_syntax_error(text: bytes) -> Problem | None:
    """The first syntax error of Python source as the reviewer's own Python parses it, or None;
    only the syntax tree is built, so no code runs and nothing is imported."""
    try:
        compile(text, "<landed>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return error.lineno, error.msg
    except ValueError as error:  # null bytes
        return None, str(error)
    except TOO_DEEP:
        return None  # an expression nested past the parser's stack: cannot tell
    return None


def json_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a JSON document, or None: where json.loads stops, with its line;
    text that is not UTF-8 (nor UTF-16 or UTF-32, which JSON allows) is one too."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return error.lineno, error.msg
    except UnicodeDecodeError as error:
        return None, str(error)
    except ValueError:
        return None  # a number too long for Python to convert: well-formed JSON
    except TOO_DEEP:
        return None  # valid however deep, only past what Python's parser can nest
    return None


def jsonc_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of JSON with comments, or None: the document read with its comments and
    trailing commas blanked, so the line of an error is still the file's."""
    return json_syntax_error(without_comments(text))


def toml_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a TOML document, or None, with the line tomllib names; a key given
    twice is one, since TOML forbids it."""
    try:
        tomllib.loads(text.decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"at line (\d+)", str(error))
        return (int(match[1]) if match else None), str(error)
    except UnicodeDecodeError as error:
        return None, str(error)
    except ValueError:
        return None  # a number too long for Python to convert: well-formed TOML
    except TOO_DEEP:
        return None  # valid however deep, only past what Python's parser can nest
    return None


def yaml_loader() -> Any:
    """The loader every YAML reading uses: libyaml's safe loader where PyYAML was built with it,
    as pre-commit reads its configuration (PyYAML's own refuses tabs that libyaml takes), else
    PyYAML's safe loader. Either constructs no object a document names."""
    import yaml  # only for YAML files: most reviews have none

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str | bytes) -> Any:
    """A YAML document read with `yaml_loader`, as pre-commit reads its own: plain data, no
    object a tag names. Raises what PyYAML raises (YAMLError, RecursionError, ValueError)."""
    import yaml  # only for YAML files: most reviews have none

    return yaml.load(text, Loader=yaml_loader())


def yaml_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a YAML stream (every document of it), or None. Composing checks the
    syntax without constructing objects, so application tags (!Ref, !vault) are no errors."""
    return _yaml_problem(text, tags=True)


# The YAML GitHub Actions reads: workflows, and the metadata of actions (composite ones too).
GITHUB_ACTIONS_FILES = (
    ".github/workflows/*.yml",
    ".github/workflows/*.yaml",
    "action.yml",
    "action.yaml",
)


def github_actions_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a GitHub Actions file, or None: YAML's, and any application tag,
    which GitHub's reader refuses. An expression written bare after a key (`if: !cancelled()`)
    is one: GitHub's documentation asks for `${{ !cancelled() }}` or quotes there."""
    return _yaml_problem(text, tags=False)


_STANDARD_TAG = "tag:yaml.org,2002:"


def _yaml_problem(text: bytes, *, tags: bool) -> Problem | None:
    """The first problem of a YAML stream, composed once: its syntax, and unless `tags` are
    allowed, a node with an application tag."""
    import yaml  # only for YAML files: most reviews have none

    try:
        for document in yaml.compose_all(text, Loader=yaml_loader()):
            if not tags and document is not None and (tagged := _application_tag(document)):
                return (
                    tagged.start_mark.line + 1,
                    f"tag {tagged.tag[:80]!r}, which GitHub refuses (an expression starting "
                    "with ! goes inside ${{ }} or quotes)",
                )
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        return (mark.line + 1 if mark is not None else None), str(error.problem or error)
    except yaml.YAMLError as error:
        return None, str(error)
    except TOO_DEEP:
        return None  # nested past what the pure-Python composer can recurse: cannot tell
    return None


def _application_tag(document: Any) -> Any:
    """The first node of a composed document whose tag is not one of YAML's own, or None."""
    import yaml  # only for YAML files: most reviews have none

    pending = [document]
    while pending:  # a list, not recursion: a deep document costs no stack
        node = pending.pop()
        if not node.tag.startswith(_STANDARD_TAG):
            return node
        if isinstance(node, yaml.MappingNode):
            pending.extend(item for pair in node.value for item in pair)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return None


_SYNTAX_CHECKS: dict[str, tuple[str, SyntaxCheck]] = {
    ".py": ("Python", python_syntax_error),
    ".pyi": ("Python", python_syntax_error),
    ".json": ("JSON", json_syntax_error),
    ".toml": ("TOML", toml_syntax_error),
    ".yaml": ("YAML", yaml_syntax_error),
    ".yml": ("YAML", yaml_syntax_error),
}
# Every file syntax_check has a check for.
SYNTAX_CHECKED = (*(f"*{suffix}" for suffix in _SYNTAX_CHECKS), "*.jsonc", "*.code-workspace")


def _suffix(path: str) -> str:
    return "." + path.rsplit(".", 1)[-1] if "." in path else ""


def syntax_check(path: str) -> tuple[str, SyntaxCheck] | None:
    """The language a file is written in, by its path, and the check of its syntax; None for a
    file of no language read here. JSON files read with comments (JSONC_FILES) are JSONC, and
    the YAML GitHub Actions reads (GITHUB_ACTIONS_FILES) takes no tags."""
    if matches_any(path, JSONC_FILES):
        return "JSON with comments", jsonc_syntax_error
    if matches_any(path, GITHUB_ACTIONS_FILES):
        return "GitHub Actions YAML", github_actions_syntax_error
    return _SYNTAX_CHECKS.get(_suffix(path))


def json_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one JSON object, with the line of its second giving when a line
    holds it; nothing for text that is not JSON (a syntax error is another question)."""
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                duplicates.append(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except (ValueError, *TOO_DEEP):
        return []  # not JSON, or nested past what Python's parser can read: cannot tell
    lines = text.split(b"\n")
    found = []
    for key in dict.fromkeys(duplicates):
        needle = json.dumps(key).encode()
        at = [n for n, line in enumerate(lines, 1) if re.search(re.escape(needle) + rb"\s*:", line)]
        found.append((key, at[1] if len(at) > 1 else None))
    return found


def jsonc_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one object of JSON with comments: json_duplicate_keys of the
    document with its comments and trailing commas blanked (line numbers kept)."""
    return json_duplicate_keys(without_comments(text))


def yaml_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one YAML mapping, with its line, in the order of the file; merge
    keys (`<<`) and aliases of one node are no duplicates, and text that is not YAML has none."""
    import yaml  # only for YAML files: most reviews have none

    try:
        documents = list(yaml.compose_all(text, Loader=yaml_loader()))
    except (yaml.YAMLError, *TOO_DEEP):
        return []  # not YAML, or nested past what the composer can recurse: cannot tell
    found: list[Duplicate] = []
    seen_nodes: set[int] = set()
    stack = [node for node in documents if node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue  # an alias: the same node again
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in keys:
                        found.append((key.value, key.start_mark.line + 1))
                    keys.add(key.value)
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return sorted(found, key=lambda item: item[1] or 0)


_DUPLICATE_FINDERS: dict[str, DuplicateFinder] = {
    ".json": json_duplicate_keys,
    ".yaml": yaml_duplicate_keys,
    ".yml": yaml_duplicate_keys,
}


def duplicate_key_finder(path: str) -> DuplicateFinder | None:
    """What finds keys given twice in a file, by its path (JSON, JSON with comments, YAML); None
    for a file of no such language. TOML needs none: its parser refuses a key twice."""
    if matches_any(path, JSONC_FILES):
        return jsonc_duplicate_keys
    return _DUPLICATE_FINDERS.get(_suffix(path))


def read_json(content: bytes) -> Any:
    """The value a JSON document holds, or None when it cannot be read (not JSON, not text,
    nested too deep): whoever reads it asks for the shape it needs and finds none."""
    try:
        return json.loads(content)
    except (ValueError, *TOO_DEEP):
        return None


def read_toml(content: bytes) -> dict[str, Any] | None:
    """The table a TOML document holds, or None when it cannot be read (not TOML, not UTF-8,
    nested too deep, a number past what Python converts)."""
    try:
        return tomllib.loads(content.decode("utf-8"))
    except (ValueError, *TOO_DEEP):  # TOMLDecodeError and UnicodeDecodeError among them
        return None


def read_text(content: bytes) -> str | None:
    """The content as UTF-8 text, or None when it is not: line-based formats (go.mod, yarn.lock,
    Gemfile) are read as text or not at all."""
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None
