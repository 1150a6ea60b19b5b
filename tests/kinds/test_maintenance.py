"""The maintenance kind with real repositories: git's maintenance really packs and writes the
commit-graph, at most once per interval, never beside `git maintenance start` or a held lock,
never where git's own maintenance is in charge, and in the worktree of the landing."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from landwatch import layout, work_item
from landwatch.kinds.base import RetryLater
from landwatch.kinds.maintenance import MaintenanceHandler
from landwatch.work_item import DONE, PENDING, WorkItem, WorkKind
from support.daemon import reviewer_command, reviewer_env, run_reviewer
from support.faketime import FakeTime
from support.kinds import FakeClock, in_process, reporter, settle_down
from support.repos import Repo, separate_git_dir, submodule, worktree_entry
from support.tokens import random_text


def loose_objects(repo: Repo) -> int:
    stats = dict(line.split(": ") for line in repo.git("count-objects", "-v").splitlines())
    return int(stats["count"])


# git's own maintenance after one command turned off, as `git -c maintenance.auto=false commit`
# does: the repository's configuration still asks for it, and what packs is landwatch's.
NO_MAINTENANCE_AFTER = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
}


@pytest.fixture(autouse=True)
def _maintained(repo: Repo) -> None:
    """Every repository here asks for maintenance, and git's own threshold is lowered so that
    its loose objects call for a gc."""
    repo.git("config", "landwatch.maintenance", "true")
    repo.git("config", "gc.auto", "256")


def land_many_files(repo: Repo, count: int = 3000) -> str:
    """A landing of `count` new files, left loose: git's own maintenance after it is off."""
    files = {f"f{number:04}.txt": f"file {number}\n" for number in range(count)}
    return repo.land(f"{count} files", files, env=NO_MAINTENANCE_AFTER)


def queued(git_dir: Path) -> WorkItem:
    """The maintenance item waiting in `git_dir`, as the hook recorded it (its worktree too)."""
    work_item.publish_ready(git_dir)
    found = [
        work_item.read_entry(git_dir, PENDING, name) for name in work_item.entries(git_dir, PENDING)
    ]
    items = [item for item in found if item is not None and item.kind == WorkKind.MAINTENANCE]
    assert len(items) == 1, items
    return items[0]


def test_a_landing_gets_real_maintenance_once_per_interval(repo: Repo) -> None:
    oid = land_many_files(repo)
    assert repo.pending(kind=WorkKind.MAINTENANCE) == [(oid, None)]
    common = repo.git_dir
    assert loose_objects(repo) > 3000
    assert not (common / "objects" / "info" / "commit-graph").exists()
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert loose_objects(repo) < 50  # packed
    assert (common / "objects" / "info" / "commit-graph").exists() or (
        common / "objects" / "info" / "commit-graphs"
    ).exists()
    assert f"maintenance-{oid}" in [
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ]
    repo.land("within the hour", "late.txt")
    assert repo.pending(kind=WorkKind.MAINTENANCE) == []  # the hooks know it is not due


def test_nothing_twice_with_git_maintenance_start(repo: Repo) -> None:
    oid = repo.land("one")
    repo.git("config", "--global", "--add", "maintenance.repo", str(repo.path))
    report = MaintenanceHandler().handle(
        WorkItem(WorkKind.MAINTENANCE, oid, repo.git_dir), reporter()
    )
    assert not report.ran and "git maintenance start" in report.note
    assert int(layout.MAINTENANCE_AFTER.path(repo.git_dir).read_text()) > 0


def test_turned_off_and_rate_limited(repo: Repo) -> None:
    oid = repo.land("one")
    item = WorkItem(WorkKind.MAINTENANCE, oid, repo.git_dir)
    kind = MaintenanceHandler()
    assert kind.handle(item, reporter()).ran
    assert kind.handle(item, reporter()).note == "ran less than an interval ago"
    repo.git("config", "landwatch.maintenance", "false")
    assert "turned off" in kind.handle(item, reporter()).note


