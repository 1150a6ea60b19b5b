"""Running git for landwatch: the one wrapper, with a scrubbed environment, no prompt ever, a
timeout, and one-line errors; and the few questions every command asks of a repository.

Hooks export GIT_DIR, GIT_INDEX_FILE and friends; a git started for another repository must not
inherit them (pre-commit#300). A git of ours never waits on a person: no terminal prompt, stdin
/dev/null, and one that may reach a remote runs the person's own ssh for the repository, in batch
mode where git calls it as OpenSSH (git_ssh): a push with no credentials at hand fails at once.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import os
import re
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from landwatch.errors import UserError
from landwatch.files import read_pointer
from landwatch.git_ssh import SSH_SETTINGS, never_prompting
from landwatch.processes import CommandResult, child_dies_with_us, run_command
from landwatch.text import safe

# Variables that configure how git reaches remotes rather than which repository it works on.
_KEPT = frozenset(
    {
        "GIT_ASKPASS",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_EXEC_PATH",
        "GIT_HTTP_PROXY_AUTHMETHOD",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSH_VARIANT",
        "GIT_SSL_CAINFO",
        "GIT_SSL_NO_VERIFY",
        "GIT_TERMINAL_PROMPT",
        "GIT_ALLOW_PROTOCOL",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
    }
)
# What one git of ours may take, unless its caller says otherwise (a push, a gc).
TIMEOUT = 60.0


class GitError(UserError):
    """git failed; the message is one line for a person."""


def not_a_repository(cwd: os.PathLike[str] | str, error: GitError, hint: str = "") -> str:
    """What to say when git found no repository at `cwd` (then `hint`), or one it cannot read
    (a broken config): the second in git's own words, which name the file and line to mend."""
    said = str(error)
    if "not a git repository" in said.lower():
        return f"{cwd} is not in a git repository{hint}"
    return f"git cannot read the repository at {cwd}: {said}"


def no_git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without what points git at a repository (GIT_DIR, GIT_INDEX_FILE...)."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not k.startswith("GIT_") or k in _KEPT}


def _environment(network: bool) -> dict[str, str]:
    """What our git runs with: never a prompt; and, but for what is asked of a remote (`network`:
    a push, a fetch, an ls-remote), no transport at all, so that a partial clone's missing
    object is missing rather than fetched (a commit pruned, asked of by the hook, waited for
    the remote inside `git commit`): GIT_NO_LAZY_FETCH since git 2.44, no protocol before."""
    env = no_git_env()
    env["GIT_TERMINAL_PROMPT"] = "0"
    # The commits as stored, as pygit2 reads them and a push sends them: a replace ref (`git
    # replace --graft`) hid a commit from the gate's rev-list, while the pack still held it.
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    if not network:
        env["GIT_NO_LAZY_FETCH"] = "1"
        env["GIT_ALLOW_PROTOCOL"] = ""  # a list naming none: every transport refused
    return env


def _ssh_config(
    cwd: os.PathLike[str] | str | None, git_dir: os.PathLike[str] | str | None
) -> dict[str, str] | None:
    """What the repository's configuration (wherever git reads it from, as for the person's own
    git there) says of SSH_SETTINGS, the last value of each; None where git could not read it."""
    pattern = "^(" + "|".join(name.replace(".", "[.]") for name in SSH_SETTINGS) + ")$"
    said = run_git("config", "-z", "--get-regexp", pattern, cwd=cwd, git_dir=git_dir)
    if said.timed_out or said.returncode not in (0, 1):  # 1: none set
        return None
    entries = (entry.partition("\n") for entry in said.stdout.split("\0") if entry)
    return {key: value for key, _, value in entries}


