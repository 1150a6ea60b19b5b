"""The landed commit's content for the project's hooks to run on: a private repository of its own
(borrowing the repository's objects, so nothing is copied), checked out sparsely, then removed
whatever happens. Never the person's worktree, which may have moved on or be dirty; never a
registered worktree (`git worktree add` would run the repository's post-checkout hook, and show
in `git worktree list`).

Sparse: the files of the changed files' directories and of the directories above them (siblings
for imports, each level's configuration files), those of the files the hooks execute, the root's
files, in git's cone mode (each directory's files, hashed: 30 ms where matching patterns took
150 ms on 10,000 files). A change spread over too many directories is checked out whole.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from landwatch.files import is_directory, read_file, remove, write_atomic
from landwatch.review.binary import looks_binary
from landwatch.review.project_hooks.fixed import FileFix, Hunk
from landwatch.wall.door import preparing
from landwatch.wall.held import held_directory

# Past this many directories a sparse pattern list costs more than writing the files.
MAX_SPARSE_DIRECTORIES = 400
GIT_TIMEOUT = 120.0
# A fix larger than this is described, not kept.
MAX_PATCH_BYTES = 1024 * 1024
# Said when the hooks left no directory where their checkout was (a link, a file, nothing).
REPLACED = (
    "the hooks replaced their checkout (a link, a file or nothing is where it was): what they "
    "changed is not read"
)
# Escaped in a sparse-checkout pattern: what gitignore's syntax reads as a wildcard or marker.
_SPECIAL = frozenset("\\*?[]! #")


class CheckoutError(Exception):
    """The landed commit could not be checked out; one line saying why."""


@dataclass(frozen=True)
class Fixes:
    """What the hooks changed in a checkout of the files given them: the files, the change as a
    patch `git apply` takes (empty when it is larger than MAX_PATCH_BYTES), and each text
    file's fix line by line; and the other files of the checkout they changed (a formatter run
    on all of it), which are not the commit's to fix."""

    changed: list[str] = field(default_factory=list)
    patch: str = ""
    lines: dict[str, FileFix] = field(default_factory=dict)
    refused: str = ""  # why nothing of the checkout was read: the hooks replaced it
    beside: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Checkout:
    """A checkout of one landed commit: its worktree, its git dir (read-only behind the wall),
    the blob of every file checked out, noted before anything of the repository ran, and the
    commit."""

    root: Path
    held: dict[str, str] = field(default_factory=dict)
    commit: str = ""
    # The files git converted as it wrote them (`eol=crlf`, `ident`): the hash of what it wrote,
    # and those bytes where they are small enough to make a patch from.
    written: dict[str, tuple[str, bytes | None]] = field(default_factory=dict)

    @property
    def git_dir(self) -> Path:
        return self.root / ".git"

    @contextmanager
    def own_objects(self) -> Iterator[None]:
        """Within, the checkout holds its commit's own objects (not its history) and borrows
        none: all a build, which has the network, may read of the repository. After, it borrows
        them again for the hooks, written from the scratch directory down (no link followed)."""
        alternates = self.git_dir / "objects" / "info" / "alternates"
        shallow = self.git_dir / "shallow"
        borrowed = alternates.read_bytes()
        said = preparing(
            ["pack-objects", "--revs", "--window=0", "-q", ".git/objects/pack/pack"],
            self.root,
            timeout=GIT_TIMEOUT,
            input=f"{self.commit}\n--shallow {self.commit}\n",  # its parents left out
        )
        if not said.ok:
            raise CheckoutError(f"git pack-objects {self.commit[:12]}: {_said(said.stderr)}")
        # git takes a commit whose parents are not there for a shallow clone's edge.
        shallow.write_text(f"{self.commit}\n")
        alternates.unlink()
        yield  # not again on an error: nothing more runs on the checkout
        scratch = self.root.parent
        write_atomic(alternates, borrowed, trusted=scratch, durable=False, make_directory=False)
        remove(shallow, trusted=scratch)

    def fixes(
        self,
        repo: pygit2.Repository,
        given: Collection[str],
        unchanged: frozenset[str] = frozenset(),
    ) -> Fixes:
        """What the hooks changed of the files `given` them, and which others they changed (but
        `unchanged`, which landwatch wrote). Read without git:
        the checkout's git dir is the hooks' to have touched, and nothing they could write
        there runs. Read from the scratch directory down, following no link: the hooks could
        write there, and leave a link to any directory of the person's in the checkout's place
        (the scratch directory itself, where the wall shows it, cannot be moved)."""
        scratch = self.root.parent
        if not is_directory(self.root):
            return Fixes(refused=REPLACED)
        changed, beside, patches = list[str](), list[str](), list[str]()
        lines: dict[str, FileFix] = {}
        size = 0
        ours = set(given)
        for path, oid in sorted(self.held.items()):
            if path in unchanged:
                continue
            now, unreadable = _read_now(self.root / path, scratch)
            if unreadable:  # a link now, a directory, or too large: told, not kept
                (changed if path in ours else beside).append(path)
                size += MAX_PATCH_BYTES + 1 if path in ours else 0  # ours: described, no patch
                continue
            # Against what git wrote: a file it converted is not the blob (an audit: every
            # `eol=crlf` file was told changed by hooks that changed nothing).
            written, before = self.written.get(path, (oid, b""))
            if now is not None and str(pygit2.hash(now)) == written:
                continue
            if path not in ours:
                beside.append(path)
                continue
            changed.append(path)
            old = repo[oid] if path not in self.written else before
            if old is None or len(now or b"") > MAX_PATCH_BYTES:  # described, not patched
                size = MAX_PATCH_BYTES + 1
                continue
            if not isinstance(old, pygit2.Blob | bytes):
                continue
            text = pygit2.Patch.create_from(
                old, now, old_as_path=path, new_as_path=path, flag=_BINARY
            ).text
            size += len((text or "").encode("utf-8", "surrogateescape"))
            patches.append(text or "")
            binary = old.is_binary if isinstance(old, pygit2.Blob) else looks_binary(old)
            if now is not None and not binary:
                lines[path] = _line_by_line(old, now)
        patch = "" if size > MAX_PATCH_BYTES else "".join(patches)
        return Fixes(changed, patch, lines, beside=beside)


