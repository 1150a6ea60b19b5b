"""Where each hook manager reads configuration in a landed tree, every spelling and place it
looks (seen with pre-commit 4.7, prek 0.5.11 and lefthook 2.2.2), so that trust pins all of it:

- pre-commit: `.pre-commit-config.yaml` (or `.yml`) at the root;
- prek: `prek.toml` before those, and in workspace mode every one of the three names below the
  root too, each running on the files below it;
- lefthook: the first of its main files (`lefthook.yml`, `.lefthook.yml`, `.config/lefthook.yml`,
  and the `.yaml`, `.toml`, `.json`, `.jsonc` spellings), merged with every `-local` file of those
  spellings and places, and with what `extends:` names (globs expanded, in any of them); and its
  scripts, looked for in each of its source directories (`lefthook_scripts`).

Trust pins all of them; a tool run reads fewer (`read_by`): pre-commit its
`.pre-commit-config.yaml` alone, prek one file a directory. Nothing here runs anything; the tree is
walked once, boundedly.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterator, Sequence

import pygit2
from pygit2.enums import FileMode

from landwatch.review.project_hooks.values import at_most
from landwatch.review.tree_links import followed

PRE_COMMIT_CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
PREK_CONFIG = "prek.toml"
# What prek reads as a project's configuration, wherever it is in the tree.
PRE_COMMIT_FAMILY = (PREK_CONFIG, *PRE_COMMIT_CONFIGS)
_LEFTHOOK_FORMATS = ("yml", "yaml", "toml", "json", "jsonc")
_LEFTHOOK_PLACES = ("{}", ".{}", ".config/{}")
LEFTHOOK_CONFIGS = tuple(
    place.format(f"lefthook.{ext}") for ext in _LEFTHOOK_FORMATS for place in _LEFTHOOK_PLACES
)
LEFTHOOK_LOCAL = tuple(
    place.format(f"lefthook-local.{ext}") for ext in _LEFTHOOK_FORMATS for place in _LEFTHOOK_PLACES
)
# Where lefthook 2.2 looks for a script (`<directory>/pre-commit/<name>`): each of these, and
# where the configuration's keys SOURCE_DIRS say.
LEFTHOOK_SOURCE_DIRS = (
    ".lefthook",
    ".lefthook-local",
    ".config/lefthook",
    ".config/lefthook-local",
)
SOURCE_DIRS = ("source_dir", "source_dir_local")
# A tree with more entries than this is searched no further for nested configurations: the
# search says so, and what it could not see is not trusted to run (review.project_hooks.pin).
MAX_ENTRIES = 200_000
# The `extends:` globs of one family's files expanded over the tree, in all.
MAX_GLOBS = 64
_FILE_MODES = (FileMode.BLOB, FileMode.BLOB_EXECUTABLE, FileMode.LINK)
_DIRECTORY = int(FileMode.TREE)


class Tree:
    """A landed tree's paths, listed once and only when first asked (most trees need only
    their root's names); the nested configurations found through _NESTED's memory of subtrees."""

    def __init__(self, tree: pygit2.Tree) -> None:
        self.tree = tree
        self._paths: list[str] | None = None
        self._links: list[str] = []  # of the paths, the links (noted as the walk meets them)
        self._linked: list[str] | None = None  # of the links, those leading to a directory
        self.cut = False  # more than MAX_ENTRIES: the listing is not whole
        self.globs = 0  # `extends:` globs expanded over it so far (at most MAX_GLOBS)

    def named(self, names: tuple[str, ...]) -> list[str]:
        """Every file of the tree with one of `names`, at any depth: a subtree seen before (by
        its id; one landing changes a few) is not walked again."""
        found, cut = _named(self.tree, names, 0)
        self.cut = self.cut or cut
        return list(found)

    def has(self, path: str) -> bool:
        """Whether a tool opening `path` finds something of the tree: a file, or a link there,
        or a file a linked directory on the way leads to."""
        led = followed(self.tree, path)
        return led.is_file() or path in led.links

    def linked_directories(self) -> list[str]:
        """Every link of the tree that leads to a directory of it (followed once: a glob's
        expansion asked again for each of thousands of links took hours)."""
        if self._linked is None:
            self.paths()
            self._linked = [
                path for path in self._links if followed(self.tree, path).mode == _DIRECTORY
            ]
        return self._linked

    def paths(self) -> list[str]:
        """Every file and link of the tree (at most MAX_ENTRIES entries looked at)."""
        if self._paths is None:
            self._paths = list(self._walk())
        return self._paths

    def _walk(self) -> Iterator[str]:
        pending: list[tuple[str, pygit2.Tree]] = [("", self.tree)]
        seen = 0
        while pending:
            prefix, tree = pending.pop()
            for entry in tree:
                seen += 1
                if seen > MAX_ENTRIES:
                    self.cut = True
                    return
                path = f"{prefix}{entry.name}"
                if entry.filemode == FileMode.TREE:
                    inner = self.tree[path]
                    if isinstance(inner, pygit2.Tree):
                        pending.append((f"{path}/", inner))
                elif entry.filemode in _FILE_MODES:
                    if entry.filemode == FileMode.LINK:
                        self._links.append(path)
                    yield path


# (subtree id, names) -> the paths below it with one of the names, and whether the search there
# was cut (more than MAX_ENTRIES entries, or than MAX_NAMED found). Kept for the warm worker's
# next landing, which changes a few subtrees; a tree that holds one subtree many times (a "tree
# bomb" of few objects) is walked once per subtree.
_NESTED: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, ...], bool]] = {}
_NESTED_MOST = 100_000
MAX_NAMED = 256


def _named(tree: pygit2.Tree, names: tuple[str, ...], depth: int) -> tuple[tuple[str, ...], bool]:
    key = (str(tree.id), names)
    if key in _NESTED:
        return _NESTED[key]
    found: list[str] = []
    cut = len(tree) > MAX_ENTRIES or depth > 64
    for entry in list(tree)[:MAX_ENTRIES] if not cut else []:
        name = entry.name or ""
        if entry.filemode == FileMode.TREE and name.startswith("."):
            continue  # prek's workspace discovery passes over hidden directories; so does this
        if entry.filemode == FileMode.TREE:
            inner = tree[name]
            if isinstance(inner, pygit2.Tree):
                below, inner_cut = _named(inner, names, depth + 1)
                found += [f"{name}/{path}" for path in below]
                cut = cut or inner_cut
        elif name in names and entry.filemode in _FILE_MODES:
            found.append(name)
        if len(found) > MAX_NAMED:
            found, cut = found[:MAX_NAMED], True
            break
    if len(_NESTED) >= _NESTED_MOST:
        _NESTED.clear()
    _NESTED[key] = (tuple(found), cut)
    return _NESTED[key]


def pre_commit_root(tree: Tree) -> str | None:
    """The root configuration of pre-commit's format, as prek picks it (prek.toml first)."""
    return next((name for name in PRE_COMMIT_FAMILY if tree.has(name)), None)


