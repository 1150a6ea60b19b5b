"""The resident process's loop (daemon.loop) with real repositories: a backlog drained with
--once, the rescan when there are no file events, and two reviewers at once settling every item
once."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.daemon import (
    done_ids,
    journal_lines,
    reviewer_command,
    reviewer_env,
    run_reviewer,
    running,
    wait_for,
)
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
