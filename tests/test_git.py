"""Running git for landwatch (git): a hook's environment never points a git of ours at another
repository; no git of ours waits on a person (no terminal prompt, ssh in batch mode, stdin
/dev/null); a timeout stops it and `alive` is asked while it runs; and the questions a command asks
of a repository, answered by git itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from landwatch.git import (
    Confirm,
    Fallback,
    GitError,
    commit_of,
    common_dir_of,
    dropped,
    git,
    git_dir_and_commit,
    git_dir_of,
    no_git_env,
    run_git,
    version,
    worktree_of,
)
from support.remotes import asking_for_credentials, never_answering, partial_clone
from support.repos import Repo, worktree_entry


def environment_of_git(cwd: Path, *, network: bool = False) -> dict[str, str]:
    """The environment a git of ours runs in (one that may reach a remote, with `network`), as
    git itself hands it to an alias."""
    shown = run_git("-c", "alias.environment=!env", "environment", cwd=cwd, network=network)
    assert shown.ok, shown.stderr
    return dict(line.split("=", 1) for line in shown.stdout.splitlines() if "=" in line)


def test_a_hooks_environment_points_no_git_of_ours_at_its_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, theirs = Repo(tmp_path / "ours"), Repo(tmp_path / "theirs")
    theirs.land("theirs alone", hooks=False)
    # What git exports to the hooks it runs in `theirs` (pre-commit#300).
    monkeypatch.setenv("GIT_DIR", str(theirs.git_dir))
    monkeypatch.setenv("GIT_WORK_TREE", str(theirs.path))
    monkeypatch.setenv("GIT_INDEX_FILE", str(theirs.git_dir / "index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(theirs.git_dir / "objects"))
    assert git_dir_of(ours.path) == ours.git_dir
    assert common_dir_of(ours.path) == ours.git_dir
    assert git("rev-parse", "HEAD", cwd=ours.path) == ours.head() != theirs.head()
    assert commit_of("HEAD", cwd=ours.path) == ours.head()
    seen = environment_of_git(ours.path)
    assert not {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"} & set(seen)


def test_the_scrubbed_environment_keeps_how_git_reaches_remotes() -> None:
    hook = {
        "GIT_DIR": "/theirs/.git",
        "GIT_WORK_TREE": "/theirs",
        "GIT_INDEX_FILE": "/theirs/.git/index",
        "GIT_PREFIX": "src/",
        "GIT_SSH_COMMAND": "ssh -i ~/.ssh/deploy",
        "GIT_SSH_VARIANT": "ssh",
        "GIT_ASKPASS": "/usr/bin/ksshaskpass",
        "GIT_CONFIG_GLOBAL": "/home/me/.gitconfig-work",
        "PATH": "/usr/bin",
        "HOME": "/home/me",
    }
    assert no_git_env(hook) == {
        "GIT_SSH_COMMAND": "ssh -i ~/.ssh/deploy",
        "GIT_SSH_VARIANT": "ssh",
        "GIT_ASKPASS": "/usr/bin/ksshaskpass",
        "GIT_CONFIG_GLOBAL": "/home/me/.gitconfig-work",
        "PATH": "/usr/bin",
        "HOME": "/home/me",
    }


def test_a_remote_that_asks_for_credentials_fails_at_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH_COMMAND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "1")  # the person's own, in the hook's env
    with asking_for_credentials() as url:
        started = time.monotonic()
        asked = run_git("ls-remote", url, cwd=repo.path, timeout=60, network=True)
    assert not asked.ok and not asked.timed_out
    assert "terminal prompts disabled" in asked.stderr
    assert time.monotonic() - started < 30  # failed at once, never waited for a person
    seen = environment_of_git(repo.path, network=True)
    assert seen["GIT_TERMINAL_PROMPT"] == "0"
    assert seen["GIT_SSH_COMMAND"] == "ssh -o BatchMode=yes"  # ssh never asks either


def test_a_persons_own_ssh_command_is_kept(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -i ~/.ssh/deploy -o BatchMode=yes")
    for network in (False, True):
        assert environment_of_git(repo.path, network=network)["GIT_SSH_COMMAND"] == (
            "ssh -i ~/.ssh/deploy -o BatchMode=yes"
        )


def test_git_reads_no_stdin_it_was_not_given(repo: Repo) -> None:
    # This process's stdin holds an answer; an alias reading its stdin reads /dev/null instead.
    reading, writing = os.pipe()
    os.write(writing, b"what a person typed\n")
    os.close(writing)
    saved = os.dup(0)
    os.dup2(reading, 0)
    try:
        read = run_git("-c", "alias.read=!cat", "read", cwd=repo.path, timeout=20)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(reading)
    assert read.ok and not read.timed_out and read.stdout == ""


def test_git_reads_what_it_is_given_and_only_that(repo: Repo) -> None:
    # fast-import's stream and `rev-list --stdin`'s revisions are given so (the share kind).
    given = "".join(f"line {n}\n" for n in range(20_000))  # more than a pipe holds at once
    read = run_git("-c", "alias.read=!cat", "read", cwd=repo.path, timeout=20, input=given)
    assert read.ok and read.stdout == given


def test_a_timeout_stops_git(tmp_path: Path) -> None:
    with never_answering() as server:
        started = time.monotonic()
        waited = run_git("ls-remote", server.url, cwd=tmp_path, timeout=0.5, network=True)
        assert waited.timed_out and not waited.ok
        assert time.monotonic() - started < 10
        assert server.hung_up()  # git itself is gone, its connection closed


class Stop(Exception):
    """What a job's `alive` raises when its lease was lost."""