def _read_now(place: Path, scratch: Path) -> tuple[bytes | None, bool]:
    """A file of the checkout as the hooks left it: its bytes (None: removed), and whether it
    could not be read (a link now, a directory, past files.MAX_READ). One larger than a patch
    is kept for is read all the same: compared, an audit found every file past 1 MB told as
    changed by hooks that changed nothing."""
    try:
        return read_file(place, trusted=scratch), False
    except FileNotFoundError:
        return None, False
    except OSError:
        return None, True


_BINARY = pygit2.enums.DiffOption.SHOW_BINARY
_LINE_ENDS = pygit2.enums.DiffOption.IGNORE_WHITESPACE_EOL


def _line_by_line(old: pygit2.Blob | bytes, now: bytes) -> FileFix:
    """A file's fix as hunks without context: with whitespace at line ends ignored (which moves
    no line), and exactly."""
    moved, exact = (
        pygit2.Patch.create_from(old, now, context_lines=0, flag=flag).hunks
        for flag in (_LINE_ENDS, pygit2.enums.DiffOption.NORMAL)
    )
    return FileFix(
        tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in moved),
        tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in exact),
    )


@contextmanager
def landed(
    objects: Path, oid: str, paths: Iterable[str], parent: Path | None
) -> Iterator[Checkout]:
    """The commit `oid` checked out (sparsely, holding `paths`) in a private repository under
    `parent` reading its objects from `objects` (never a link); removed however the block ends."""
    if objects.is_symlink():
        # bwrap's bind follows it: an archive's `.git/objects` linked to a home or landwatch's
        # state would show that whole. A repository's own objects are where it keeps them.
        raise CheckoutError(
            "the repository's objects directory is a link, which would show the hooks all it "
            "leads to: they are shown only the objects its git dir holds itself"
        )
    with held_directory(parent, "hooks-") as scratch:
        root = scratch / "work"
        _init(root, objects, sparse_patterns(paths))
        said = preparing(["read-tree", "-m", "-u", oid], root, timeout=GIT_TIMEOUT)
        if not said.ok:
            raise CheckoutError(f"git read-tree {oid[:12]}: {_said(said.stdout + said.stderr)}")
        (root / ".git" / "HEAD").write_text(f"{oid}\n")
        repo = pygit2.Repository(str(root))
        held, written = _held(root, repo, repo[oid].peel(pygit2.Commit).tree)
        yield Checkout(root, held, oid, written)