def test_a_held_lock_is_a_retry_not_a_failure(repo: Repo, tmp_path: Path) -> None:
    oid = repo.land("one")
    lock = repo.git_dir / "objects" / "maintenance.lock"
    lock.write_text("")
    with pytest.raises(RetryLater, match=r"maintenance\.lock"):
        MaintenanceHandler().handle(WorkItem(WorkKind.MAINTENANCE, oid, repo.git_dir), reporter())
    clock = FakeClock()
    kind = MaintenanceHandler(clock=clock)
    reviewer = in_process({WorkKind.MAINTENANCE: kind}, clock, tmp_path / "state.json")
    settle_down(reviewer)
    assert repo.pending(kind=WorkKind.MAINTENANCE) == [(oid, None)]
    lock.unlink()
    clock.advance(301)
    settle_down(reviewer)
    assert repo.pending(kind=WorkKind.MAINTENANCE) == []
    done = [n for n in work_item.entries(repo.git_dir, DONE) if n.startswith("maintenance-")]
    assert len(done) == 1
    assert work_item.read_entry(repo.git_dir, DONE, done[0]).tries == 0  # type: ignore[union-attr]
    reviewer.shutdown()


def test_a_gc_pid_left_by_a_gc_no_longer_running_here_holds_nothing(repo: Repo) -> None:
    """An audit: a gc killed leaves gc.pid, and maintenance waited 12 hours for it, retried every
    5 minutes; git takes such a lock over at once. A pid running, or another host's, holds it."""
    oid = repo.land("one")
    item = WorkItem(WorkKind.MAINTENANCE, oid, repo.git_dir)
    gone = subprocess.Popen(["true"])  # a pid of this host no longer running
    gone.wait()
    host = os.uname().nodename
    for held in (f"{os.getpid()} {host}", f"{gone.pid} another-{host}", f"-1 {host}"):
        (repo.git_dir / "gc.pid").write_text(held)
        with pytest.raises(RetryLater, match=r"gc\.pid"):
            MaintenanceHandler().handle(item, reporter())
    # Past 32 bits, as git 2.39 reads it (audits): -1 and pid 1 run, a cut dead pid does not.
    for huge, alive in (("9" * 20, True), ("4294967297", True), (str(2**32 + gone.pid), False)):
        (repo.git_dir / "gc.pid").write_text(f"{huge} {host}")
        locked = MaintenanceHandler._locked(repo.git_dir)
        assert locked == (str(repo.git_dir / "gc.pid") if alive else None), huge
    # What git's fscanf reads alike, or does not read at all (git takes those over too).
    for spelt in (f"+{gone.pid} {host}", f"{gone.pid}\t{host}\n", f"{gone.pid} {host} x", "junk"):
        (repo.git_dir / "gc.pid").write_text(spelt)
        assert MaintenanceHandler._locked(repo.git_dir) is None, spelt
    (repo.git_dir / "gc.pid").write_text(f"{gone.pid} {host}")
    assert MaintenanceHandler().handle(item, reporter()).ran


def test_git_s_words_on_a_failed_maintenance_are_kept_redacted(repo: Repo) -> None:
    """An audit: a token pasted into the wrong setting (`gc.auto`) failed git's maintenance, and
    git's words naming the value were kept whole in the reviewer's state file, the job's error
    and its note; only the log redacted them."""
    token = "glpat-" + random_text("maintenance", 20)
    oid = repo.land("one")
    assert repo.pending(kind=WorkKind.MAINTENANCE) == [(oid, None)]
    repo.git("config", "gc.auto", f"DEPLOY_TOKEN={token}")
    result = run_reviewer("--once", "--wait", "0", "--max-tries", "1")
    assert result.returncode == 65, result.stderr
    kept = layout.REVIEWER_STATE.path().read_text()
    [job] = json.loads(kept)["lines"]["maintenance"]
    said = "bad numeric config value 'DEPLOY_TOKEN=glpa…' for 'gc.auto'"
    assert said in job["error"] and said in job["progress"]["note"], job
    assert token[6:] not in kept + layout.REVIEWER_LOG.path().read_text()