def run_git(
    *args: str,
    cwd: os.PathLike[str] | str | None = None,
    git_dir: os.PathLike[str] | str | None = None,
    timeout: float = TIMEOUT,
    alive: Callable[[], None] | None = None,
    input: str | None = None,
    network: bool = False,
) -> CommandResult:
    """`git args`, in `cwd` or on the repository `git_dir`, to its end or `timeout`, reading
    `input` (fast-import's stream, revisions for `--stdin`); `alive` is called while it runs (a
    job's lease); only with `network` may it reach a remote. GitError when git cannot start."""
    command = ["git", *([f"--git-dir={git_dir}"] if git_dir is not None else []), *args]
    env = _environment(network)
    if network:  # the ssh the person's git runs here: asked before, with no network
        env = never_prompting(env, _ssh_config(cwd, git_dir))
    try:
        return run_command(
            command,
            timeout=timeout,
            alive=alive,
            cwd=Path(cwd) if cwd is not None else None,
            env=env,
            input=input,
        )
    except OSError as error:
        if cwd is not None and str(error.filename) == str(cwd):  # git is there; the place is not
            raise GitError(f"cannot enter {safe(str(cwd))}: {error.strerror or error}") from None
        raise GitError(f"cannot run git: {error.strerror or error}") from None


@contextlib.contextmanager
def git_output(*args: str, git_dir: os.PathLike[str] | str) -> Iterator[subprocess.Popen[bytes]]:
    """`git args` on the repository `git_dir`, its output read as it comes (a blob of a gigabyte
    is never held whole), stopped when the block is left; GitError when git cannot start."""
    try:
        process = subprocess.Popen(
            ["git", f"--git-dir={git_dir}", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(network=False),
            preexec_fn=child_dies_with_us(),  # never left reading a blob for nobody
        )
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        if process.stdout is not None:
            process.stdout.close()
        process.wait()


def git(
    *args: str,
    cwd: os.PathLike[str] | str,
    check: bool = True,
    git_dir: os.PathLike[str] | str | None = None,
    input: str | None = None,
) -> str:
    """stdout of `git args` run in `cwd` (on `git_dir`, when given), reading `input`, without
    the trailing newline; with `check`, a failure is a GitError holding git's last line."""
    result = run_git(*args, cwd=cwd, git_dir=git_dir, input=input)
    if check and not result.ok:
        raise failure(result, args[0])
    return result.stdout.rstrip("\n")


def failure(result: CommandResult, command: str) -> GitError:
    """The GitError of a `git command` that failed: git's last line, or that it took too long."""
    lines = result.stderr.strip().splitlines()
    said = lines[-1] if lines else f"git {command} failed ({result.returncode})"
    return GitError("git took too long" if result.timed_out else said)


def git_dir_of(cwd: os.PathLike[str] | str, given: str | None = None) -> Path:
    """The git dir of the worktree `cwd` is in, or the one `given` (a hook's GIT_DIR, relative to
    `cwd`: git exports it to hooks where it was given one); GitError where there is none."""
    return Path(git("rev-parse", "--absolute-git-dir", cwd=cwd, git_dir=given or None))


def toplevel(cwd: os.PathLike[str] | str) -> Path | None:
    """The top of the worktree `cwd` is in, as git finds it (a linked worktree's own, one whose
    git dir is kept apart); None in a bare repository or outside any."""
    top = git("rev-parse", "--show-toplevel", cwd=cwd, check=False)
    return Path(top) if top else None


def common_dir_of(cwd: os.PathLike[str] | str) -> Path:
    """The repository's common git dir, shared by its worktrees."""
    return Path(git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=cwd))


def common_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The repository's common git dir, from any worktree's git dir: its `commondir` read as
    git's pointers are (a FIFO or a link planted there is no pointer), else the git dir."""
    path = Path(git_dir)
    pointer = read_pointer(path / "commondir")
    # realpath, not Path.resolve, which raises on a loop of links a pointer may name.
    return Path(os.path.realpath(path / pointer)) if pointer else path


