"""What an approval of a repository's linters pins, by content: the committed `[[linters]]`
(their commands and all that decides what they run on) and the repository's configuration files
they are given, so that a change to any of it asks for trust again (landwatch.trust).

The files pinned: each file at the root of the tree with a name of CONFIGURATION (pyproject.toml
by its `[tool]` tables, so a new version number asks nothing), and each path a committed linter
names in `config`. Linters are given exactly these and the file they lint (wall.workspace).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import tomllib
from collections.abc import Iterable
from typing import Any, NamedTuple

import pygit2
from pygit2.enums import FileMode

from landwatch.lazy_re import lazy_compile
from landwatch.review.blobs import MISSING_CONTENT, blob_data, blob_size
from landwatch.review.config import PYPROJECT, LinterConfig
from landwatch.review.tree_links import followed, link_text

# Where linters find their own configuration, at the root of a project; many are code, or can
# name code to load (pylint's init-hook and plugins, eslint's flat config, rubocop's require).
CONFIGURATION = (
    *(PYPROJECT, "setup.cfg", "tox.ini", ".flake8", "mypy.ini", ".mypy.ini", "ruff.toml"),
    *(".ruff.toml", ".pylintrc", "pylintrc", ".pylintrc.toml", "pylintrc.toml", ".isort.cfg"),
    *(".pydocstyle", ".pydocstyle.ini", ".pycodestyle", ".bandit", "pyrightconfig.json"),
    *(".yamllint", ".yamllint.yaml", ".yamllint.yml", ".codespellrc", "_typos.toml", "typos.toml"),
    *(".typos.toml", ".eslintrc", ".eslintrc.*", "eslint.config.*", ".eslintignore"),
    *(".prettierrc", ".prettierrc.*", "prettier.config.*", ".prettierignore", ".stylelintrc"),
    *(".stylelintrc.*", "stylelint.config.*", "biome.json", "biome.jsonc", ".markdownlint*"),
    *("tsconfig.json", ".jshintrc", ".rubocop.yml", ".rubocop_todo.yml", ".standard.yml"),
    *(".shellcheckrc", ".hadolint.yaml", ".hadolint.yml", ".golangci.yml", ".golangci.yaml"),
    *(".golangci.toml", ".editorconfig", ".clang-tidy", ".clang-format", "rustfmt.toml"),
    *(".rustfmt.toml", "clippy.toml", ".clippy.toml", ".swiftlint.yml", ".luacheckrc"),
    *(".sqlfluff", ".vale.ini"),
)
# Names that tools take as code or configuration wherever they are, besides CONFIGURATION and
# every hidden file (.npmrc, .yarnrc.yml, .babelrc): a file being linted with such a name is
# written for its linter only where it is pinned (wall.workspace gives it on stdin only).
CODE = (
    *("conftest.py", "package.json", "Gemfile", "*.gemspec", "mise.toml", "*.config.js"),
    *("*.config.cjs", "*.config.mjs", "*.config.ts", "*.config.mts", "*.config.cts"),
)
_TAKEN = lazy_compile("|".join(fnmatch.translate(name) for name in (*CONFIGURATION, *CODE, ".*")))
# A configuration file larger than this is not given to linters (the review reads it whole).
MAX_PINNED_BYTES = 1024 * 1024


class PinnedFile(NamedTuple):
    path: str
    oid: str | None  # its blob, to show what changed since; None: not in the tree
    data: bytes | None  # what linters are given; None: not given (`why` says why)
    why: str = ""
    # A link: where it leads in the tree, and the blob of the file there ("": no file there);
    # None: outside the tree.
    target: tuple[str, str] | None = None


class Pinned(NamedTuple):
    """What trust is given to: the committed linters, the files they are given, one digest."""

    linters: tuple[LinterConfig, ...]
    files: tuple[PinnedFile, ...]
    digest: str

    def given(self) -> dict[str, bytes]:
        return {file.path: file.data for file in self.files if file.data is not None}

    def empty(self) -> bool:
        return not (self.linters or self.files)


def taken_as_configuration(path: str) -> bool:
    """Whether a tool may read a file of this name as its configuration, or as code."""
    return _TAKEN.fullmatch(path.rpartition("/")[2]) is not None


def pin(repo: pygit2.Repository, tree: pygit2.Tree, linters: Iterable[LinterConfig]) -> Pinned:
    """The committed `linters` and the configuration files of `tree` they would be given."""
    committed = tuple(linters)
    paths = {entry.name for entry in tree if entry.name and _configuration(entry.name)}
    paths.update(path for linter in committed for path in linter.config)
    files = tuple(pinned_file(repo, tree, path) for path in sorted(paths))
    return Pinned(committed, files, _digest(committed, files))


def _configuration(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in CONFIGURATION)


def pinned_file(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> PinnedFile:
    """A file of `tree` as an approval pins it: by its blob whatever its size (its content
    given when a regular file no larger than MAX_PINNED_BYTES), a link by its target and the
    target's blob."""
    try:
        entry = tree[path]
    except (KeyError, ValueError):
        return PinnedFile(path, None, None, "not in the tree")
    oid = str(entry.id)
    if entry.filemode == FileMode.LINK:
        return _link(tree, path, oid)
    if entry.filemode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
        return PinnedFile(path, oid, None, "not a regular file: not given")
    size = blob_size(repo, entry.id)
    if size is None:
        return PinnedFile(path, oid, None, MISSING_CONTENT)
    if size > MAX_PINNED_BYTES:
        return PinnedFile(path, oid, None, f"{size:,} bytes, too large to give: pinned by its blob")
    data = blob_data(repo, entry.id)
    if data is None:
        return PinnedFile(path, oid, None, MISSING_CONTENT)
    return PinnedFile(path, oid, data, "its [tool] tables" if path == PYPROJECT else "")


