"""Every landing reviewed, or the person told why not (coverage): a moved or copied repository,
hooks another manager displaced (the real pre-commit and lefthook), hooks missing or out of git's
reach; and the push gate that does not run, told whatever the landing hooks are."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from landwatch import coverage, registry
from landwatch.commands import install
from landwatch.hooks import INSTALLED_EVENTS, whose
from support.daemon import journal_lines, run_reviewer
from support.kinds import FakeClock, in_process
from support.repos import Repo, bare_worktree, installed, separate_git_dir, submodule

TOOLS = Path(sys.executable).parent  # the test command installs pre-commit and lefthook here
RECORDING = ("--handler", "review=support.handlers:Recording")
NO_WORKTREE = "no worktree to run hooks in was found"


def an_hour_ago() -> dict[str, str]:
    return {"GIT_COMMITTER_DATE": f"@{int(time.time()) - 3600} +0000"}


def reviewed(journal: Path) -> list[str]:
    result = run_reviewer("--once", *RECORDING, journal=journal)
    assert result.returncode == 0, result.stderr
    done = [words[1] for words in journal_lines(journal) if words[0] == "reviewed"]
    assert all(count == 1 for count in Counter(done).values()), done
    return done


def tool(name: str, *args: str, cwd: Path) -> None:
    result = subprocess.run(
        [str(TOOLS / name), *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_moved_repository_is_told_once_and_mended_by_install(repo: Repo, tmp_path: Path) -> None:
    old_place = repo.git_dir.resolve()
    moved = Repo.existing(tmp_path / "elsewhere")
    shutil.move(repo.path, moved.path)
    moved.land("after the move")
    assert moved.said.count("\n") == 1
    assert (
        "not the one landwatch was installed in" in moved.said and "landwatch install" in moved.said
    )
    moved.land("and again")
    assert moved.said == ""  # told once
    status = json.loads(moved.landwatch("status", "--json").stdout)
    [entry] = status["repositories"]
    assert entry["repository"] == str(old_place) and entry["problem"] == "it vanished"
    doctor = moved.landwatch("doctor")
    assert doctor.returncode == 1
    assert "is registered but it vanished" in doctor.stdout
    assert "2 item(s) its hooks recorded wait undrained" in doctor.stdout
    moved.git("config", "landwatch.staleAfter", "999999")  # the reviewer is not run here
    moved.landwatch("forget", str(old_place))
    installed_again = moved.landwatch("install")
    assert installed_again.returncode == 0, installed_again.stderr
    assert registry.registered() == [moved.git_dir.resolve()]
    moved.land("at home again")
    assert moved.said == ""
    assert len(moved.pending()) == 3  # nothing recorded there was lost


def test_a_copied_repository_is_told_in_the_copy(repo: Repo, tmp_path: Path) -> None:
    copy = Repo.existing(tmp_path / "copy")
    subprocess.run(["cp", "-a", str(repo.path), str(copy.path)], check=True)
    copy.land("in the copy")
    assert "not the one landwatch was installed in" in copy.said
    repo.land("in the original")
    assert repo.said == ""


def test_pre_commit_after_landwatch_is_partial_and_the_sweep_covers_rebases(
    repo: Repo, journal: Path
) -> None:
    repo.land("config", {".pre-commit-config.yaml": "repos: []\n"}, env=an_hour_ago())
    tool("pre-commit", "install", "-t", "post-commit", "-t", "post-rewrite", cwd=repo.path)
    covered = coverage.inspect(repo.git_dir)
    assert covered.reach is coverage.Reach.PARTIAL and "pre-commit" in covered.detail
    landed = repo.land("one", "one.txt", env=an_hour_ago())
    assert (landed, None) in repo.pending()  # ours ran, as pre-commit's .legacy
    assert repo.said == ""  # where pre-commit runs it, nothing was displaced
    repo.land("two", "two.txt", env=an_hour_ago())
    rebased = repo.run("rebase", "-q", "--exec", "true", "HEAD~2", **an_hour_ago())
    assert rebased.returncode == 0, rebased.stderr
    done = reviewed(journal)
    assert landed in done and repo.head() in done  # the rewrite reached us by the sweep
    shown = repo.landwatch("status").stdout
    assert "hooks partly reached" in shown and "pre-commit" in shown


def test_lefthook_after_landwatch_is_sweep_only(repo: Repo, journal: Path) -> None:
    config = "post-commit:\n  commands:\n    hello:\n      run: echo hello\n"
    repo.land("lefthook", {"lefthook.yml": config}, env=an_hour_ago())
    tool("lefthook", "install", cwd=repo.path)
    covered = coverage.inspect(repo.git_dir)
    assert covered.reach is coverage.Reach.SWEEP and "lefthook" in covered.detail
    landed = [repo.land(f"unseen {n}", f"f{n}", env=an_hour_ago()) for n in range(3)]
    assert not {oid for oid, _ in repo.pending()} & set(landed)  # it never runs landwatch's .old
    assert set(landed) <= set(reviewed(journal))
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1 and "sweep only" in doctor.stdout and "lefthook" in doctor.stdout


def test_missing_hooks_are_told_and_mended_by_doctor(repo: Repo) -> None:
    (repo.git_dir / "hooks" / "post-rewrite").unlink()
    covered = coverage.inspect(repo.git_dir)
    assert covered.reach is coverage.Reach.SWEEP and covered.fixable
    assert "post-rewrite" in repo.landwatch("doctor").stdout
    repo.landwatch("doctor", "--fix")
    assert coverage.inspect(repo.git_dir).reach is coverage.Reach.HOOKS


def test_a_hooks_path_elsewhere_is_not_reached(repo: Repo, tmp_path: Path) -> None:
    (tmp_path / "shared-hooks").mkdir()
    repo.git("config", "core.hooksPath", str(tmp_path / "shared-hooks"))
    covered = coverage.inspect(repo.git_dir)
    assert covered.reach is coverage.Reach.SWEEP and "core.hooksPath" in covered.detail


def test_a_hooks_path_the_project_commits_is_mended_beside_it_not_in_it(repo: Repo) -> None:
    """doctor's mend for a core.hooksPath the project commits was `landwatch install
    --hooks-path DIR`, landwatch's hooks in the project's files for the next commit (an
    audit): it names the directory for what it is, and the repository's own hooks directory."""
    (repo.path / "githooks").mkdir()
    (repo.path / "githooks" / "pre-push").write_text("#!/bin/sh\n")
    repo.git("add", "githooks")
    repo.land("the project's hooks", hooks=False)
    repo.git("config", "core.hooksPath", "githooks")
    covered = coverage.inspect(repo.git_dir)
    assert covered.reach is coverage.Reach.SWEEP and not covered.fixable
    assert covered.detail == (
        f"not reached: core.hooksPath points to {repo.path / 'githooks'}, a directory the "
        "project commits (githooks/pre-push); git does not run landwatch's hooks"
    )
    assert covered.fix == (
        f"landwatch install --hooks-path {repo.git_dir / 'hooks'}, then call "
        ".git/hooks/<event> from the project's hooks (docs/hooks.md)"
    )


def test_the_push_gate_is_judged_apart_from_the_landing_hooks(
    repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool's reinstall replaces the landing hooks and pre-push together (lefthook's, husky
    4's: an audit pushed an AWS key id while doctor named only post-commit): the gate is said to
    be off beside the coverage, in the reviewer's log too; and what counts is the pre-push git
    runs now, wherever core.hooksPath sends it."""
    hooks = repo.git_dir / "hooks"
    for event in INSTALLED_EVENTS:  # as lefthook's reinstall leaves them
        (hooks / event).write_text(f'#!/bin/sh\ncall_lefthook run {event} "$@"\n')
    assert coverage.inspect(repo.git_dir).reach is coverage.Reach.SWEEP
    gate = coverage.inspect(repo.git_dir).gate
    assert gate == (
        "the push gate does not run (git runs lefthook's pre-push hook): a secret a review "
        "found can be pushed"
    )
    reviewer = in_process({}, FakeClock(), tmp_path / "state.json")
    reviewer.duties.check_coverage()
    reviewer.shutdown()
    assert f"{repo.git_dir}: sweep only: lefthook replaced" in caplog.text
    assert f"hook(s) in {hooks}; {gate}" in caplog.text
    repo.install()
    assert coverage.inspect(repo.git_dir).gate is None
    (tmp_path / "elsewhere").mkdir()
    repo.git("config", "core.hooksPath", str(tmp_path / "elsewhere"))
    assert "(there is no pre-push hook)" in (coverage.inspect(repo.git_dir).gate or "")


def test_a_gate_git_skips_for_want_of_its_executable_bit_is_said_off(repo: Repo) -> None:
    """Landwatch's pre-push hook that lost its executable bit (a copy, an archive unpacked):
    git skips it with a hint, and the gate does not run, though the hook is landwatch's."""
    (repo.git_dir / "hooks" / "pre-push").chmod(0o644)
    assert coverage.inspect(repo.git_dir).gate == (
        "the push gate does not run (landwatch's pre-push hook is not executable: git skips "
        "it): a secret a review found can be pushed"
    )


@pytest.mark.parametrize(
    ("make", "landing"),
    [(submodule, False), (submodule, True), (separate_git_dir, False), (separate_git_dir, True)],
    ids=["submodule", "submodule-landed", "separate-git-dir", "separate-git-dir-landed"],
)
def test_a_git_dir_kept_apart_is_covered_and_its_gate_judged_like_any_other(
    tmp_path: Path, make: Callable[[Path], Repo], landing: bool
) -> None:
    """A submodule's git dir and one made with --separate-git-dir are in no worktree: their
    hooks recorded every landing, yet status said "sweep only: no worktree", and a pre-push
    taken away was never told. Their worktree is where install or the hooks ran, or
    core.worktree (which --separate-git-dir does not set)."""
    repo = make(tmp_path)
    repo.land("first", hooks=False)
    repo.install()
    if landing:
        repo.land("a landing")
    common = repo.git_dir
    assert coverage.inspect(common).reach is coverage.Reach.HOOKS
    assert coverage.inspect(common).gate is None
    (common / "hooks" / "pre-push").unlink()
    gate = coverage.inspect(common).gate or ""
    assert "(there is no pre-push hook)" in gate
    shown = repo.landwatch("status").stdout
    assert f"{common}: {gate}" in shown and "sweep only" not in shown
    (common / "hooks" / "post-merge").unlink()
    assert coverage.inspect(common).fixable
    assert repo.landwatch("doctor", "--fix").returncode == 0
    assert coverage.inspect(common).reach is coverage.Reach.HOOKS
    assert coverage.inspect(common).gate is None


def test_a_bare_repository_s_linked_worktree_is_covered_like_any_repository(
    tmp_path: Path,
) -> None:
    """A bare repository whose work is done in linked worktrees: install in one wrote the hooks,
    which recorded every landing there, yet status said "sweep only: no worktree to run hooks in
    was found", `doctor --fix` mended nothing, and an upgrade wrote no older hook again. Its
    hooks are asked of, and mended, in a linked worktree whose `.git` leads back."""
    linked = bare_worktree(tmp_path)
    linked.install()
    common = tmp_path / "shop.git"
    assert coverage.inspect(common) == coverage.Coverage(coverage.Reach.HOOKS, "hooks ok")
    oid = linked.land("a landing")
    assert linked.pending() == [(oid, None)]
    (common / "hooks" / "pre-push").unlink()
    (common / "hooks" / "post-merge").unlink()
    assert coverage.inspect(common).fixable and coverage.inspect(common).gate
    fixed = Repo.existing(tmp_path).landwatch("doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout
    assert coverage.inspect(common) == coverage.Coverage(coverage.Reach.HOOKS, "hooks ok")
    assert "sweep only" not in linked.landwatch("status").stdout
    gate = common / "hooks" / "pre-push"
    written = gate.read_text()
    gate.write_text(written.replace("lw_most=1000", "lw_most=5000"))  # as a release before
    assert install.rewrite_older_hooks(io.StringIO()) == 1 and gate.read_text() == written


def test_a_core_worktree_naming_another_repository_points_coverage_nowhere(
    tmp_path: Path,
) -> None:
    """core.worktree is the repository's to write: a submodule's naming the superproject (or
    any repository of yours) is no worktree of it, for coverage or doctor's install."""
    repo = submodule(tmp_path)
    repo.land("first", hooks=False)
    repo.install()
    common, outer = repo.git_dir, tmp_path / "outer"
    repo.git("config", "core.worktree", str(outer))
    (common / "hooks" / "post-commit").unlink()
    Repo.existing(outer).landwatch("doctor", "--fix")
    assert not [hook for hook in (outer / ".git" / "hooks").iterdir() if whose(hook)]
    covered = coverage.inspect(common)
    assert (covered.reach, covered.detail) == (coverage.Reach.SWEEP, NO_WORKTREE)


def test_a_git_dir_git_cannot_use_sends_no_install_to_the_repository_above(tmp_path: Path) -> None:
    """A registered repository whose HEAD git cannot read: git run in its worktree passes over
    it for the repository above, and `doctor --fix` installed landwatch there. Git must find
    that very git dir there, or nothing is mended."""
    outer = Repo(tmp_path / "outer")
    inner = installed(outer.path / "inner")
    common = inner.git_dir
    (common / "HEAD").write_text("garbage\n")
    (common / "hooks" / "post-commit").unlink()
    outer.landwatch("doctor", "--fix")
    assert not [hook for hook in (outer.path / ".git" / "hooks").iterdir() if whose(hook)]
    assert registry.registered() == [common.resolve()]
    covered = coverage.inspect(common)
    assert covered.reach is coverage.Reach.SWEEP and not covered.fixable
    assert f"finds {outer.path / '.git'} instead" in covered.detail
    assert coverage.inspect(common).gate is None


def test_a_worktree_git_keeps_no_reflog_of_is_said_to_hide_from_the_sweep(
    tmp_path: Path, repo: Repo
) -> None:
    """An audit: with core.logAllRefUpdates false git keeps no reflog it has not got, so the
    sweep saw nothing, and status and doctor still called a repository whose hooks git did not
    run "sweep only", reviewed later. Both now say the sweep is blind there, and what mends it;
    a bare repository's HEAD, which no commit moves, is no such case."""
    repo.git("config", "core.logAllRefUpdates", "false")
    shutil.rmtree(repo.git_dir / "logs")
    repo.land("unlogged", hooks=False)
    assert not (repo.git_dir / "logs" / "HEAD").exists()
    said = coverage.unlogged(repo.git_dir)
    assert said is not None and str(repo.git_dir) in said
    status = repo.landwatch("status").stdout
    assert "git keeps no reflog of HEAD in" in status
    doctor = repo.landwatch("doctor").stdout
    assert "the reflog sweep cannot see a landing" in doctor
    assert f"fix: {coverage.UNLOGGED_FIX}" in doctor
    repo.git("config", "core.logAllRefUpdates", "true")
    repo.land("logged", hooks=False)
    assert coverage.unlogged(repo.git_dir) is None
    linked = bare_worktree(tmp_path)
    linked.land("in a bare repository's worktree", hooks=False)
    assert coverage.unlogged(tmp_path / "shop.git") is None
