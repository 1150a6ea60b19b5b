"""A remote hook's `rev` held to the commit it named when the person trusted it: resolved then
(`git ls-remote`, in an empty directory: wall.door.outside), kept with the approval, and written
over the name in the checkout's configurations before the manager runs, so that a tag moved
upstream afterwards, or a branch, runs nothing new. A `rev` that is a commit id is its own. Each
configuration is read back as the manager reads it: a trusted rev it still reads as its name
(given through a YAML merge key or alias, which is not written over) runs nothing.

What could not be resolved (offline, a name the remote does not have) runs what the name points
at when its environment is built, as pre-commit itself would; `landwatch trust` said so.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from landwatch.files import is_directory, read_file
from landwatch.lazy_re import lazy_compile
from landwatch.review.documents import load_yaml, yaml_loader
from landwatch.review.project_hooks.config import Family, ManagerConfig, Remote
from landwatch.review.project_hooks.sources import PRE_COMMIT_FAMILY
from landwatch.wall.door import outside
from landwatch.wall.installations import Unseen, homes, meets, own_places
from landwatch.wall.project_hooks.checkout import Checkout

# (repository, rev as written) -> the commit id it named when trusted.
Resolved = dict[tuple[str, str], str]
COMMIT_ID = lazy_compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
LS_REMOTE_TIMEOUT = 30.0
_TOML_REV = lazy_compile(r"""(?m)\brev\s*=\s*("[^"\\\n]*"|'[^'\n]*')""")
# Where no hook repository is shown from, whatever a configuration names, besides the person's
# own places: what every user writes (/tmp, /var/tmp: a Kerberos ticket), every process and
# device of the machine (/proc: command lines; /sys, /dev), the sessions' sockets and secrets
# (/run, /run/user). The build that clones it has the network.
_NEVER = ("/proc", "/sys", "/dev", "/tmp", "/var/tmp", "/run")  # noqa: S108


class RevError(Exception):
    """A configuration's hook repositories cannot be held to what was trusted (a rev not written
    as its commit, a repository on this machine not to be shown); nothing runs."""


def resolve(remote: Remote) -> tuple[str | None, str]:
    """The commit `remote.rev` names now, and a line saying how it was found, or why not."""
    if COMMIT_ID.fullmatch(remote.rev):
        return remote.rev, "a commit id"
    if not remote.rev or remote.rev.startswith("-") or remote.url.startswith("-"):
        return None, "no rev to resolve"
    try:
        said = outside(
            # The peeled line of an annotated tag matches only a pattern of its own.
            ["git", "ls-remote", "--", remote.url, remote.rev, f"{remote.rev}^{{}}"],
            timeout=LS_REMOTE_TIMEOUT,
        )
    except OSError as error:
        return None, f"git ls-remote could not run ({error})"
    if not said.ok:
        lines = [line for line in said.stderr.strip().splitlines() if line.strip()]
        fatal = [line for line in lines if line.startswith("fatal:")]
        return None, (fatal or lines or ["git ls-remote failed"])[0][:200]
    refs = dict(
        (name, oid) for oid, _, name in (line.partition("\t") for line in said.stdout.splitlines())
    )
    for name in (f"refs/tags/{remote.rev}^{{}}", f"refs/tags/{remote.rev}"):
        if name in refs:
            return refs[name], "a tag: held to the commit it names now"
    if f"refs/heads/{remote.rev}" in refs:
        return refs[f"refs/heads/{remote.rev}"], "a branch: held to its commit now"
    return None, f"{remote.rev} is not a tag or branch of {remote.url}"


def local_path(url: str, root: Path) -> Path | None:
    """Where a hook repository on this machine is, for the environment build to clone it: `.`
    is the checkout; an absolute path or a file:// URL only where it is a git repository in no
    place _not_shown refuses (RevError else, saying why); None for the rest."""
    if url == ".":
        return root
    path = url.removeprefix("file://")
    if not path.startswith("/"):
        return None  # a remote, or a path from the checkout, which the build sees anyway
    # Where it is, links and `..` followed as the wall's bind follows them; and where it is
    # written, for a place like /proc/self/cwd leads elsewhere for each process that opens it.
    found = Path(os.path.realpath(path))
    why = _not_shown(found) or _not_shown(Path(os.path.normpath(path)), repository=False)
    if why is not None:
        named = url if str(found) == path else f"{url} ({found})"
        raise RevError(f"the hook repository {named} is not shown to the environment build: {why}")
    return found


