"""The landed commit's content for the project's hooks to run on: a private repository of its own
(borrowing the repository's objects, so nothing is copied), checked out sparsely, then removed
whatever happens. Never the person's worktree, which may have moved on or be dirty; never a
registered worktree (`git worktree add` would run the repository's post-checkout hook, and show
in `git worktree list`).

Sparse: the changed files' directories and the directories above them, files only (siblings
for imports, each level's configuration files), the files the hooks execute, the root's files.
A change spread over too many directories is checked out whole.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from landwatch.processes import run_command

# Past this many directories a sparse pattern list costs more than writing the files.
MAX_SPARSE_DIRECTORIES = 400
GIT_TIMEOUT = 120.0
# A fix larger than this is described, not kept.
MAX_PATCH_BYTES = 1024 * 1024
# Escaped in a sparse-checkout pattern: what gitignore's syntax reads as a wildcard or marker.
_SPECIAL = frozenset("\\*?[]! #")


class CheckoutError(Exception):
    """The landed commit could not be checked out; one line saying why."""


@dataclass(frozen=True)
class Checkout:
    """A checkout of one landed commit: its worktree, and how git is run there."""

    root: Path  # the worktree
    env: Mapping[str, str]

    def git(self, *args: str) -> tuple[int, str]:
        """git in this checkout: its exit status and its output (stderr after stdout)."""
        result = run_command(
            ["git", "-c", "core.quotePath=false", *args],
            timeout=GIT_TIMEOUT,
            cwd=self.root,
            env=self.env,
        )
        return result.returncode, result.stdout + result.stderr

    def fixes(self) -> tuple[list[str], str]:
        """The files the hooks changed, and the change as a patch `git apply` takes (empty when
        it is larger than MAX_PATCH_BYTES)."""
        code, listed = self.git("diff", "--name-only", "-z", "--no-renames", "HEAD", "--")
        if code != 0 or not listed:
            return [], ""
        names = [name for name in listed.split("\0") if name]
        code, patch = self.git(
            "diff",
            "--binary",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "HEAD",
            "--",
        )
        if code != 0 or len(patch.encode("utf-8", "surrogateescape")) > MAX_PATCH_BYTES:
            return names, ""
        return names, patch


def git_environment() -> dict[str, str]:
    """The environment git runs in for a checkout: none of the caller's GIT_* (a hook's
    GIT_DIR would point it at the person's repository), and LFS files left as pointers (there is
    no remote to fetch them from)."""
    kept = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return {**kept, "GIT_LFS_SKIP_SMUDGE": "1", "GIT_TERMINAL_PROMPT": "0"}


@contextmanager
def landed(
    objects: Path, oid: str, paths: Iterable[str], parent: Path | None
) -> Iterator[Checkout]:
    """The commit `oid` checked out (sparsely, holding `paths`) in a private repository under
    `parent` that reads its objects from `objects`; removed when the block ends, however."""
    scratch = Path(tempfile.mkdtemp(prefix="hooks-", dir=parent))
    try:
        root = scratch / "work"
        checkout = Checkout(root, git_environment())
        _init(checkout, objects, sparse_patterns(paths))
        code, said = checkout.git("-c", "core.hooksPath=/dev/null", "read-tree", "-m", "-u", oid)
        if code != 0:
            raise CheckoutError(f"git read-tree {oid[:12]}: {_said(said)}")
        (root / ".git" / "HEAD").write_text(f"{oid}\n")
        yield checkout
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _init(checkout: Checkout, objects: Path, patterns: list[str] | None) -> None:
    root = checkout.root
    result = run_command(
        ["git", "init", "-q", "--template=", str(root)],
        timeout=GIT_TIMEOUT,
        cwd=root.parent,
        env=checkout.env,
    )
    if not result.ok:
        raise CheckoutError(f"git init: {_said(result.stderr)}")
    git_dir = root / ".git"
    (git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (git_dir / "objects" / "info" / "alternates").write_text(f"{objects.resolve()}\n")
    settings = "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
    if patterns is not None:
        settings += "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = false\n"
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "sparse-checkout").write_text("".join(f"{p}\n" for p in patterns))
    with open(git_dir / "config", "a", encoding="utf-8") as config:
        config.write(settings)


def sparse_patterns(paths: Iterable[str]) -> list[str] | None:
    """The sparse-checkout patterns (git's non-cone form) holding `paths`, the files of their
    directories and of each directory above; None: check everything out."""
    directories: set[str] = set()
    files: set[str] = set()
    for path in paths:
        files.add(path)
        directory = posixpath.dirname(path)
        while directory and directory not in directories:
            directories.add(directory)
            directory = posixpath.dirname(directory)
    if len(directories) > MAX_SPARSE_DIRECTORIES:
        return None
    # The root's files, not its directories; then each directory's files, not its own
    # directories (git's cone patterns, one level at a time); then each path itself.
    patterns = ["/*", "!/*/"]
    for directory in sorted(directories):
        escaped = escape(directory)
        patterns += [f"/{escaped}/", f"!/{escaped}/*/"]
    patterns += [f"/{escape(path)}" for path in sorted(files)]
    return patterns


def escape(path: str) -> str:
    """`path` as a literal in a gitignore-style pattern."""
    return "".join(f"\\{char}" if char in _SPECIAL else char for char in path)


def _said(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "failed"
