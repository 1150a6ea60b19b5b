"""What a landed tree declares to its hook managers, read statically: pre-commit's format
(`.pre-commit-config.yaml`, prek's `prek.toml` and nested configurations) and lefthook's (its main
file, local files and what it extends, review.project_hooks.sources says where), the hooks they
run at the pre-commit stage, the remote hooks' repositories and revs, and the repository files a
local hook executes (what an approval pins of them: review.project_hooks.pin).

Nothing here runs anything; a configuration that cannot be read says why in one line.
"""

from __future__ import annotations

import enum
import json
import posixpath
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pygit2

from landwatch.lazy_re import lazy_compile
from landwatch.review.documents import load_yaml
from landwatch.review.jsonc import without_comments
from landwatch.review.pinned import pinned_file
from landwatch.review.project_hooks import sources
from landwatch.review.project_hooks.sources import PRE_COMMIT_CONFIGS, Tree
from landwatch.review.tree_links import followed, link_text

__all__ = ["PRE_COMMIT_CONFIGS", "Family", "HookSpec", "ManagerConfig", "declared"]

# What a configuration may hold before the rest is not read: a hostile one (a YAML alias bomb
# repeats one mapping endlessly) costs a bounded walk.
MAX_HOOKS = 500
MAX_WORDS = 64
MAX_FILES = 64  # configuration files of one family read for their hooks
# The stage landwatch runs (pre-commit's old name for it is `commit`).
STAGES = ("pre-commit", "commit")
# What a remote hook runs when the configuration does not say: its own repository's manifest.
AS_DEFINED = "(as its repository defines it)"
# Where pre-commit looks for a repository of hooks on this machine rather than a remote's: a
# path (`repo: .`, `../hooks`), not a URL. Its code is the repository's, as it is at each build.
_URL = lazy_compile(r"^[a-z][a-z0-9+.-]*://|^[^/:]+@[^/:]+:")


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
    source: str = ""  # the configuration file that declares it, when not the family's root


@dataclass(frozen=True)
class Remote:
    """A repository of hooks a configuration names, and the rev written for it."""

    url: str
    rev: str


@dataclass(frozen=True)
class ManagerConfig:
    """One hook manager's configuration in a tree and the hooks it runs at the pre-commit stage."""

    family: Family
    path: str
    hooks: tuple[HookSpec, ...] = ()
    executed: tuple[str, ...] = ()  # repository files a local hook executes, and links on the way
    read: tuple[str, ...] = ()  # other configuration files the manager reads or merges in
    problem: str | None = None  # why it cannot be read (then nothing of it runs)
    remotes: tuple[Remote, ...] = ()  # pre-commit's remote repositories of hooks
    # (the file naming it, a repository of hooks on this machine: `repo: .`, a path, file://)
    on_machine: tuple[tuple[str, str], ...] = ()

    def describe(self) -> tuple[str, ...]:
        """A line per hook, as `landwatch trust` shows it and an approval keeps it."""
        return tuple(
            f"{hook.source or self.path}: {hook.id}: {hook.entry}  [{hook.where}]"
            for hook in self.hooks
        )


def is_local_path(url: str) -> bool:
    """Whether a hook repository is a path on this machine (`.`, `../hooks`, `/srv/hooks`),
    which pre-commit clones as it is when it builds, rather than a remote at a rev."""
    return url not in ("local", "meta") and _URL.match(url) is None


def declared(repo: pygit2.Repository, tree: pygit2.Tree) -> list[ManagerConfig]:
    """The hook managers' configurations of `tree` (where the tools look for them), in the order
    pre-commit, lefthook: each its root file, every other file it reads, their hooks."""
    seen = Tree(tree)
    found = []
    root = sources.pre_commit_root(seen)
    if root is not None:
        others = sources.pre_commit_others(seen, root)
        found.append(_family(repo, seen, Family.PRE_COMMIT, root, others))
    root = sources.lefthook_root(seen)
    if root is not None:
        found.append(
            _family(repo, seen, Family.LEFTHOOK, root, sources.lefthook_others(seen, root))
        )
    return found


