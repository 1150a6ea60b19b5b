"""What a landed tree declares to its hook managers, read statically: pre-commit's format
(`.pre-commit-config.yaml`, prek's `prek.toml` and nested configurations) and lefthook's (its main
file, local files and what it extends, review.project_hooks.sources says where; its format is
review.project_hooks.lefthook's), the hooks they run at the pre-commit stage, the remote hooks'
repositories and revs, and the repository files a local hook executes
(review.project_hooks.executed; what an approval pins of them: review.project_hooks.pin).

Nothing here runs anything; a configuration that cannot be read says why in one line.
"""

from __future__ import annotations

import enum
import json
import posixpath
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pygit2

from landwatch.lazy_re import lazy_compile
from landwatch.review.documents import load_yaml
from landwatch.review.jsonc import without_comments
from landwatch.review.pinned import pinned_file
from landwatch.review.project_hooks import lefthook, sources, values
from landwatch.review.project_hooks.executed import (
    beyond,
    executed,
    from_root,
    split,
    through_proc,
)
from landwatch.review.project_hooks.sources import PRE_COMMIT_CONFIGS, Tree
from landwatch.review.tree_links import followed

__all__ = ["PRE_COMMIT_CONFIGS", "Family", "HookSpec", "ManagerConfig", "declared"]

# The configuration files of one family read for their hooks: as many as the tree's search finds
# of them (a monorepo's projects each with its own, read by prek); past it, nothing runs.
MAX_FILES = sources.MAX_NAMED
# The characters of a family's commands split into words (a shell's way, which Python does at
# about a megabyte a second) before none is: a hostile configuration costs a bounded time.
MAX_COMMANDS = 1024 * 1024
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


class HookSpec(NamedTuple):
    """One hook as the configuration declares it: what `landwatch trust` shows of it."""

    id: str
    name: str
    entry: str  # what it runs (with its arguments)
    where: str  # `local`, or the repository and the revision its code comes from
    source: str = ""  # the configuration file that declares it, when not the family's root


class Remote(NamedTuple):
    """A repository of hooks a configuration names, and the rev written for it."""

    url: str
    rev: str


class ManagerConfig(NamedTuple):
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
        # Every spelling at the root (which one a tool takes has changed between releases);
        # below it, what prek reads: a vendored project's own in a hidden directory, or a
        # spelling prek passes over beside the one it takes, runs nothing, and is not counted.
        listed = sources.pre_commit_others(seen, root)
        taken = set(sources.read_by("prek", listed))
        others = [path for path in listed if "/" not in path or path in taken]
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


@dataclass
class _Read:
    """What the files of one family read so far declare."""

    hooks: list[HookSpec] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)  # (a command, from where)
    arguments: list[tuple[str, str]] = field(default_factory=list)  # a remote hook's `args`
    lines: list[lefthook.Line] = field(default_factory=list)  # lefthook's, made up at the end
    remotes: list[Remote] = field(default_factory=list)
    on_machine: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # lefthook's script names, and every directory it may look for them in
    scripts: list[str] = field(default_factory=list)
    script_dirs: list[str] = field(default_factory=lambda: list(sources.LEFTHOOK_SOURCE_DIRS))
    # lefthook's templates, and its commands' lines by name (`{cmd}`), of every file read
    templates: dict[str, list[str]] = field(default_factory=dict)
    runs: dict[str, list[str]] = field(default_factory=dict)


