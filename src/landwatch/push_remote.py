"""What a push's remote holds, as this repository can tell without asking it: the remotes at a
URL, their own tracking refs, and whether those stand for the push's destination (fetched from
the same place, agreeing with what it says it holds); the same place remembered for the hook;
the commits at a remote's own tracking refs where they stand for it (the share kind's notes);
where a push of a branch goes, as git's own push of it would send it (auto-push's).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass

from landwatch import layout
from landwatch.files import read_file, write_atomic
from landwatch.git import GitError, git, run_git

# The remotes remembered as one place under two spellings (fetch and push URL), at most.
MOST_REMEMBERED = 64


def tracking_ref(remote: str, target: str) -> str:
    """The tracking ref of `remote`'s branch `target` (refs/heads/X), where git keeps it."""
    return f"refs/remotes/{remote}/{target.removeprefix('refs/heads/')}"


def is_url(remote: str) -> bool:
    """Whether `remote` is a URL or a path git pushes to, not a remote's name."""
    return any(mark in remote for mark in (":", "/", "\\")) or remote in (".", "..")


def remotes_at(git_dir: os.PathLike[str] | str, url: str) -> list[str]:
    """The remotes named in the configuration whose URL is `url` (a push given a URL)."""
    listing = git("config", "--get-regexp", r"^remote\..*\.url$", cwd=git_dir, check=False)
    names = []
    for line in listing.splitlines():
        key, _, value = line.partition(" ")
        if value == url:
            names.append(key.removeprefix("remote.").removesuffix(".url"))
    return names


def own_tracking(name: str, remotes: list[str]) -> list[str]:
    """rev-list's arguments naming remote `name`'s own tracking refs, of the configured `remotes`:
    `--remotes=pub` takes a remote pub/internal's too, excluded here (relative to refs/remotes/,
    as git matches them there); none for corp/public beside corp, whose public/* are there too."""
    if any(name.startswith(f"{other}/") for other in remotes):
        return []
    nested = [f"--exclude={other}/*" for other in remotes if other.startswith(f"{name}/")]
    return [*nested, f"--remotes={name}"]


def tracking_stands(
    git_dir: os.PathLike[str] | str, name: str, destination: str, held_at: Mapping[str, str]
) -> bool:
    """Whether remote `name`'s tracking refs can stand for what the push's `destination` holds:
    they are fetched from there, and agree with what it says it holds at each branch pushed
    (`held_at`: the commit at each remote ref, as pre-push's stdin says it). A
    push URL elsewhere, a `git remote set-url` since the last fetch (a private history pushed to
    a new public repository), a branch deleted there: they are another place's, and unread."""
    fetched = git("remote", "get-url", name, cwd=git_dir, check=False)
    if not fetched or not same_place(fetched, destination):
        return False
    prefix = f"refs/remotes/{name}/"
    listing = git("for-each-ref", "--format=%(refname) %(objectname)", prefix, cwd=git_dir)
    tracking = dict(line.partition(" ")[::2] for line in listing.splitlines())
    for ref, held in held_at.items():
        if ref.startswith("refs/heads/"):
            said = tracking.get(prefix + ref.removeprefix("refs/heads/"))
            if said is not None and said != held:
                return False
    if fetched != destination:
        with contextlib.suppress(OSError):  # remembered for speed alone: Python is asked again
            remember_same_place(git_dir, name, fetched, destination)
    return True


def own_tips(git_dir: os.PathLike[str] | str, name: str) -> list[str]:
    """The commits at remote `name`'s own tracking refs (own_tracking), where they stand for where
    it is pushed to (tracking_stands, nothing pushed to agree with); none else, nor for a URL."""
    remotes = git("remote", cwd=git_dir, check=False).splitlines()
    own = own_tracking(name, remotes) if name in remotes else []
    if not own:
        return []
    destination = git("remote", "get-url", "--push", "--", name, cwd=git_dir, check=False)
    try:
        if not destination or not tracking_stands(git_dir, name, destination, {}):
            return []
    except GitError:  # tracking refs unreadable tell nothing of what the remote holds
        return []
    listed = run_git("rev-parse", *own, cwd=git_dir)
    return sorted(set(listed.stdout.split())) if listed.ok else []


def remember_same_place(
    git_dir: os.PathLike[str] | str, name: str, fetched: str, pushed_to: str
) -> None:
    """Remote `name` fetched from `fetched` and pushed to `pushed_to`, one place (same_place),
    written where the pre-push hook's quick path reads it: a push URL spelled apart from the
    fetch URL (pushurl, pushInsteadOf) then starts no Python when there is nothing to say."""
    line = f"{name}\t{fetched}\t{pushed_to}"
    if any(char in line for char in "\n\0") or not same_place(fetched, pushed_to):
        return
    common = layout.common_dir(git_dir)
    place = layout.SAME_PLACE.path(git_dir)
    try:
        known = read_file(place, trusted=common).decode("utf-8", "replace").splitlines()
    except FileNotFoundError:
        known = []
    if line in known:
        return
    kept = [*known, line][-MOST_REMEMBERED:]
    write_atomic(place, "".join(f"{each}\n" for each in kept), trusted=common)