@pytest.mark.parametrize(("written", "used"), [("90", 90), ("90.5", 3600), ("30", 60)])
def test_the_interval_is_read_by_the_rule_the_hooks_follow(
    repo: Repo, written: str, used: int
) -> None:
    """One rule for landwatch.maintenance.interval: whole seconds of 60 or more, the default
    otherwise; the hook stamps maintenance-after by the same (tests/layout/test_layout.py)."""
    repo.git("config", "landwatch.maintenance.interval", written)
    oid = repo.land("one")
    clock = FakeClock()
    kind = MaintenanceHandler(clock=clock)
    assert kind.handle(WorkItem(WorkKind.MAINTENANCE, oid, repo.git_dir), reporter()).ran
    after = int(layout.MAINTENANCE_AFTER.path(repo.git_dir).read_text())
    assert after == work_item.micros(clock.time() + used)


def test_maintenance_is_asked_for_again_once_the_clock_came_back(
    repo: Repo, tmp_path: Path
) -> None:
    """The issue's finding, with libfaketime: maintenance ran by a clock a day ahead, then the
    real clock. `maintenance-after` stayed 25 h ahead and no landing asked for maintenance; now
    a stamp more than an interval ahead is due, and a last run ahead of now is no run."""
    faked = FakeTime(tmp_path, "+1d")
    repo.land("one")
    env = faked.python_env(reviewer_env())
    result = subprocess.run(reviewer_command("--once"), env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ran = work_item.seconds_of(int(layout.MAINTENANCE_RAN.path(repo.git_dir).read_text()))
    assert ran > time.time() + 23 * 3600  # by the faked clock
    oid = repo.land("after the clock came back", "late.txt")  # the hooks: the real clock
    assert repo.pending(kind=WorkKind.MAINTENANCE) == [(oid, None)]
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    ran = work_item.seconds_of(int(layout.MAINTENANCE_RAN.path(repo.git_dir).read_text()))
    assert abs(ran - time.time()) < 600  # it ran again, by the real clock
    repo.land("within the hour", "later.txt")
    assert repo.pending(kind=WorkKind.MAINTENANCE) == []


def test_a_step_of_the_clock_moves_maintenance_after_with_it(repo: Repo, tmp_path: Path) -> None:
    """A reviewer that sees the step moves the stamp by it: an hour from the run by either
    clock, not 25 h after a day's step back."""
    clock = FakeClock()
    after = layout.MAINTENANCE_AFTER.path(repo.git_dir)
    after.write_text(f"{work_item.micros(clock.time() + 3600)}\n")
    kind = MaintenanceHandler(clock=clock)
    reviewer = in_process({WorkKind.MAINTENANCE: kind}, clock, tmp_path / "state.json")
    reviewer.tick()
    clock.wall -= 86400
    reviewer.tick()
    assert int(after.read_text()) == work_item.micros(clock.time() + 3600)
    reviewer.shutdown()


def script(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def elsewhere(tmp_path: Path) -> Path:
    """A working directory outside every repository, as a reviewer's is ("/", $HOME)."""
    directory = tmp_path / "elsewhere"
    directory.mkdir(exist_ok=True)
    return directory


@pytest.mark.parametrize("landed_in", ["the main worktree", "a linked worktree"])
def test_maintenance_asks_no_fsmonitor_and_runs_in_the_landing_s_worktree(
    repo: Repo, tmp_path: Path, landed_in: str
) -> None:
    """The audit's finding: from a reviewer started elsewhere, git took its working directory
    for the work tree, and the repository's fsmonitor hook (watchman's would watch it) was
    asked about that. Now fsmonitor is asked nothing, and git's pre-auto-gc hook runs in the
    worktree the landing was in, as after the person's own commit."""
    asked = tmp_path / "asked.log"
    fsmonitor = script(tmp_path / "fsmonitor", f'echo "fsmonitor $(pwd -P)" >> {asked}\nexit 1')
    repo.git("config", "core.fsmonitor", str(fsmonitor))
    script(repo.git_dir / "hooks" / "pre-auto-gc", f'echo "pre-auto-gc $(pwd -P)" >> {asked}')
    landed = repo
    if landed_in == "a linked worktree":
        repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
        landed = Repo.existing(tmp_path / "linked")
    land_many_files(landed)
    asked.unlink()  # what the person's own git asked
    result = subprocess.run(
        reviewer_command("--once"),
        env=reviewer_env(),
        cwd=elsewhere(tmp_path),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert loose_objects(repo) < 50  # packed
    assert set(asked.read_text().splitlines()) == {f"pre-auto-gc {landed.path.resolve()}"}


@pytest.mark.parametrize("written", ["in the repository", "in your own", "in an included file"])
def test_maintenance_auto_false_leaves_maintenance_to_git(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    """The audit's finding: git's maintenance after commands turned off (`maintenance.auto =
    false`, as `git maintenance register` writes it), landwatch's ran after the landing anyway
    and packed what the person's commit left loose. It is read as git reads it."""
    if written == "in an included file":
        (tmp_path / "more.gitconfig").write_text("[maintenance]\n\tauto = false\n")
        repo.git("config", "include.path", str(tmp_path / "more.gitconfig"))
    else:
        scope = ["--global"] if written == "in your own" else []
        repo.git("config", *scope, "maintenance.auto", "false")
    land_many_files(repo)
    monkeypatch.chdir(elsewhere(tmp_path))
    clock, told = FakeClock(), reporter()
    report = MaintenanceHandler(clock=clock).handle(queued(repo.git_dir), told)
    assert not report.ran and "maintenance.auto = false" in report.note
    assert told.job.progress.note == report.note  # what `landwatch status --json` shows
    assert loose_objects(repo) > 3000
    after = int(layout.MAINTENANCE_AFTER.path(repo.git_dir).read_text())
    assert after == work_item.micros(clock.time() + 3600)  # asked again an interval on


def test_a_repository_registered_from_a_linked_worktree_is_left_to_git(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit's finding: `git maintenance register` in a linked worktree lists that worktree
    (and sets maintenance.auto false); landwatch knew only the main worktree's path and ran
    maintenance too. With maintenance.auto set back, the listed path alone still says so, read
    from a file your configuration includes as git's scheduler reads it."""
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked))
    Repo.existing(linked).git("maintenance", "register")
    repo.land("a landing")
    item = queued(repo.git_dir)
    monkeypatch.chdir(elsewhere(tmp_path))
    report = MaintenanceHandler().handle(item, reporter())
    assert not report.ran and "maintenance.auto = false" in report.note
    repo.git("config", "--unset", "maintenance.auto")
    repo.git("config", "--global", "--unset-all", "maintenance.repo")
    (tmp_path / "scheduled.gitconfig").write_text(f"[maintenance]\n\trepo = {linked}\n")
    repo.git("config", "--global", "include.path", str(tmp_path / "scheduled.gitconfig"))
    report = MaintenanceHandler().handle(item, reporter())
    assert not report.ran and "git maintenance start" in report.note


def test_a_planted_worktree_entry_naming_another_repository_does_not_leave_it_to_git(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An archive's `.git/worktrees/evil/gitdir` naming another repository of yours, which `git
    maintenance start` schedules: that repository's path was taken for this one's, and its
    maintenance left to git, which never runs it here. A worktree is one where it leads back."""
    other = Repo(tmp_path / "other")
    other.git("maintenance", "register")
    worktree_entry(repo.git_dir, other.path / ".git")
    repo.land("a landing")
    monkeypatch.chdir(elsewhere(tmp_path))
    report = MaintenanceHandler().handle(queued(repo.git_dir), reporter())
    assert report.ran, report.note


@pytest.mark.parametrize("make", [separate_git_dir, submodule])
def test_a_registered_repository_whose_git_dir_is_elsewhere_is_left_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], Repo]
) -> None:
    """`git maintenance register` lists the worktree, which a git dir made with
    --separate-git-dir, or a submodule's, does not sit in: found by the worktree the landing
    was recorded in (maintenance.auto set back, so that the path alone says it)."""
    repo = make(tmp_path)
    repo.land("first", hooks=False)
    repo.install()
    repo.git("config", "landwatch.maintenance", "true")
    repo.git("maintenance", "register")
    repo.git("config", "--unset", "maintenance.auto")
    repo.land("a landing")
    monkeypatch.chdir(elsewhere(tmp_path))
    report = MaintenanceHandler().handle(queued(repo.git_dir), reporter())
    assert not report.ran and "git maintenance start" in report.note