def _not_shown(found: Path, *, repository: bool = True) -> str | None:
    """Why the build, which has the network, is not shown `found` (nor, with `repository`,
    anything but a git repository); None: it may be."""
    never = (*_NEVER, tempfile.gettempdir())
    places: list[Unseen] = [
        *((place, "yours", True) for place in own_places()),
        *((Path(place), "never in the wall's sight", True) for place in never),
        # On a shared machine, other people's repositories are as far out of sight as yours.
        *homes(yours=True),
    ]
    why = meets(found, places)
    if why is None and repository and not _is_repository(found):
        return "it is not a git repository"
    return why


def _is_repository(path: Path) -> bool:
    """A git repository's top, as a clone takes it: a `.git` directory there (not a link, nor a
    `.git` file naming a directory elsewhere, out of sight), or a bare repository's own files."""
    if is_directory(path / ".git"):
        return True
    bare = (path / "HEAD").is_file() and (path / "objects").is_dir()
    return bare and (path / "refs").is_dir()


def pin_in_checkout(place: Checkout, declared: ManagerConfig, resolved: Resolved) -> frozenset[str]:
    """Every configuration of pre-commit's format in the checkout, its remote revs written as
    the commits trusted; the paths rewritten (not the hooks' fixes)."""
    if declared.family is not Family.PRE_COMMIT or not resolved:
        return frozenset()
    rewritten = set()
    # A committed link is read where it points within the checkout, as the manager reads it;
    # one that leaves it (a FIFO, /dev/zero, a file of the person's) is not opened.
    root = place.root.resolve()
    for path in (declared.path, *declared.read):
        if path.rpartition("/")[2] not in PRE_COMMIT_FAMILY:
            continue
        file = (place.root / path).resolve()
        try:
            text = read_file(file, trusted=root).decode("utf-8")
        except (OSError, ValueError):
            continue  # not checked out here (a directory the change does not touch), or not in it
        pinned = _toml(text, resolved) if path.endswith(".toml") else _yaml(text, resolved)
        if pinned != text:
            file.write_text(pinned, encoding="utf-8")
            rewritten.add(path)
    return frozenset(rewritten)


def _yaml(text: str, resolved: Resolved) -> str:
    """`rev:` scalars replaced where they stand (comments, anchors and the rest kept)."""
    try:
        root = yaml.compose(text, Loader=yaml_loader())
    except (yaml.YAMLError, RecursionError) as error:
        raise RevError(f"cannot read the configuration to pin its revs: {error}") from None
    edits = []
    for repository in _repository_nodes(root):
        fields = {
            key.value: value
            for key, value in repository.value
            if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode)
        }
        url, rev = fields.get("repo"), fields.get("rev")
        if url is not None and rev is not None:
            commit = resolved.get((url.value, rev.value))
            if commit is not None and commit != rev.value:
                edits.append((rev.start_mark.index, rev.end_mark.index, f'"{commit}"'))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    # Read back as the manager reads it, edited or not: a rev a merge key gives (`<<: *hooks`)
    # is written nowhere above, and would be built by its name.
    try:
        document = load_yaml(text)
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        raise RevError(f"cannot read the configuration to pin its revs: {error}") from None
    _check(document, resolved)
    return text


def _repository_nodes(root: Any) -> Iterable[yaml.MappingNode]:
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if key.value == "repos" and isinstance(value, yaml.SequenceNode):
            return [item for item in value.value if isinstance(item, yaml.MappingNode)]
    return []


def _toml(text: str, resolved: Resolved) -> str:
    """prek.toml's `rev = "..."` values replaced, matched in order to its repositories."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RevError(f"cannot read the configuration to pin its revs: {error}") from None
    wanted = [
        (str(each.get("repo", "")), str(each["rev"]))
        for each in _repositories(document)
        if "rev" in each
    ]
    found = list(_TOML_REV.finditer(text))
    if len(found) != len(wanted):
        raise RevError("cannot tell which repository each rev of the configuration is")
    for match, key in reversed(list(zip(found, wanted, strict=True))):
        commit = resolved.get(key)
        if commit is not None and match[1][1:-1] == key[1]:
            text = text[: match.start(1)] + f'"{commit}"' + text[match.end(1) :]
    _check(tomllib.loads(text), resolved)
    return text


def _repositories(document: Any) -> list[dict[str, Any]]:
    repos = document.get("repos") if isinstance(document, dict) else None
    return [each for each in repos if isinstance(each, dict)] if isinstance(repos, list) else []


def _check(document: Any, resolved: Resolved) -> None:
    """Every remote trusted at a commit now reads as that commit (RevError otherwise)."""
    for each in _repositories(document):
        key = (str(each.get("repo", "")), str(each.get("rev", "")))
        if key in resolved and resolved[key] != key[1]:
            raise RevError(
                f"the rev of {key[0]} ({key[1]}) could not be written as the commit trusted: "
                "write `rev:` plainly in that repository's own entry (not through a YAML alias "
                "or merge key, nor escaped)"
            )