def test_alive_is_asked_while_git_runs_and_what_it_raises_stops_git(tmp_path: Path) -> None:
    asked: list[float] = []

    def alive() -> None:
        asked.append(time.monotonic())
        if len(asked) == 2:
            raise Stop("the lease was lost")

    with never_answering() as server:
        started = time.monotonic()
        with pytest.raises(Stop):
            run_git("ls-remote", server.url, cwd=tmp_path, timeout=60, alive=alive, network=True)
        assert len(asked) == 2
        assert time.monotonic() - started < 30  # stopped at the second ask, not at the timeout
        assert server.hung_up()


def test_our_git_fetches_nothing_a_partial_clone_lacks_unless_asked_to_reach_the_remote(
    tmp_path: Path,
) -> None:
    """In a partial clone, git fetches a missing object from the remote when asked of it: the
    hook's question about a pruned commit waited inside `git commit` for the network, and the
    reviewer's asked the remote again at every try. Only a push, a fetch or an ls-remote may."""
    log = tmp_path / "fetches"
    clone = partial_clone(tmp_path, log)
    missing = "1" * 40
    asked = run_git("cat-file", "-e", missing, cwd=clone.path)
    assert asked.returncode != 0 and log.read_text() == ""
    assert run_git("rev-list", missing, "--not", "--all", cwd=clone.path).returncode != 0
    assert log.read_text() == ""
    fetched = run_git("fetch", "-q", "origin", cwd=clone.path, network=True)
    assert fetched.ok, fetched.stderr
    assert log.read_text() == "fetched\n"


def test_a_timeout_stops_what_git_started_too(repo: Repo) -> None:
    started = time.monotonic()
    waited = run_git("-c", "alias.hang=!sleep 60", "hang", cwd=repo.path, timeout=0.3)
    assert waited.timed_out
    assert time.monotonic() - started < 30  # not the minute the sleeper would hold the pipes


def test_git_that_cannot_be_started_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    with pytest.raises(GitError) as raised:
        run_git("status", cwd=tmp_path)
    assert str(raised.value).startswith("cannot run git: ") and "\n" not in str(raised.value)


def test_a_failing_git_is_a_one_line_error_holding_what_git_said(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError) as raised:
        git_dir_of(tmp_path / "plain")
    assert "not a git repository" in str(raised.value) and "\n" not in str(raised.value)
    unchecked = git("rev-parse", "--verify", "-q", "nosuchrev", cwd=tmp_path, check=False)
    assert unchecked == ""


def test_a_linked_worktree_has_its_own_git_dir_and_shares_the_common_one(
    repo: Repo, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked))
    assert git_dir_of(linked) == repo.git_dir / "worktrees" / "linked"
    assert common_dir_of(linked) == common_dir_of(repo.path) == repo.git_dir


def test_commit_of_names_the_commit_a_revision_names(repo: Repo) -> None:
    head = repo.head()
    assert commit_of("HEAD", cwd=repo.path) == head
    assert commit_of(head[:10], cwd=repo.path) == head
    repo.git("tag", "-a", "-m", "the first", "v1")
    assert commit_of("v1", cwd=repo.path) == head  # an annotated tag: the commit it tags


def test_commit_of_a_name_of_no_commit_is_none(repo: Repo) -> None:
    tree = repo.git("rev-parse", "HEAD^{tree}")
    blob = repo.git("rev-parse", "HEAD:file")
    for name in ("nosuchrev", "HEAD~5", tree, blob, "", "0" * 40):
        assert commit_of(name, cwd=repo.path) is None, name


def test_a_revision_is_never_taken_for_an_option(repo: Repo) -> None:
    for name in ("--help", "-x", "--all", "--default=HEAD", "--git-dir=/"):
        assert commit_of(name, cwd=repo.path) is None, name
    repo.git("update-ref", "refs/heads/-x", "HEAD")  # a branch named like an option
    assert commit_of("-x", cwd=repo.path) == repo.head()