class Worktree(NamedTuple):
    """A repository's git dir, and the top of its worktree where one was found (worktree_of)."""

    git_dir: Path
    top: Path | None

    @property
    def where(self) -> Path:
        """Where git runs for it: the worktree, or else the git dir (as in a bare repository)."""
        return self.top if self.top is not None else self.git_dir

    def run(
        self,
        *args: str,
        timeout: float = TIMEOUT,
        alive: Callable[[], None] | None = None,
        input: str | None = None,
        network: bool = False,
    ) -> CommandResult:
        """run_git as the person's git runs in the worktree: there, finding the repository as it
        does (hooks, a relative core.hooksPath, what they take for the work tree); where there is
        none, on the git dir and in it, as git runs in a bare repository."""
        named = self.git_dir if self.top is None else None
        return run_git(
            *args,
            cwd=self.where,
            git_dir=named,
            timeout=timeout,
            alive=alive,
            input=input,
            network=network,
        )


class Confirm(enum.Enum):
    """How worktree_of holds a directory to be a git dir's worktree: its own `.git` is read
    first, since a `gitdir` pointer or a recorded path is an archive's to plant."""

    # Its `.git` is the git dir, or a `gitdir:` file naming it; no process. Enough where git is
    # told the git dir (--git-dir), or asked there by a git whose answer names the git dir it
    # found (coverage's and doctor's find_repository, which refuses another).
    READING = "its .git leads to the git dir"
    # That, and git run there finds that very git dir (one git): for a git left to find the
    # repository itself, as the person's does (git looks above a git dir it cannot use).
    ASKING_GIT = "git run there finds the git dir"


class Fallback(enum.Enum):
    """What worktree_of gives where no worktree of the git dir is confirmed."""

    NONE = "no worktree: git runs on the git dir, in it (a bare repository, a worktree gone)"
    # The repository's main worktree, on its common dir (else none, on the common dir): for
    # work of the whole repository begun from a linked worktree that is gone since.
    MAIN_WORKTREE = "the main worktree, on the common dir"


def worktree_of(
    git_dir: Path, recorded: Path | None = None, *, confirm: Confirm, fallback: Fallback
) -> Worktree:
    """The worktree of `git_dir`: where a linked worktree's `gitdir` points, the parent of a
    `.git`, else where its hooks recorded a landing (`recorded`: a git dir kept apart, a
    submodule's), the first that `confirm` holds to be its own; none found, `fallback`."""
    for candidate in _candidates(git_dir, recorded):
        if _leads_to(candidate, git_dir) and (
            confirm is Confirm.READING or _git_finds(candidate, git_dir)
        ):
            return Worktree(git_dir, candidate)
    if fallback is Fallback.MAIN_WORKTREE:
        return worktree_of(common_dir(git_dir), confirm=confirm, fallback=Fallback.NONE)
    return Worktree(git_dir, None)


def _candidates(git_dir: Path, recorded: Path | None) -> list[Path]:
    """Where the worktree of `git_dir` may be, as each names it, in that order, once each."""
    candidates = []
    pointer = read_pointer(git_dir / "gitdir")  # a linked worktree's `.git` file, as git wrote it
    if pointer is not None:
        candidates.append((git_dir / pointer).parent)
    if git_dir.name == ".git":
        candidates.append(git_dir.parent)
    if recorded is not None:
        candidates.append(recorded)
    return list(dict.fromkeys(candidates))


def _leads_to(top: Path, git_dir: Path) -> bool:
    """Whether the `.git` of `top`, where git looks first, is `git_dir` or a file naming it (a
    linked worktree, a submodule, a git dir made with --separate-git-dir)."""
    dot_git = top / ".git"
    if not dot_git.is_dir():
        pointer = read_pointer(dot_git)
        if pointer is None or not pointer.startswith("gitdir: "):
            return False
        dot_git = top / pointer.removeprefix("gitdir: ")
    try:
        return os.path.samefile(dot_git, git_dir)
    except OSError:  # gone, or never there
        return False