def _family(
    repo: pygit2.Repository, tree: Tree, family: Family, root: str, others: list[str]
) -> ManagerConfig:
    """The root file of a family and every other it reads, each read for its hooks."""
    read = [root, *others]
    known = set(read)
    found = _Read()
    index = 0
    while index < len(read) and index < MAX_FILES:
        path = read[index]
        index += 1
        document, problem = _document(repo, tree.tree, path)
        try:
            if document is None:
                found.problems.append(problem or f"{path} cannot be read")
            elif family is Family.PRE_COMMIT:
                _pre_commit_file(found, document, path, "" if path == root else path)
            else:
                _lefthook_file(found, document, "" if path == root else path)
                patterns = values.words(document.get("extends"))
                found.problems += [why for why in (beyond(tree.tree, p) for p in patterns) if why]
                more = [each for each in sources.extended(tree, patterns) if each not in known]
                read += more[: max(0, MAX_FILES + 1 - len(read))]  # one past: said below
                known.update(more)
        except values.TooMany as error:  # nothing of the family runs: read no further
            found.problems.append(f"{path} holds {error}: too many to pin what they run")
            break
    else:
        if len(read) > MAX_FILES:
            found.problems.append(
                f"{root} and the files it reads are more than {MAX_FILES} configuration "
                "files: too many to pin what they run"
            )
    if tree.cut:
        found.problems.append(
            "the tree is too large to search whole for configurations (a directory of over "
            f"{sources.MAX_ENTRIES:,} entries, more than {sources.MAX_NAMED} of them, or deeper "
            "than 64)"
        )
    pinned, outside = _executed(tree, found, root)
    problems = found.problems + outside
    return ManagerConfig(
        family,
        root,
        tuple(found.hooks),
        pinned,
        tuple(read[1:]),
        "; ".join(dict.fromkeys(problems)) if problems else None,
        tuple(dict.fromkeys(found.remotes)),
        tuple(dict.fromkeys(found.on_machine)),
    )


def _executed(tree: Tree, found: _Read, root: str) -> tuple[tuple[str, ...], list[str]]:
    """What the commands of a family run of the tree, pinned, and why one may not run (each a
    line): their words, lefthook's scripts where it looks for them, and a remote hook's args."""
    found.commands += _lefthook_commands(found)
    named = _named(found, root, found.commands)
    if len(found.scripts) > values.MAX_HOOKS:
        found.problems.append(
            f"{root} and the files it reads name more than {values.MAX_HOOKS} "
            "scripts: too many to pin what they run"
        )
    else:
        named += sources.lefthook_scripts(found.script_dirs, found.scripts)
    pinned, outside = executed(tree.tree, named)
    # A remote hook's args: what they name of the tree is pinned (its program may run it), and
    # a way back into the checkout (/proc, `..`) refused; an absolute pattern (`--exclude
    # /*/migrations/*`) is its program's to match, and names no file but through a shell.
    handed, back = executed(
        tree.tree,
        [path for path in _named(found, root, found.arguments) if not _absolute_pattern(path)],
    )
    return tuple(sorted({*pinned, *handed})), [*outside, *back]


def _absolute_pattern(path: str) -> bool:
    """A pattern a program matches (`/*/migrations/*`): absolute, a wildcard among its
    directories, not through /proc (`/proc/self/cwd/tools/arg[s].sh` runs that file; an audit)."""
    directories = posixpath.dirname(posixpath.normpath(path))
    return path.startswith("/") and any(c in directories for c in "*?[") and not through_proc(path)


def _pre_commit_file(found: _Read, document: dict[Any, Any], path: str, source: str) -> None:
    for spec, command, arguments, where in _pre_commit_hooks(document, posixpath.dirname(path)):
        found.hooks.append(spec._replace(source=source))
        found.commands.append((command, where))
        found.arguments.append((arguments, where))
    found.remotes += _remotes(document)
    found.on_machine += [
        (path, url) for url in _urls(document) if is_local_path(url) or url.startswith("file://")
    ]


def _named(found: _Read, root: str, read: list[tuple[str, str]]) -> list[str]:
    """The paths the words of the commands `read` may name (each split once), none past
    MAX_COMMANDS characters of them (then said, and nothing of the configuration runs)."""
    commands = dict.fromkeys(read)
    if sum(len(command) for command, _ in commands) > MAX_COMMANDS:
        found.problems.append(
            f"the commands of {root} and the files it reads hold more than {MAX_COMMANDS:,} "
            "characters: too many to pin what they run"
        )
        return []
    words = {command: split(command) for command, _ in commands}
    return [path for command, where in commands for path in from_root(words[command], where)]