def _held(
    root: Path, repo: pygit2.Repository, tree: pygit2.Tree
) -> tuple[dict[str, str], dict[str, tuple[str, bytes | None]]]:
    """The blob of each regular file read-tree wrote (the sparse ones only), noted before any
    hook ran: the checkout is walked, not the index, which lists the whole tree; and what git
    wrote of those it converted (a size other than the blob's: crlf, ident, an encoding)."""
    held, written = {}, {}
    for directory, directories, files in os.walk(root):
        if directory == str(root):
            directories[:] = [name for name in directories if name != ".git"]
        for name in files:
            place = os.path.join(directory, name)
            path, status = os.path.relpath(place, root), os.lstat(place)
            if not stat.S_ISREG(status.st_mode):
                continue
            try:
                held[path] = str(tree[path].id)
            except (KeyError, ValueError):
                continue  # not the commit's (nothing else is there yet)
            if repo.odb.read_header(held[path])[1] != status.st_size:
                written[path] = _as_written(place, root)
    return held, written


def _as_written(place: str, root: Path) -> tuple[str, bytes | None]:
    """A checked-out file's hash as a blob, and its bytes where a patch may be made of them; one
    past files.MAX_READ is not read (nor can fixes read it: it is told changed either way)."""
    try:
        data = read_file(place, trusted=root)
    except OSError:
        return "", None
    return str(pygit2.hash(data)), data if len(data) <= MAX_PATCH_BYTES else None


def _init(root: Path, objects: Path, patterns: list[str] | None) -> None:
    said = preparing(["init", "-q", "--template=", str(root)], root.parent, timeout=GIT_TIMEOUT)
    if not said.ok:
        raise CheckoutError(f"git init: {_said(said.stderr)}")
    git_dir = root / ".git"
    (git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
    # The path as git reads it, its own bytes (a repository whose path is not UTF-8 too).
    (git_dir / "objects" / "info" / "alternates").write_bytes(
        os.fsencode(objects.resolve()) + b"\n"
    )
    settings = "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
    if patterns is not None:
        settings += "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n"
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "sparse-checkout").write_text("".join(f"{p}\n" for p in patterns))
    with open(git_dir / "config", "a", encoding="utf-8") as config:
        config.write(settings)


def sparse_patterns(paths: Iterable[str]) -> list[str] | None:
    """The sparse-checkout patterns (git's cone mode: hashed, not matched pattern by pattern
    against every path of the tree) holding `paths`: the files of their directories and of each
    directory above, never a directory's subdirectories; None: check everything out."""
    directories: set[str] = set()
    for path in paths:
        directory = posixpath.dirname(path)
        while directory and directory not in directories:
            directories.add(directory)
            directory = posixpath.dirname(directory)
    if len(directories) > MAX_SPARSE_DIRECTORIES:
        return None
    # The root's files, not its directories; then each directory's files, not its own
    # directories: every directory in cone mode's "parent" form.
    patterns = ["/*", "!/*/"]
    for directory in sorted(directories):
        escaped = escape(directory)
        patterns += [f"/{escaped}/", f"!/{escaped}/*/"]
    return patterns


def escape(path: str) -> str:
    """`path` as a literal in a gitignore-style pattern."""
    return "".join(f"\\{char}" if char in _SPECIAL else char for char in path)


def _said(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "failed"