# Each ref a commit may be left on, and whether the person still has it there.
KEEPS = {
    "refs/heads/side": True,
    "refs/tags/v1": True,
    "refs/remotes/origin/main": True,  # dropped here, the remote still has it
    "refs/replace/": True,  # named after the commit it stands in for
    "refs/original/refs/heads/main": False,  # filter-branch's backup of what it rewrote
    "refs/stash": False,  # its commit's parent is the one it was made on
    "refs/bisect/bad": False,
    "refs/notes/commits": False,
    "refs/keep/old": False,  # another tool's refs that keep old commits from gc
}


def test_a_commit_is_dropped_unless_a_ref_the_person_works_on_holds_it(
    repo: Repo, tmp_path: Path
) -> None:
    base = repo.head()
    tree = repo.git("rev-parse", "HEAD^{tree}")
    made = {ref: repo.git("commit-tree", tree, "-p", base, "-m", ref) for ref in KEEPS}
    stood_in_for = repo.git("commit-tree", tree, "-m", "replaced")
    for ref, commit in made.items():
        repo.git("update-ref", ref + (stood_in_for if ref == "refs/replace/" else ""), commit)
    linked = tmp_path / "linked"  # another worktree's detached HEAD is the person's too
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    repo.git("-C", str(linked), "commit", "-q", "--allow-empty", "-m", "there")
    there = repo.git("-C", str(linked), "rev-parse", "HEAD")
    asked = [*made.values(), there, base]
    assert dropped(repo.git_dir, asked) == {made[ref] for ref, kept in KEEPS.items() if not kept}
    assert dropped(repo.git_dir, ["0" * 40]) is None  # git cannot walk from what is not there


def test_the_git_dir_and_a_commit_are_one_question_to_git(repo: Repo, tmp_path: Path) -> None:
    head = repo.head()
    assert git_dir_and_commit("HEAD", cwd=repo.path) == (repo.git_dir, head)
    for name in ("nosuchrev", "--git-dir=/", repo.git("rev-parse", "HEAD^{tree}")):
        assert git_dir_and_commit(name, cwd=repo.path) == (repo.git_dir, None), name
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not a git repository"):
        git_dir_and_commit("HEAD", cwd=tmp_path / "plain")


# --- worktree_of: where git runs for a git dir, for each shape of repository -------------------

BOTH = pytest.mark.parametrize("confirm", [Confirm.READING, Confirm.ASKING_GIT])


def top_of(git_dir: Path, recorded: Path | None = None, *, confirm: Confirm) -> Path | None:
    return worktree_of(git_dir, recorded, confirm=confirm, fallback=Fallback.NONE).top


@pytest.fixture
def gits_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A log of the directory each git of ours starts in: the real git, run through a script
    first on the PATH that writes where it was started."""
    real, shims = shutil.which("git"), tmp_path / "shims"
    shims.mkdir()
    (shims / "git").write_text(f'#!/bin/sh\npwd -P >> "{tmp_path / "gits"}"\nexec {real} "$@"\n')
    (shims / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    return tmp_path / "gits"


def started(log: Path) -> list[str]:
    """The directories gits started in since the log was last read."""
    found = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return found


@BOTH
def test_a_main_worktree_is_around_its_git_dir_and_a_linked_one_where_its_pointer_says(
    repo: Repo, tmp_path: Path, confirm: Confirm
) -> None:
    """The person's git runs in the worktree, for the main one and a linked one alike."""
    found = worktree_of(repo.git_dir, confirm=confirm, fallback=Fallback.NONE)
    assert (found.git_dir, found.top, found.where) == (repo.git_dir, repo.path, repo.path)
    assert found.run("rev-parse", "--show-toplevel").stdout == f"{repo.path}\n"
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = repo.git_dir / "worktrees" / "side"
    assert top_of(side, confirm=confirm) == tmp_path / "side"
    assert top_of(side, repo.path, confirm=confirm) == tmp_path / "side"  # its own, first


@BOTH
def test_a_bare_repository_has_no_worktree_and_git_runs_in_its_git_dir(
    tmp_path: Path, confirm: Confirm
) -> None:
    bare = tmp_path / "bare.git"
    run_git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    for fallback in Fallback:  # the main worktree of a bare repository: none either
        found = worktree_of(bare, confirm=confirm, fallback=fallback)
        assert (found.git_dir, found.top, found.where) == (bare, None, bare)
        assert found.run("rev-parse", "--is-bare-repository").stdout == "true\n"


