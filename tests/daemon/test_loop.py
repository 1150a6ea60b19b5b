"""The resident process's loop (daemon.loop) with real repositories: a backlog drained with
--once, the rescan when there are no file events, two reviewers at once settling every item
once, and a full disk under the state file stopping no review."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from support.daemon import (
    done_ids,
    journal_lines,
    reviewer_command,
    reviewer_env,
    run_reviewer,
    running,
    wait_for,
)
from support.handlers import Noop
from support.kinds import FakeClock, in_process, settle_down
from support.queue import fill, tmpfs
from support.repos import Repo, installed


def test_once_drains_a_backlog_enqueued_before_it_started(tmp_path: Path, journal: Path) -> None:
    repos = [installed(tmp_path / f"repo{n}") for n in range(3)]
    oids = [
        repo.land(f"change {n} in {repo.path.name}", f"f{n}") for repo in repos for n in range(4)
    ]
    assert len(set(oids)) == 12
    result = run_reviewer("--once", "--handler", "review=support.handlers:Noop", journal=journal)
    assert result.returncode == 0, result.stderr
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)
    for repo in repos:
        assert len(done_ids(repo.git_dir)) == 4 and repo.pending() == []


def test_without_file_events_the_rescan_picks_it_up(repo: Repo, journal: Path) -> None:
    command = ("--no-watch", "--rescan", "1", "--handler", "review=support.handlers:Noop")
    with running(*command, env=reviewer_env(journal)):
        oid = repo.land("no events")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the rescan")


def test_two_reviewers_on_one_repository_settle_every_item_once(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    oids = [repo.land(f"item {n}", f"f{n}") for n in range(30)]
    command = reviewer_command("--once", "--handler", "review=support.handlers:Noop")
    # Two instances can only run with separate state dirs (as across an upgrade that moved the
    # lock): the queue alone must keep them correct.
    processes = [
        subprocess.Popen(
            command,
            env=reviewer_env(journal, XDG_STATE_HOME=str(state)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for state in (tmp_path / "state-a", tmp_path / "state-b")
    ]
    for process in processes:
        assert process.wait(timeout=120) == 0
    assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in oids)
    done = [words[1] for words in journal_lines(journal) if words[0] == "done"]
    assert sorted(done) == sorted(oids)  # each handled once


def test_a_full_disk_under_the_state_file_stops_no_review(
    repo: Repo,
    tmp_path: Path,
    journal: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The state file only feeds `landwatch status`: a write of it that fails is said once (and
    again once it is written again and fails anew) and the reviewer goes on. Before, the
    OSError ended the reviewer (exit 1) and the next landing waited undrained."""
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    run = tmp_path / "run"
    clock = FakeClock()
    caplog.set_level(logging.INFO, logger="landwatch")
    with tmpfs(run, "1m"):
        state = run / "reviewer.json"
        reviewer = in_process({"review": Noop(clock=clock)}, clock, state)
        try:
            filler = fill(run)
            landed = []
            for n in range(3):
                landed.append(repo.land(f"landed on a full state disk {n}", f"f{n}"))
                reviewer.poke(repo.git_dir)
                settle_down(reviewer)
                clock.advance(1.0)  # past the state file's next write
            said = [r.getMessage() for r in caplog.records if str(state) in r.getMessage()]
            assert said == [
                f"{state} cannot be written (No space left on device): `landwatch status` "
                "shows an older state; reviewing goes on"
            ]
            assert done_ids(repo.git_dir) == sorted(f"review-{oid}" for oid in landed)
            filler.unlink()
            repo.land("room again", "f9")
            reviewer.poke(repo.git_dir)
            settle_down(reviewer)
            assert state.exists()
            assert f"{state} is written again" in caplog.text
        finally:
            reviewer.shutdown()