def _lefthook_commands(found: _Read) -> list[tuple[str, str]]:
    """Each command line lefthook may make of its templates, and from where (made no further
    once they hold more than MAX_COMMANDS characters, which _named then says)."""
    commands: list[tuple[str, str]] = []
    size = 0
    for line in dict.fromkeys(found.lines):
        if size > MAX_COMMANDS:
            break
        made = lefthook.expanded(line, found.templates, found.runs)
        if made is None:
            shown = " ".join(line.text.split())[:80]
            found.problems.append(
                f"the templates of lefthook's command `{shown}` make more than "
                f"{lefthook.MAX_EXPANSIONS} commands of it, or one too long: too many to pin "
                "what they run"
            )
            continue
        commands += [(each, line.root) for each in made]
        size += sum(len(each) for each in made)
    return commands


def _lefthook_file(found: _Read, document: dict[Any, Any], source: str) -> None:
    for hook in lefthook.hooks(document):
        found.hooks.append(HookSpec(hook.name, hook.name, hook.entry, hook.where, source))
        found.lines += hook.lines
        found.runs.setdefault(hook.name, []).extend(line.text for line in hook.lines)
    found.lines += lefthook.around(document)
    for name, value in lefthook.templates(document).items():
        found.templates.setdefault(name, []).append(value)
    found.scripts += lefthook.scripts(document)
    found.script_dirs += [
        values.text(document[key]) for key in sources.SOURCE_DIRS if key in document
    ]


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
    for repository in values.mappings(document.get("repos")):
        url = values.text(repository.get("repo"))
        if url not in ("local", "meta") and not is_local_path(url):
            yield Remote(url, values.text(repository.get("rev")))


def _urls(document: dict[Any, Any]) -> Iterator[str]:
    for repository in values.mappings(document.get("repos")):
        yield values.text(repository.get("repo"))


# --- pre-commit's format ---


def _pre_commit_hooks(
    document: dict[Any, Any], base: str = ""
) -> Iterator[tuple[HookSpec, str, str, str]]:
    """(the hook, the command it runs, a remote hook's args, the directory they are relative to:
    the configuration's own, prek's project) of each hook the pre-commit stage runs, as this
    configuration spells them (a remote hook's own entry is its repository's, attack 112)."""
    default = _stages(document.get("default_stages"))
    count = 0
    for repository in values.mappings(document.get("repos")):
        url = values.text(repository.get("repo"))
        local = url in ("local", "meta")
        where = url if local else f"{url} at {values.text(repository.get('rev')) or '(no rev)'}"
        if is_local_path(url):
            where = f"{url}: local code, as each landing has it"
        for hook in values.mappings(repository.get("hooks")):
            count += 1
            values.at_most(count, values.MAX_HOOKS, "hooks")
            stages = _stages(hook.get("stages")) or default
            if stages and not any(stage in STAGES for stage in stages):
                continue
            identifier = values.text(hook.get("id"))
            # pre-commit hands each of args over as one word: quoted here, split back alike (an
            # audit: `tools/my script.sh` was two words, and pinned by neither).
            arguments = " ".join(shlex.quote(word) for word in values.words(hook.get("args")))
            entry = " ".join(part for part in (values.text(hook.get("entry")), arguments) if part)
            language = values.text(hook.get("language"))
            shown = f"{where}; {language}" if language else where
            shown_entry = entry or AS_DEFINED
            spec = HookSpec(
                identifier, values.text(hook.get("name")) or identifier, shown_entry, shown
            )
            if url == "local":
                yield spec, entry, "", base
            else:  # an entry spelt here is a command; args are handed to the remote's program
                yield spec, values.text(hook.get("entry")), arguments, base


def _stages(value: Any) -> list[str]:
    return values.words(value)