def pre_commit_others(tree: Tree, root: str) -> list[str]:
    """Every other configuration of pre-commit's format in the tree: the root's other
    spellings (pre-commit reads the YAML where prek reads prek.toml) and prek's nested ones."""
    return sorted(path for path in tree.named(PRE_COMMIT_FAMILY) if path != root)


def read_by(tool: str, paths: Sequence[str]) -> list[str]:
    """Of a family's configuration files, those `tool` reads run at the root (seen with
    pre-commit 4.7 and prek 0.5.11): pre-commit its `.pre-commit-config.yaml` alone; prek, in
    each directory not hidden, the first of PRE_COMMIT_FAMILY there; lefthook all it merges."""
    if tool == "lefthook":
        return list(paths)
    if tool == "pre-commit":
        return [path for path in paths if path == PRE_COMMIT_CONFIGS[0]]
    chosen: dict[str, str] = {}
    for name in PRE_COMMIT_FAMILY:  # in prek's order: a directory's first is the one it reads
        for path in paths:
            directory, _, base = path.rpartition("/")
            # prek's workspace discovery passes over hidden directories.
            if base == name and not any(part.startswith(".") for part in directory.split("/")):
                chosen.setdefault(directory, path)
    return sorted(chosen.values())


def lefthook_root(tree: Tree) -> str | None:
    return next((name for name in LEFTHOOK_CONFIGS if tree.has(name)), None)


def lefthook_others(tree: Tree, root: str) -> list[str]:
    """The other main spellings there (lefthook picks one of them unpredictably when several
    are) and every `-local` file it merges."""
    return [
        name for name in (*LEFTHOOK_CONFIGS, *LEFTHOOK_LOCAL) if name != root and tree.has(name)
    ]


def extended(tree: Tree, patterns: list[str]) -> list[str]:
    """The files of the tree an `extends:` list names, its globs expanded (`shared/*.yml`); a
    glob that lefthook would expand through a linked directory gives that link (which is read
    as no configuration), not what it leads to."""
    found: list[str] = []
    for pattern in patterns:
        path = posixpath.normpath(pattern.removeprefix("./"))
        if path.startswith(("../", "/")) or path in ("..", "."):
            continue  # outside the tree: nothing pinned is there (executed.beyond says why)
        if any(char in path for char in "*?["):
            # Each glob is a walk of every path of the tree: a few in all are what lefthook's
            # configurations use, and past them the configuration runs nothing (TooMany).
            tree.globs += 1
            at_most(tree.globs, MAX_GLOBS, "`extends:` globs")
            found += [each for each in tree.paths() if fnmatch.fnmatchcase(each, path)]
            found += [link for link in tree.linked_directories() if _crosses(path, link)]
        elif tree.has(path):
            found.append(path)
    return sorted(set(found))


def _crosses(pattern: str, link: str) -> bool:
    """Whether a glob's leading parts match a linked directory: Go's glob lists what it leads
    to (fnmatch's `*` takes `/` too, so it says so more often than lefthook goes there)."""
    parts = pattern.split("/")
    depth = link.count("/") + 1
    return depth < len(parts) and fnmatch.fnmatchcase(link, "/".join(parts[:depth]))


def lefthook_scripts(directories: list[str], names: list[str]) -> list[str]:
    """Where lefthook looks for each script named: `<directory>/pre-commit/<name>` from the root,
    in each directory, joined as Go joins paths (`..` taken away before any link is followed)."""
    return [
        posixpath.normpath(f"./{directory}/pre-commit/{name}")
        for directory in dict.fromkeys(directories)
        for name in dict.fromkeys(names)
    ]