def _link(tree: pygit2.Tree, path: str, oid: str) -> PinnedFile:
    """A link, pinned by where it points and by what is there (its target re-pointed, or the
    file it points to changed, is a new approval); never given (its target may be outside)."""
    led = followed(tree, path)
    if led.path is None:
        return PinnedFile(path, oid, None, f"a link to {link_text(tree, path)}, outside the tree")
    if led.is_file():
        return PinnedFile(path, oid, None, f"a link to {led.path}: not given", (led.path, led.oid))
    what = f"the directory {led.path}" if led.mode == FileMode.TREE else f"{led.path}, no file"
    return PinnedFile(path, oid, None, f"a link to {what}", (led.path, ""))


def describe(linter: LinterConfig) -> list[Any]:
    """What a linter runs and on what (its severity aside): what trust is given to."""
    return [
        linter.name,
        linter.command,
        linter.format,
        linter.files,
        linter.pattern,
        linter.filter,
        linter.timeout,
        linter.config,
    ]


def _digest(linters: tuple[LinterConfig, ...], files: tuple[PinnedFile, ...]) -> str:
    described = sorted(json.dumps(describe(linter)) for linter in linters)
    contents = [[file.path, file.why, content_digest(file)] for file in files]
    document = json.dumps({"linters": described, "files": contents})
    return hashlib.sha256(document.encode()).hexdigest()


def content_digest(file: PinnedFile) -> str | None:
    """The digest of what is pinned of a file: its bytes; of pyproject.toml, its `[tool]` tables
    but landwatch's own (its linters are pinned as linters), when it can be read; of a file not
    given (too large, a link), its blob, and a link's target's blob."""
    if file.data is None:
        if file.oid is None:
            return None
        if file.target is None:
            return file.oid
        return f"{file.oid} -> {file.target[0]} {file.target[1]}"
    tools = tool_tables(file)
    if tools is not None:
        canonical = json.dumps(tools, sort_keys=True, default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()
    return hashlib.sha256(file.data).hexdigest()


def tool_tables(file: PinnedFile) -> dict[str, Any] | None:
    """What is pinned of a pyproject.toml read as TOML: its `[tool]` tables but landwatch's
    own; None when the file is pinned whole (any other file, or one that does not read)."""
    if file.path != PYPROJECT or file.data is None:
        return None
    try:
        tools = tomllib.loads(file.data.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None  # unreadable: pinned whole, as any other file
    if not isinstance(tools, dict):
        return None
    tools.pop("landwatch", None)
    return tools