def same_place(one: str, other: str) -> bool:
    """Whether two URLs name one repository, as git writes them either way (`git@host:a/b.git`,
    `ssh://git@host:22/a/b`, `https://host/a/b/`; a path and its `file://` URL)."""
    return _place(one) == _place(other)


# The port each scheme git speaks reaches when a URL names none: naming it is naming none.
_DEFAULT_PORTS = {"ssh": 22, "git+ssh": 22, "ssh+git": 22, "https": 443, "http": 80, "git": 9418}


def _place(url: str) -> tuple[str, str]:
    """(host, path) of a URL, the host with a port other than its scheme's own, the path without
    a trailing `/` or `.git` (hosts serve both); a local one's host empty, its path resolved and
    kept whole: `/srv/p` and `/srv/p.git` are two directories."""
    from urllib.parse import urlsplit

    host, path = "", url
    if "://" in url:
        split = urlsplit(url)
        host, path = (split.hostname or "").lower(), split.path
        try:
            port = split.port
        except ValueError:  # no number: kept as written, one place with that spelling alone
            host = split.netloc.rpartition("@")[2].lower()
            port = None
        if port is not None and port != _DEFAULT_PORTS.get(split.scheme.lower()):
            host = f"{host}:{port}"
        if split.scheme == "file":
            host = ""
    elif ":" in url.partition("/")[0]:  # scp's `[user@]host:path`, always ssh's own port
        login, _, path = url.partition(":")
        host = login.rpartition("@")[2].lower()
    if not host:
        return host, os.path.realpath(path)
    return host, path.rstrip("/").removesuffix(".git").lstrip("/")


@dataclass(frozen=True)
class Destination:
    """Where auto-push sends a branch: `ref`, a branch of the remote; or nowhere, `what` saying why,
    `how` what to do, `setting` the remote, branch and configuration that decided (said once)."""

    ref: str | None
    what: str = ""
    how: str = ""
    setting: str = ""


def destination(git_dir: os.PathLike[str] | str, remote: str, branch: str) -> Destination:
    """Where `git push REMOTE refs/heads/BRANCH` sends the branch, as git 2.39 decides it
    (builtin/push.c): where remote.REMOTE.push maps it, else under push.default = upstream its
    upstream, else its own name. Nowhere where that is no branch (Gerrit's refs/for/*), where
    remote.REMOTE.push is set and maps it nowhere (git would push it to its own name, not where
    the person's pushes go), or where it is an upstream of another name (a feature branch made
    from origin/main: work in progress published to main)."""
    source = f"refs/heads/{branch}"
    mapping = git("config", "--get-all", f"remote.{remote}.push", cwd=git_dir, check=False)
    if mapping:
        mapped = pushed_to(mapping.splitlines(), source)
        setting = f"{remote} {branch}\nremote.{remote}.push {mapping}"
        if mapped is None:
            return Destination(
                None,
                f"remote.{remote}.push names no branch {branch} goes to",
                f"push it by hand where you mean it to go, or map it in remote.{remote}.push",
                setting,
            )
        if not mapped.startswith("refs/heads/"):
            return Destination(
                None,
                f"remote.{remote}.push sends {branch} to {mapped}, no branch",
                "auto-push updates branches alone: push it by hand",
                setting,
            )
        return Destination(mapped)
    # `tracking` is git's older name for `upstream`.
    if (default := git("config", "push.default", cwd=git_dir, check=False)) in _UPSTREAM:
        merged = git("config", "--get-all", f"branch.{branch}.merge", cwd=git_dir, check=False)
        if len(merged.splitlines()) == 1 and merged != source:
            return Destination(
                None,
                f"push.default = {default} sends {branch} to {merged}, its upstream",
                "auto-push publishes no work in progress to another branch: push it by hand, "
                f"or once to its own name (git push -u {remote} {branch})",
                f"{remote} {branch}\npush.default {default}\nbranch.{branch}.merge {merged}",
            )
    return Destination(source)


_UPSTREAM = ("upstream", "tracking")


def pushed_to(refspecs: list[str], source: str) -> str | None:
    """Where the push refspecs `refspecs` send the ref `source`, as git's query_refspecs finds
    it: the first with a destination whose source takes it (a `*` standing for the same text on
    both sides); nowhere when a negative one (`^`) takes it, which git 2.39's push of the branch
    by name passes by, but the person's own pushes leave it out."""
    kept = []
    for refspec in refspecs:
        refspec = refspec.removeprefix("+")
        if refspec.startswith("^"):
            if _taken(refspec[1:], source) is not None:
                return None
            continue
        pattern, colon, mapped = refspec.partition(":")
        if colon and mapped:
            kept.append((pattern, mapped))
    for pattern, mapped in kept:
        if (star := _taken(pattern, source)) is not None:
            return mapped.replace("*", star, 1) if "*" in pattern else mapped
    return None


def _taken(pattern: str, name: str) -> str | None:
    """What the `*` of `pattern` stands for in `name` ("" when `pattern` is `name` itself), or
    None when `pattern` does not take `name`."""
    if "*" not in pattern:
        return "" if pattern == name else None
    head, _, tail = pattern.partition("*")
    if len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail):
        return name[len(head) : len(name) - len(tail)]
    return None