def _git_finds(top: Path, git_dir: Path) -> bool:
    """Whether git run in `top` finds `git_dir` (not one above, nor none)."""
    try:
        said = run_git("rev-parse", "--absolute-git-dir", cwd=top)
    except GitError:  # no directory there
        return False
    found = said.stdout.rstrip("\n")
    return said.ok and os.path.realpath(found) == os.path.realpath(git_dir)


@functools.cache
def version() -> tuple[int, ...]:
    """The version of the git landwatch runs, as numbers ((2, 39, 5)), asked once a process; ()
    when it says none (taken as older than any that is asked about)."""
    said = run_git("version").stdout
    found = re.match(r"git version (\d+(?:\.\d+)*)", said)
    return tuple(int(part) for part in found[1].split(".")) if found else ()


def commit_of(revision: str, *, cwd: os.PathLike[str] | str) -> str | None:
    """The full id of the commit `revision` names, or None when it names none (a revision is
    never taken for an option: --end-of-options)."""
    found = git("rev-parse", *_verified(revision), cwd=cwd, check=False)
    return found or None


def git_dir_and_commit(revision: str, *, cwd: os.PathLike[str] | str) -> tuple[Path, str | None]:
    """git_dir_of and commit_of in one git process (GitError outside a repository): a command
    that reads a commit's kept review waits for git once, not twice."""
    result = run_git("rev-parse", "--absolute-git-dir", *_verified(revision), cwd=cwd)
    git_dir, _, found = result.stdout.partition("\n")
    if not git_dir or result.timed_out or result.returncode not in (0, 1):
        raise failure(result, "rev-parse")
    return Path(git_dir), (found.strip() or None) if result.ok else None


def _verified(revision: str) -> tuple[str, ...]:
    """rev-parse's arguments for the commit `revision` names, never read as an option."""
    return ("--verify", "-q", "--end-of-options", f"{revision}^{{commit}}")


# The refs that hold the commits a person still has, as one walk excludes them: branches, tags,
# remotes' branches (dropped here, a commit is still there), replacements (git shows each in the
# history it stands in), and every worktree's HEAD (`--all` with each ref under refs/ excluded
# leaves exactly the HEADs). Not the refs that only keep what was rewritten or left behind:
# filter-branch's refs/original, the stash (its commit's parent is the one it was made on),
# bisect's marks, notes, and any other tool's refs that keep old commits from gc.
PEOPLES_REFS = (
    "--branches",
    "--tags",
    "--remotes",
    "--glob=refs/replace/*",
    "--exclude=refs/*",
    "--all",
)
# The commits a walk from those asked of looks at, at most: what a rewrite dropped lies a few
# commits from a branch; past that, a commit is taken as kept rather than walked to.
MOST_WALKED = 1000


def dropped(git_dir: os.PathLike[str] | str, commits: list[str]) -> set[str] | None:
    """Of `commits`, those the person no longer has: on none of PEOPLES_REFS (amended or rebased
    away, dropped, reset back, rewritten by filter-branch). None when git could not walk (one is
    gone)."""
    result = run_git(
        "rev-list", f"--max-count={MOST_WALKED}", *commits, "--not", *PEOPLES_REFS, git_dir=git_dir
    )
    return set(result.stdout.split()) & set(commits) if result.ok else None


def is_dropped(git_dir: os.PathLike[str] | str, commit: str) -> bool:
    """Whether the person no longer has `commit` (dropped); not when git cannot tell: a line too
    many is told, never a finding lost."""
    return commit in (dropped(git_dir, [commit]) or set())


def tracked_in(directory: Path, *, cwd: os.PathLike[str] | str) -> list[str]:
    """The files the repository at `cwd` tracks in `directory` (its index's), as git names them
    from there; none for a directory outside its worktree, or where git cannot say."""
    said = git("ls-files", "-z", "--", f":(literal){directory}", cwd=cwd, check=False)
    return [name for name in said.split("\0") if name]


def is_inside(path: Path, directory: Path) -> bool:
    try:
        path.resolve().relative_to(directory.resolve())
    except ValueError:
        return False
    return True
