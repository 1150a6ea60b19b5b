"""Reading committed files, never raising: the syntax of the languages the review parses (Python,
JSON, JSON with comments, TOML, YAML), the keys one mapping gives twice, and whole documents.

Every function answers for any bytes. A document nested past what Python's parsers can hold
(RecursionError, MemoryError), or holding a number past what Python converts, gets the answer
"cannot tell": no duplicate, nothing read, and for its syntax NESTED, which the syntax rule says
in a note; never an exception out of a review.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

from landwatch.lazy_re import lazy_compile
from landwatch.review import jsonc
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


# The syntax functions' answer for a document nested past the parser: neither an error nor none.
NESTED: Problem = (None, "nested deeper than Python's parser reads: its syntax was not checked")


class NestedTooDeep(Exception):
    """Raised by the syntax rule for a document NESTED: its review notes the syntax unchecked."""


# JSON its tools read with comments and trailing commas: VS Code and what it hosts (settings,
# workspaces, dev containers), TypeScript, and the tools that parse their own configuration
# (Biome, Deno, Turborepo, oxlint, oxfmt, swc, API Extractor, TypeDoc).
JSONC_FILES = (
    "*.jsonc",
    "tsconfig*.json",
    "jsconfig*.json",
    ".vscode/*.json",
    "*.code-workspace",
    "devcontainer.json",
    ".devcontainer.json",
    ".devcontainer/*.json",
    "biome.json",
    "deno.json",
    "turbo.json",
    ".oxlintrc.json",
    ".oxfmtrc.json",
    ".swcrc",
    "api-extractor.json",
    "typedoc.json",
)
# JSON its tools read with comments but no trailing comma: ESLint and TSLint strip comments,
# then hand the rest to JSON.parse.
COMMENTED_JSON_FILES = (".eslintrc.json", "tslint.json")
# JSON read by a plain JSON parser (npm's, Composer's): a comment there is an error like any
# other. Any other `.json` holding a comment outside its strings is read as JSON with comments.
STRICT_JSON_FILES = ("package.json", "package-lock.json", "npm-shrinkwrap.json", "composer.json")


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
        return NESTED  # an expression nested past the parser's stack: cannot tell
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
        return NESTED  # valid however deep, only past what Python's parser can nest
    return None


def jsonc_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of JSON with comments and trailing commas (JSONC_FILES), or None: the
    document read with both blanked, so the line of an error is still the file's."""
    return _commented_syntax_error(text, trailing_commas=True)


def commented_json_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of JSON with comments but no trailing commas (COMMENTED_JSON_FILES), or
    None: a trailing comma is JSON's error, as JSON.parse says it after comments are stripped."""
    return _commented_syntax_error(text, trailing_commas=False)


def any_json_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a `.json` file no tool is known to read, or None: JSON's, unless the
    file holds comments outside its strings; then it is read as commented JSON (no trailing
    commas), since whoever wrote them reads it with a parser that takes them."""
    error = json_syntax_error(text)
    if error is None:
        return None
    stripped = jsonc.strip(text, trailing_commas=False)
    return _stripped_syntax_error(stripped) if stripped.comments else error


def _commented_syntax_error(text: bytes, *, trailing_commas: bool) -> Problem | None:
    return _stripped_syntax_error(jsonc.strip(text, trailing_commas=trailing_commas))


def _stripped_syntax_error(stripped: jsonc.Stripped) -> Problem | None:
    if stripped.unclosed is not None:
        return stripped.unclosed, "a comment opened with /* is never closed"
    return json_syntax_error(stripped.text)


def toml_syntax_error(text: bytes) -> Problem | None:
    """The syntax error of a TOML document, or None, with the line tomllib names; a key given
    twice is one, since TOML forbids it."""
    import tomllib  # 3 ms: only where a TOML file is read

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
        return NESTED  # valid however deep, only past what Python's parser can nest
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
# A JSON string a colon follows, on one line (a JSON string holds no line end).
_KEY = lazy_compile(rb'("(?:[^"\\\n]|\\.)*+")\s*+:')


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
        return NESTED  # nested past what the pure-Python composer can recurse: cannot tell
    return None


def _application_tag(document: Any) -> Any:
    """The first node of a composed document whose tag is not one of YAML's own, or None."""
    import yaml  # only for YAML files: most reviews have none

    pending = [document]
    seen: set[int] = set()
    while pending:  # a list, not recursion: a deep document costs no stack
        node = pending.pop()
        if id(node) in seen:
            continue  # an alias: the same node again (nine of nine of nine... would be 9**n)
        seen.add(id(node))
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
    ".json": ("JSON", any_json_syntax_error),
    ".toml": ("TOML", toml_syntax_error),
    ".yaml": ("YAML", yaml_syntax_error),
    ".yml": ("YAML", yaml_syntax_error),
}
# Every file syntax_check has a check for.
SYNTAX_CHECKED = (*(f"*{suffix}" for suffix in _SYNTAX_CHECKS), *JSONC_FILES)


