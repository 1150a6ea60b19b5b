"""The resident reviewer with real processes and real repositories.

Handlers come from kinds_for_tests (journal lines instead of reviews); waits are for events (a
file appears, a process ends) with a deadline, never a sleep standing in for time passing.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kind_helpers import FakeClock
from landwatch import layout, registry, work_item
from landwatch.daemon.loop import Daemon, Settings
from landwatch.job_queue import Reporter
from landwatch.kinds.base import ItemHandler
from landwatch.work_item import DONE, FAILED, PENDING, WorkItem, WorkKind
from queue_helpers import tries_of
from repo_helpers import installed

TESTS = Path(__file__).parent


def wait_for(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)  # polling for an event, not standing in for time


def reviewer_env(journal: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "LANDWATCH_TEST_JOURNAL": str(journal),
        **extra,
    }


def reviewer_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "landwatch", "reviewer", *args]


def run_reviewer(journal: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`landwatch reviewer ARGS` to its end (with --once, or refused)."""
    return subprocess.run(
        reviewer_command(*args),
        env=reviewer_env(journal, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def journal_lines(journal: Path) -> list[list[str]]:
    return [line.split() for line in journal.read_text().splitlines()] if journal.exists() else []


def done_ids(git_dir: Path) -> list[str]:
    return sorted(work_item.id_of_entry(name) for name in work_item.entries(git_dir, DONE))


def state_file() -> Path:
    return layout.reviewer_state()


@contextlib.contextmanager
def running(*args: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    state_file().unlink(missing_ok=True)
    process = subprocess.Popen(
        reviewer_command(*args), env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: state_file().exists() or process.poll() is not None, "the reviewer")
        assert process.poll() is None, process.communicate()
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal"


def test_once_drains_a_backlog_enqueued_before_it_started(tmp_path: Path, journal: Path) -> None:
    repos = [installed(tmp_path / f"repo{n}") for n in range(3)]
    oids = [
        repo.commit(f"change {n} in {repo.path.name}", name=f"f{n}")
        for repo in repos
        for n in range(4)
    ]
    assert len(set(oids)) == 12
    result = run_reviewer(journal, "--once", "--kind", "review=kinds_for_tests:Noop")
    assert result.returncode == 0, result.stderr
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)
    for repo in repos:
        assert len(done_ids(repo.git_dir)) == 4 and repo.pending() == []


def test_a_new_item_is_picked_up_within_a_second(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    with running("--kind", "review=kinds_for_tests:Noop", env=reviewer_env(journal)):
        oid = repo.commit("wake up")
        landed = time.monotonic()
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the item settled")
        assert time.monotonic() - landed < 1.0


def test_without_file_events_the_rescan_picks_it_up(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    with running(
        "--no-watch",
        "--rescan",
        "1",
        "--kind",
        "review=kinds_for_tests:Noop",
        env=reviewer_env(journal),
    ):
        oid = repo.commit("no events")
        landed = time.monotonic()
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the rescan")
        assert time.monotonic() - landed < 1.0 + 1.0


def test_sigkill_in_the_middle_of_a_job_then_restart(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.commit("interrupted")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    with running("--lease", "1", "--kind", "review=kinds_for_tests:Blocking", env=env) as first:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the job to start")
        first.kill()
        first.wait()
    assert work_item.find_claim(repo.git_dir, f"review-{oid}") is not None
    with running("--lease", "1", "--kind", "review=kinds_for_tests:Noop", env=env):
        # The restarted reviewer's own expiry timer returns the dead claim after its lease.
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the redo", timeout=60)
    kinds = [words[0] for words in journal_lines(journal) if words[1] == oid]
    assert kinds == ["start", "done"]
    assert tries_of(repo.git_dir, f"review-{oid}") == 1


def test_two_reviewers_on_one_repository_settle_every_item_once(
    tmp_path: Path, journal: Path
) -> None:
    repo = installed(tmp_path / "repo")
    oids = [repo.commit(f"item {n}", name=f"f{n}") for n in range(30)]
    command = reviewer_command("--once", "--kind", "review=kinds_for_tests:Noop")
    # Two instances can only run with separate runtime dirs (as across an upgrade).
    processes = [
        subprocess.Popen(
            command,
            env=reviewer_env(journal, XDG_RUNTIME_DIR=str(run)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for run in (tmp_path / "run-a", tmp_path / "run-b")
    ]
    for run in (tmp_path / "run-a", tmp_path / "run-b"):
        run.mkdir()
    for process in processes:
        assert process.wait(timeout=120) == 0
    assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in oids)
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)  # each handled once


def test_a_handler_that_always_fails_ends_in_failed_and_is_told(
    tmp_path: Path, journal: Path
) -> None:
    repo = installed(tmp_path / "repo")
    oid = repo.commit("doomed")
    result = run_reviewer(
        journal, "--once", "--max-tries", "3", "--kind", "review=kinds_for_tests:Failing"
    )
    assert result.returncode == 0
    assert [words for words in journal_lines(journal)] == [
        ["fail", oid, "0"],
        ["fail", oid, "1"],
        ["fail", oid, "2"],
    ]
    assert [work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, FAILED)] == [
        f"review-{oid}"
    ]
    assert "gave up after 3 tries" in result.stderr
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert f"gave up the review of {oid[:7]}" in told


class Gate(ItemHandler[None]):
    name = WorkKind.REVIEW

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.started = threading.Event()
        self.release = threading.Event()

    def handle(self, item: WorkItem, reporter: Reporter) -> None:
        self.started.set()
        assert self.release.wait(30)


def test_after_a_suspend_our_claims_are_renewed_before_anyone_is_requeued(
    tmp_path: Path,
) -> None:
    repo = installed(tmp_path / "repo")
    theirs_oid = repo.commit("held by a reviewer that died")
    ours_oid = repo.commit("ours")
    clock = FakeClock()
    theirs = work_item.claim_next(repo.git_dir, now=clock.time())
    assert theirs is not None and theirs.item.oid == theirs_oid
    gate = Gate(clock=clock)
    reviewer = Daemon(
        {WorkKind.REVIEW: gate},
        Settings(watch=False),
        clock=clock,
        state_file=tmp_path / "state.json",
    )
    reviewer.reload()
    reviewer.tick()
    assert gate.started.wait(10)
    [order] = reviewer.running_orders()
    assert order.item.oid == ours_oid
    clock.wall += 8 * 3600  # the lid was closed all night: the wall clock moved, not ours
    reviewer.tick()
    assert order.lease.renewed_at == clock.wall
    assert work_item.find_claim(repo.git_dir, order.claimed.id) == (
        repo.git_dir / "landwatch" / "claimed" / order.lease.name
    )
    assert tries_of(repo.git_dir, order.claimed.id) == 0  # ours was not requeued
    assert tries_of(repo.git_dir, theirs.id) == 1  # theirs was
    assert [oid for oid, _ in repo.pending()] == [theirs_oid]
    gate.release.set()
    assert reviewer.lines[WorkKind.REVIEW].wait_idle(10)
    assert done_ids(repo.git_dir) == [order.claimed.id]
    reviewer.shutdown()


def test_sigterm_hands_back_a_job_that_outlives_the_grace(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.commit("long")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    with running("--grace", "0.5", "--kind", "review=kinds_for_tests:Blocking", env=env) as proc:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the job to start")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        _, stderr = proc.communicate()
    assert "handed back" in stderr
    assert repo.pending() == [(oid, None)]
    assert tries_of(repo.git_dir, f"review-{oid}") == 0


def test_a_second_reviewer_exits_naming_the_first(tmp_path: Path, journal: Path) -> None:
    installed(tmp_path / "repo")
    with running("--kind", "review=kinds_for_tests:Noop", env=reviewer_env(journal)) as first:
        second = run_reviewer(journal, "--once")
        assert second.returncode == 1
        assert second.stderr.count("\n") == 1
        assert f"already running (pid {first.pid}, foreground" in second.stderr


def test_registry_changes_are_picked_up_without_restart(tmp_path: Path, journal: Path) -> None:
    with running("--kind", "review=kinds_for_tests:Noop", env=reviewer_env(journal)):
        repo = installed(tmp_path / "late")
        oid = repo.commit("after the reviewer started")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the new repository")


def test_unusable_registered_repositories_are_skipped_with_one_line(
    tmp_path: Path, journal: Path
) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "gone").mkdir()
    registry.register(tmp_path / "gone")
    registry.register(tmp_path / "plain")
    (tmp_path / "gone").rmdir()
    repo = installed(tmp_path / "repo")
    oid = repo.commit("still reviewed")
    result = run_reviewer(journal, "--once", "--kind", "review=kinds_for_tests:Noop")
    assert result.returncode == 0
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    skipped = [line for line in result.stderr.splitlines() if "skipping" in line]
    assert len(skipped) == 2
    assert any("it vanished" in line for line in skipped)
    assert any("not a git repository" in line for line in skipped)


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # reparented daemons can linger as zombies until init reaps them
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def test_detach_runs_in_the_background(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    started = run_reviewer(journal, "--detach", "--kind", "review=kinds_for_tests:Noop")
    assert started.returncode == 0, started.stderr
    assert "reviewer running in the background (pid" in started.stdout
    pid = int(started.stdout.split("(pid ")[1].split(")")[0])
    try:
        oid = repo.commit("for the daemon")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the daemon")
        again = run_reviewer(journal, "--detach")
        assert again.returncode == 1 and "already running" in again.stderr
        state: dict[str, Any] = json.loads(state_file().read_text())
        assert state["pid"] == pid and state["mode"] == "detached"
    finally:
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: process_gone(pid), "the daemon to stop")


def test_a_warm_worker_serves_item_after_item(tmp_path: Path, journal: Path) -> None:
    repo = installed(tmp_path / "repo")
    for n in range(3):
        repo.commit(f"worker {n}", name=f"w{n}")
    result = run_reviewer(journal, "--once", "--kind", "review=kinds_for_tests:InWorker")
    assert result.returncode == 0, result.stderr
    pids = {words[2] for words in journal_lines(journal)}
    assert len(journal_lines(journal)) == 3 and len(pids) == 1
    assert len(done_ids(repo.git_dir)) == 3
    assert work_item.entries(repo.git_dir, PENDING) == []