@BOTH
def test_a_git_dir_kept_apart_is_known_by_where_its_landing_was(
    repo: Repo, tmp_path: Path, confirm: Confirm
) -> None:
    """A submodule's git dir and one made with --separate-git-dir name no worktree of their
    own: where the hooks recorded the landing is theirs only while its `.git` leads back."""
    apart = tmp_path / "apart.git"
    run_git("init", "-q", f"--separate-git-dir={apart}", str(tmp_path / "elsewhere"), cwd=tmp_path)
    assert top_of(apart, confirm=confirm) is None
    assert top_of(apart, tmp_path / "elsewhere", confirm=confirm) == tmp_path / "elsewhere"
    assert top_of(apart, repo.path, confirm=confirm) is None  # its git finds another git dir
    assert top_of(apart, tmp_path / "gone", confirm=confirm) is None
    library = Repo(tmp_path / "library")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library.path), "lib")
    modules = repo.git_dir / "modules" / "lib"
    assert top_of(modules, confirm=confirm) is None
    assert top_of(modules, repo.path / "lib", confirm=confirm) == repo.path / "lib"
    assert top_of(modules, repo.path, confirm=confirm) is None  # the superproject's


@BOTH
def test_a_linked_worktree_gone_has_none_or_else_the_main_one_on_the_common_dir(
    repo: Repo, tmp_path: Path, confirm: Confirm, gits_started: Path
) -> None:
    """A linked worktree removed by hand (its git dir left until `git worktree prune`): no git
    is started where it was; work of the whole repository goes to the main worktree."""
    git_dir = repo.git_dir  # asked of git before the count
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = git_dir / "worktrees" / "side"
    shutil.rmtree(tmp_path / "side")
    started(gits_started)
    assert top_of(side, tmp_path / "side", confirm=confirm) is None
    main = worktree_of(side, tmp_path / "side", confirm=confirm, fallback=Fallback.MAIN_WORKTREE)
    assert (main.git_dir, main.top) == (git_dir, repo.path)
    assert started(gits_started) == ([] if confirm is Confirm.READING else [str(repo.path)])


@BOTH
def test_a_planted_gitdir_pointer_leads_no_git_to_another_repository(
    repo: Repo, tmp_path: Path, confirm: Confirm, gits_started: Path
) -> None:
    """An archive's git dir can hold a `gitdir` pointer naming another repository of yours:
    landwatch found that repository's hooks for a linked worktree's (doctor), took its paths for
    this one's (maintenance), and started git there to ask (push, share). A directory is a git
    dir's worktree only where its `.git` leads back; none is started where it does not."""
    other = Repo(tmp_path / "other")
    evil = worktree_entry(repo.git_dir, other.path / ".git")
    (repo.git_dir / "gitdir").write_text(f"{other.path / '.git'}\n")  # in the main one too
    started(gits_started)
    assert top_of(evil, other.path, confirm=confirm) is None
    assert top_of(repo.git_dir, confirm=confirm) == repo.path  # its own, still
    assert str(other.path) not in started(gits_started)


def test_git_is_asked_where_it_finds_the_repository_itself(
    repo: Repo, tmp_path: Path, gits_started: Path
) -> None:
    """A `.git` that leads to the git dir is enough for a git told which git dir to use
    (reading: no process); a git that finds the repository itself is asked there (one git),
    and is not sent where the repository's core.worktree points, where it finds another."""
    other, git_dir = Repo(tmp_path / "other"), repo.git_dir
    repo.git("config", "core.worktree", str(other.path))
    started(gits_started)
    found = worktree_of(git_dir, confirm=Confirm.ASKING_GIT, fallback=Fallback.NONE)
    assert found.top == repo.path and started(gits_started) == [str(repo.path)]
    assert found.run("rev-parse", "--absolute-git-dir").stdout == f"{git_dir}\n"
    repo.git("config", "--unset", "core.worktree")
    started(gits_started)
    assert top_of(git_dir, confirm=Confirm.READING) == repo.path
    assert started(gits_started) == []
    # A git dir git cannot use: git looks above it, and finds the repository around it.
    nested = Repo(other.path / "nested")
    (nested.path / ".git" / "HEAD").write_text("no ref\n")
    assert top_of(nested.path / ".git", confirm=Confirm.READING) == nested.path
    assert top_of(nested.path / ".git", confirm=Confirm.ASKING_GIT) is None


def test_the_version_of_git_is_read_as_numbers() -> None:
    """What sharing asks before it names a negative refspec to git (git 2.29 reads one)."""
    said = subprocess.run(["git", "version"], capture_output=True, text=True, check=True).stdout
    assert said.startswith("git version " + ".".join(map(str, version())))
    assert version() >= (2, 0)


def test_a_place_that_is_gone_is_named_not_taken_for_git_missing(tmp_path: Path) -> None:
    """git is there, the directory it was to run in is not: said as such, not `cannot run git`."""
    gone = tmp_path / "gone\x1b[2J"
    with pytest.raises(GitError) as raised:
        run_git("status", cwd=gone)
    assert str(raised.value) == f"cannot enter {tmp_path}/gone\\x1b[2J: No such file or directory"
