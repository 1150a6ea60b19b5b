"""What a landed tree declares to its hook managers, read statically: `.pre-commit-config.yaml`
(pre-commit and prek) and `lefthook.yml`, the hooks they run at the pre-commit stage, and the
repository files a local hook executes (what an approval pins of them: review.project_hooks.pin).

Nothing here runs anything; a configuration that cannot be read says why in one line.
"""

from __future__ import annotations

import enum
import posixpath
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pygit2
import yaml
from pygit2.enums import FileMode

from landwatch.review.documents import load_yaml
from landwatch.review.pinned import pinned_file

PRE_COMMIT_CONFIGS = (".pre-commit-config.yaml", ".pre-commit-config.yml")
LEFTHOOK_CONFIGS = ("lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml")
# lefthook merges these over the main configuration when they are there (usually not committed).
LEFTHOOK_LOCAL = (
    "lefthook-local.yml",
    ".lefthook-local.yml",
    "lefthook-local.yaml",
    ".lefthook-local.yaml",
)
# What a configuration may hold before the rest is not read: a hostile one (a YAML alias bomb
# repeats one mapping endlessly) costs a bounded walk.
MAX_HOOKS = 500
MAX_WORDS = 64
# The stage landwatch runs (pre-commit's old name for it is `commit`).
STAGES = ("pre-commit", "commit")


class Family(enum.StrEnum):
    """Which tools read a configuration: pre-commit's format (pre-commit, prek), lefthook's."""

    PRE_COMMIT = "pre-commit"
    LEFTHOOK = "lefthook"


@dataclass(frozen=True)
class HookSpec:
    """One hook as the configuration declares it: what `landwatch trust` shows of it."""

    id: str
    name: str
    entry: str  # what it runs (with its arguments)
    where: str  # `local`, or the repository and the revision its code comes from


@dataclass(frozen=True)
class ManagerConfig:
    """One hook manager's configuration in a tree and the hooks it runs at the pre-commit stage."""

    family: Family
    path: str
    hooks: tuple[HookSpec, ...] = ()
    executed: tuple[str, ...] = ()  # repository files a local hook executes
    read: tuple[str, ...] = ()  # other configuration files the manager merges in
    problem: str | None = None  # why it cannot be read (then nothing of it runs)

    def describe(self) -> tuple[str, ...]:
        """A line per hook, as `landwatch trust` shows it and an approval keeps it."""
        return tuple(f"{self.path}: {hook.id}: {hook.entry}  [{hook.where}]" for hook in self.hooks)


def declared(repo: pygit2.Repository, tree: pygit2.Tree) -> list[ManagerConfig]:
    """The hook managers' configurations at the root of `tree` (the first of each family's
    names, as the tools look for them), in the order pre-commit, lefthook."""
    found = []
    for family, names in (
        (Family.PRE_COMMIT, PRE_COMMIT_CONFIGS),
        (Family.LEFTHOOK, LEFTHOOK_CONFIGS),
    ):
        name = next((name for name in names if name in tree), None)
        if name is not None:
            found.append(_read(repo, tree, family, name))
    return found


def declares_hooks(tree: pygit2.Tree) -> bool:
    """Whether `tree` has a configuration of a hook manager at its root (nothing is read)."""
    return any(name in tree for name in (*PRE_COMMIT_CONFIGS, *LEFTHOOK_CONFIGS))


def _read(repo: pygit2.Repository, tree: pygit2.Tree, family: Family, path: str) -> ManagerConfig:
    data = pinned_file(repo, tree, path).data
    if data is None:
        return ManagerConfig(family, path, problem=f"{path} is not a regular file under 1 MB")
    try:
        document = load_yaml(data)
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        said = str(error).strip().splitlines() or ["unreadable"]
        return ManagerConfig(family, path, problem=f"{path} is not YAML: {said[0][:200]}")
    if not isinstance(document, dict):
        return ManagerConfig(family, path, problem=f"{path} is not a mapping")
    if family is Family.PRE_COMMIT:
        hooks = list(_pre_commit_hooks(document))
    else:
        hooks = list(_lefthook_hooks(document))
    executed = sorted(
        {path for _, words, root in hooks for path in _repository_paths(tree, words, root)}
    )
    read: list[str] = []
    if family is Family.LEFTHOOK:
        executed = sorted({*executed, *_lefthook_scripts(tree, document)})
        read = [
            name
            for name in (*LEFTHOOK_LOCAL, *_words(document.get("extends")))
            if _is_file(tree, name)
        ]
    return ManagerConfig(
        family, path, tuple(spec for spec, _, _ in hooks), tuple(executed), tuple(read)
    )


def _is_file(tree: pygit2.Tree, path: str) -> bool:
    try:
        return tree[path].filemode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)
    except (KeyError, ValueError):
        return False