def declares_hooks(tree: pygit2.Tree) -> bool:
    """Whether `tree` has a configuration of a hook manager at its root (nothing is read)."""
    seen = Tree(tree)
    return sources.pre_commit_root(seen) is not None or sources.lefthook_root(seen) is not None


def _family(
    repo: pygit2.Repository, tree: Tree, family: Family, root: str, others: list[str]
) -> ManagerConfig:
    """The root file of a family and every other it reads, each read for its hooks."""
    read = [root, *others]
    hooks: list[tuple[HookSpec, list[str], str]] = []
    remotes: list[Remote] = []
    on_machine: list[tuple[str, str]] = []
    problems = []
    # lefthook's script names, and every directory it may look for them in
    scripts: list[str] = []
    script_dirs = list(sources.LEFTHOOK_SOURCE_DIRS)
    index = 0
    while index < len(read) and index < MAX_FILES:
        path = read[index]
        index += 1
        document, problem = _document(repo, tree.tree, path)
        if document is None:
            problems.append(problem or f"{path} cannot be read")
            continue
        source = "" if path == root else path
        if family is Family.PRE_COMMIT:
            for spec, words, where in _pre_commit_hooks(document, posixpath.dirname(path)):
                hooks.append((replace(spec, source=source), words, where))
            remotes += _remotes(document)
            on_machine += [
                (path, url)
                for url in _urls(document)
                if is_local_path(url) or url.startswith("file://")
            ]
        else:
            for spec, words, where in _lefthook_hooks(document):
                hooks.append((replace(spec, source=source), words, where))
            scripts += _lefthook_scripts(document)
            script_dirs += [_text(document[key]) for key in sources.SOURCE_DIRS if key in document]
            extends = sources.extended(tree, _words(document.get("extends")))
            read += [more for more in extends if more not in read]
    if tree.cut:
        problems.append(
            "the tree is too large to search whole for configurations (a directory of over "
            f"{sources.MAX_ENTRIES:,} entries, more than {sources.MAX_NAMED} of them, or deeper "
            "than 64)"
        )
    named = [path for _, words, where in hooks for path in _repository_paths(words, where)]
    named += sources.lefthook_scripts(script_dirs, scripts[:MAX_HOOKS])
    executed, outside = _executed(tree.tree, named)
    problems += outside
    return ManagerConfig(
        family,
        root,
        tuple(spec for spec, _, _ in hooks),
        executed,
        tuple(read[1:]),
        "; ".join(problems) if problems else None,
        tuple(dict.fromkeys(remotes)),
        tuple(dict.fromkeys(on_machine)),
    )


def _document(
    repo: pygit2.Repository, tree: pygit2.Tree, path: str
) -> tuple[dict[Any, Any] | None, str | None]:
    """A configuration file read as its extension says (YAML, TOML, JSON, JSON with comments)."""
    import yaml  # here, not at the top: a review of a repository declaring no hooks never reads one

    through = followed(tree, path).links
    if through:
        # The manager would read what is there; a configuration is read and pinned only where
        # it is itself, a regular file, so one reached through a link runs nothing.
        return None, (
            f"{path} is read through the link {through[0]}: a configuration is read only as a "
            "regular file at its own path"
        )
    data = pinned_file(repo, tree, path).data
    if data is None:
        return None, f"{path} is not a regular file under 1 MB"
    kind = path.rpartition(".")[2]
    form = {"toml": "TOML", "json": "JSON", "jsonc": "JSON"}.get(kind, "YAML")
    try:
        if kind == "toml":
            document: Any = tomllib.loads(data.decode("utf-8"))
        elif kind in ("json", "jsonc"):
            document = json.loads(without_comments(data))
        else:
            document = load_yaml(data)
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError) as error:
        said = str(error).strip().splitlines() or ["unreadable"]
        return None, f"{path} is not {form}: {said[0][:200]}"
    if not isinstance(document, dict):
        return None, f"{path} is not a mapping"
    return document, None