def _suffix(path: str) -> str:
    return "." + path.rsplit(".", 1)[-1] if "." in path else ""


def syntax_check(path: str) -> tuple[str, SyntaxCheck] | None:
    """The language a file is written in, by its path, and the check of its syntax; None for a
    file of no language read here. JSON is read as its tool reads it (JSONC_FILES,
    COMMENTED_JSON_FILES, STRICT_JSON_FILES); the YAML GitHub Actions reads takes no tags."""
    if matches_any(path, JSONC_FILES):
        return "JSON with comments", jsonc_syntax_error
    if matches_any(path, COMMENTED_JSON_FILES):
        return "JSON with comments", commented_json_syntax_error
    if matches_any(path, STRICT_JSON_FILES):
        return "JSON", json_syntax_error
    if matches_any(path, GITHUB_ACTIONS_FILES):
        return "GitHub Actions YAML", github_actions_syntax_error
    return _SYNTAX_CHECKS.get(_suffix(path))


def json_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one JSON object, with the line of its second giving when a line
    holds it; nothing for text that is not JSON (a syntax error is another question)."""
    return _json_duplicates(text) or []


def jsonc_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one object of JSON with comments: json_duplicate_keys of the
    document with its comments and trailing commas blanked (line numbers kept)."""
    return _json_duplicates(jsonc.without_comments(text)) or []


def any_json_duplicate_keys(text: bytes) -> list[Duplicate]:
    """Each key given twice in one object of a `.json` file no tool is known to read: read as
    JSON, or, when that fails, as JSON with comments (as any_json_syntax_error reads it)."""
    found = _json_duplicates(text)
    return found if found is not None else jsonc_duplicate_keys(text)


def _json_duplicates(text: bytes) -> list[Duplicate] | None:
    """The keys json_duplicate_keys answers, or None for text that is not JSON."""
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
        return None  # not JSON, or nested past what Python's parser can read: cannot tell
    # Each key's lines, from one pass over the file's keys: not a search of every line for each
    # key (4,000 keys given twice in 110 KB took 33 s). A key as json.dumps writes it.
    wanted = {json.dumps(key).encode(): key for key in dict.fromkeys(duplicates)}
    lines_of: dict[bytes, list[int]] = {}
    for number, line in enumerate(text.split(b"\n"), 1):
        for match in _KEY.finditer(line):
            if match[1] in wanted:
                at = lines_of.setdefault(match[1], [])
                if len(at) < 2 and number not in at:
                    at.append(number)
    return [
        (key, at[1] if len(at := lines_of.get(needle, [])) > 1 else None)
        for needle, key in wanted.items()
    ]


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
    ".json": any_json_duplicate_keys,
    ".yaml": yaml_duplicate_keys,
    ".yml": yaml_duplicate_keys,
}


def duplicate_key_finder(path: str) -> DuplicateFinder | None:
    """What finds keys given twice in a file, by its path (JSON, JSON with comments, YAML); None
    for a file of no such language. TOML needs none: its parser refuses a key twice."""
    if matches_any(path, (*JSONC_FILES, *COMMENTED_JSON_FILES)):
        return jsonc_duplicate_keys
    if matches_any(path, STRICT_JSON_FILES):
        return json_duplicate_keys
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
    import tomllib

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