# --- pre-commit's format ---


def _pre_commit_hooks(document: dict[Any, Any]) -> Iterator[tuple[HookSpec, list[str], str]]:
    """(the hook, the words it runs, the directory they are relative to) of each hook the
    pre-commit stage runs; a remote hook's words are its repository's, not this one's."""
    default = _stages(document.get("default_stages"))
    count = 0
    for repository in _mappings(document.get("repos")):
        url = _text(repository.get("repo"))
        local = url in ("local", "meta")
        where = url if local else f"{url} at {_text(repository.get('rev')) or '(no rev)'}"
        for hook in _mappings(repository.get("hooks")):
            count += 1
            if count > MAX_HOOKS:
                return
            stages = _stages(hook.get("stages")) or default
            if stages and not any(stage in STAGES for stage in stages):
                continue
            identifier = _text(hook.get("id"))
            entry = " ".join(
                part for part in (_text(hook.get("entry")), *_words(hook.get("args"))) if part
            )
            language = _text(hook.get("language"))
            shown = f"{where}; {language}" if language else where
            words = _split(entry) if url == "local" else []
            shown_entry = entry or "(as its repository defines it)"
            spec = HookSpec(identifier, _text(hook.get("name")) or identifier, shown_entry, shown)
            yield spec, words, ""


def _stages(value: Any) -> list[str]:
    return _words(value)


# --- lefthook's format ---


def _lefthook_hooks(document: dict[Any, Any]) -> Iterator[tuple[HookSpec, list[str], str]]:
    """Each command, script and job of the `pre-commit` hook (groups walked, boundedly)."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return
    count = 0
    commands = hook.get("commands")
    for name, command in commands.items() if isinstance(commands, dict) else ():
        count += 1
        if count > MAX_HOOKS or not isinstance(command, dict):
            continue
        run = _text(command.get("run"))
        yield HookSpec(str(name), str(name), run, "lefthook"), _split(run), _root(command)
    scripts = hook.get("scripts")
    for name, script in scripts.items() if isinstance(scripts, dict) else ():
        count += 1
        if count > MAX_HOOKS:
            continue
        runner = _text(script.get("runner")) if isinstance(script, dict) else ""
        yield HookSpec(str(name), str(name), f"{runner} {name}".strip(), "lefthook script"), [], ""
    pending = list(_mappings(hook.get("jobs")))
    while pending and count < MAX_HOOKS:
        job = pending.pop(0)
        count += 1
        group = job.get("group")
        if isinstance(group, dict):
            pending.extend(_mappings(group.get("jobs")))
            continue
        run = _text(job.get("run")) or _text(job.get("script"))
        name = _text(job.get("name")) or run
        yield HookSpec(name, name, run, "lefthook"), _split(_text(job.get("run"))), _root(job)


def _root(command: dict[Any, Any]) -> str:
    return _text(command.get("root")).strip("/")


def _lefthook_scripts(tree: pygit2.Tree, document: dict[Any, Any]) -> list[str]:
    """The script files lefthook runs for the pre-commit hook: every file of
    `<source_dir>/pre-commit/` (and of the local source directory), as lefthook finds them."""
    found = []
    for key, default in (("source_dir", ".lefthook"), ("source_dir_local", ".lefthook-local")):
        directory = (_text(document.get(key)) or default).strip("/")
        try:
            scripts = tree[f"{directory}/pre-commit"]
        except (KeyError, ValueError):
            continue
        if isinstance(scripts, pygit2.Tree):
            found += [
                f"{directory}/pre-commit/{entry.name}"
                for entry in list(scripts)[:MAX_HOOKS]
                if entry.filemode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)
            ]
    return found


# --- what the hooks execute of the repository ---


def _repository_paths(tree: pygit2.Tree, words: list[str], root: str) -> Iterator[str]:
    """The words of a command that name a file of the tree (from `root`): what it executes of
    the repository, or hands to an interpreter (`python scripts/check.py`)."""
    for word in words[:MAX_WORDS]:
        if not word or word.startswith("-") or "{" in word:
            continue
        path = posixpath.normpath(posixpath.join(root, word)) if root else posixpath.normpath(word)
        if path.startswith(("../", "/")) or path in ("..", "."):
            continue
        if _is_file(tree, path):
            yield path


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


# --- reading YAML's values without trusting their shape ---


def _mappings(value: Any) -> Iterator[dict[Any, Any]]:
    if isinstance(value, list):
        for item in value[:MAX_HOOKS]:
            if isinstance(item, dict):
                yield item


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value[:MAX_WORDS] if isinstance(item, str | int | float)]
    return []


def _text(value: Any) -> str:
    return str(value) if isinstance(value, str | int | float) else ""