def _remotes(document: dict[Any, Any]) -> Iterator[Remote]:
    for repository in _mappings(document.get("repos")):
        url = _text(repository.get("repo"))
        if url not in ("local", "meta") and not is_local_path(url):
            yield Remote(url, _text(repository.get("rev")))


def _urls(document: dict[Any, Any]) -> Iterator[str]:
    for repository in _mappings(document.get("repos")):
        yield _text(repository.get("repo"))


# --- pre-commit's format ---


def _pre_commit_hooks(
    document: dict[Any, Any], base: str = ""
) -> Iterator[tuple[HookSpec, list[str], str]]:
    """(the hook, the words it runs, the directory they are relative to: the configuration's
    own, prek's project) of each hook the pre-commit stage runs; a remote hook's words are its
    repository's, not this one's; a repository of hooks on this machine is local code."""
    default = _stages(document.get("default_stages"))
    count = 0
    for repository in _mappings(document.get("repos")):
        url = _text(repository.get("repo"))
        local = url in ("local", "meta")
        where = url if local else f"{url} at {_text(repository.get('rev')) or '(no rev)'}"
        if is_local_path(url):
            where = f"{url}: local code, as each landing has it"
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
            shown_entry = entry or AS_DEFINED
            spec = HookSpec(identifier, _text(hook.get("name")) or identifier, shown_entry, shown)
            yield spec, words, base


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
    for job in _lefthook_jobs(hook, MAX_HOOKS - count):
        run = _text(job.get("run")) or _text(job.get("script"))
        name = _text(job.get("name")) or run
        yield HookSpec(name, name, run, "lefthook"), _split(_text(job.get("run"))), _root(job)


def _lefthook_jobs(hook: dict[Any, Any], most: int) -> Iterator[dict[Any, Any]]:
    """The jobs of a lefthook hook, each group's after the others (at most `most` looked at)."""
    pending = list(_mappings(hook.get("jobs")))
    count = 0
    while pending and count < most:
        job = pending.pop(0)
        count += 1
        group = job.get("group")
        if isinstance(group, dict):
            pending.extend(_mappings(group.get("jobs")))
        else:
            yield job


def _root(command: dict[Any, Any]) -> str:
    return _text(command.get("root")).strip("/")


def _lefthook_scripts(document: dict[Any, Any]) -> list[str]:
    """The names of the scripts lefthook runs for the pre-commit hook: its `scripts` and the
    `script` of each job."""
    hook = document.get("pre-commit")
    if not isinstance(hook, dict):
        return []
    scripts = hook.get("scripts")
    names = [str(name) for name in list(scripts)[:MAX_HOOKS]] if isinstance(scripts, dict) else []
    jobs = _lefthook_jobs(hook, MAX_HOOKS)
    return names + [_text(job.get("script")) for job in jobs if _text(job.get("script"))]


# --- what the hooks execute of the repository ---


def _repository_paths(words: list[str], root: str) -> Iterator[str]:
    """The words of a command that may name a file of the tree, as paths from the tree's root
    (a word from `root`, the directory the command runs in): what it may execute of the
    repository, or hand to an interpreter (`python scripts/check.py`)."""
    for word in words[:MAX_WORDS]:
        if word and not word.startswith(("-", "/")) and "{" not in word:
            yield f"{posixpath.normpath(root or '.')}/{word}"


def _executed(tree: pygit2.Tree, paths: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Of the paths a hook may run, as the system opens them: every entry of the tree that
    decides what runs (each link on the way, and the file it leads to), and why one may not
    run: a link leading outside the tree, where what runs is nothing an approval pins."""
    executed: set[str] = set()
    outside: dict[str, None] = {}
    for path in paths:
        led = followed(tree, path)
        executed.update(led.links)
        if led.is_file() and led.path is not None:
            executed.add(led.path)
        if led.path is None and led.links:  # (without a link, `..` names nothing of the tree)
            left = led.links[-1]
            text = link_text(tree, left)
            outside[f"{left} is a link to {text}, outside the tree, where nothing is pinned"] = None
    return tuple(sorted(executed)), list(outside)


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
