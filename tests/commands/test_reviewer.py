"""`landwatch reviewer`: the resident process in the foreground, `--once` or detached; a handler
given by hand (`--handler KIND=MODULE:CLASS`) replaces or adds a kind's, and one that cannot be
loaded is said on the terminal before anything starts."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from landwatch import layout, report_store, work_item
from landwatch.commands.reviewer import handler_overrides
from landwatch.daemon.lock import RUNTIME_LOCK, holder
from support.daemon import done_ids, reviewer_command, reviewer_env, run_reviewer
from support.queue import fill, read_only_view, tmpfs
from support.repos import ENDLESS, FIFO, Repo, back_date, planted_worktree
from support.timing import run_bounded


def test_handlers_given_by_hand_are_kinds_to_handlers() -> None:
    specs = ["review=support.handlers:Noop", "backup=my.module:Backup", "review=other:Later"]
    assert handler_overrides(specs) == {"review": "other:Later", "backup": "my.module:Backup"}
    assert handler_overrides([]) == {}


def test_a_handler_that_cannot_be_loaded_is_said_before_detaching(repo: Repo) -> None:
    refused = run_reviewer("--detach", "--handler", "review=no.such.module:Thing")
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == (
        "landwatch: cannot load the handler no.such.module:Thing: No module named 'no'\n"
    )
    assert holder() is None and not layout.REVIEWER_STATE.path().exists()  # nothing started


def test_once_drains_and_says_how_it_ran(repo: Repo, journal: Path) -> None:
    oid = repo.land("one")
    ran = run_reviewer("--once", "--handler", "review=support.handlers:Noop", journal=journal)
    assert ran.returncode == 0, ran.stderr
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    state = json.loads(layout.REVIEWER_STATE.path().read_text())
    assert state["mode"] == "once" and state["stopped"] is True
    assert holder() is None  # it let go of the lock as it ended


def test_once_after_a_reviewer_was_killed_reviews_what_it_had_claimed(repo: Repo) -> None:
    """A reviewer killed mid-review leaves its claim; `--once` does not call the queues drained
    while one is left: it says so, takes it back when its lease ends, and reviews it."""
    landed = repo.land("claimed, then killed", {"a.txt": "a  \n"})
    work_item.publish_ready(repo.git_dir)
    left = work_item.claim_next(repo.git_dir)  # as the killed reviewer claimed it
    assert left is not None
    result = run_reviewer("--once", "--lease", "2", timeout=120)
    assert result.returncode == 0, result.stderr
    assert "claimed by a reviewer that stopped" in result.stderr
    assert f"review-{landed}" in done_ids(repo.git_dir)
    assert work_item.entries(repo.git_dir, work_item.CLAIMED) == []


def backing_off(repo: Repo, message: str, seconds: float) -> str:
    """A landing whose item waits `seconds` before it may be claimed again, as one does after
    a reviewer that claimed it was killed twice (its second recovery starts the backoff)."""
    landed = repo.land(message, {"a.txt": "a  \n"})
    work_item.publish_ready(repo.git_dir)
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    work_item.requeue(repo.git_dir, claimed, max_tries=5, count_try=False, delay=seconds)
    return landed


def test_once_waits_for_an_item_backing_off_then_reviews_it(repo: Repo) -> None:
    """Before, `--once` ended at once with exit 0, the item pending and no review, after
    saying only that it had recovered it."""
    landed = backing_off(repo, "backing off for two seconds", 2.0)
    result = run_reviewer("--once", timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"waiting for 1 review item(s) in {repo.git_dir}, backing off: due at " in (
        result.stderr
    )
    assert report_store.read(repo.git_dir, landed) is not None
    assert repo.pending() == []


def test_once_leaves_an_item_waiting_an_hour_and_exits_75(repo: Repo) -> None:
    """An item that waits longer than `--once` does (2 min) is said and left for the next run,
    with exit status 75 (EX_TEMPFAIL): 0 said every landing was reviewed."""
    landed = backing_off(repo, "backing off for an hour", 3600.0)
    result = run_reviewer("--once", timeout=120)
    assert result.returncode == 75, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "left for the next run" in line]
    assert line.startswith(
        f"landwatch: left for the next run: 1 review item(s) in {repo.git_dir}, backing off until "
    )
    assert line.endswith("past what --once waits (2 min in all)")
    assert repo.pending() == [(landed, None)]


def test_once_that_gave_items_up_names_each_and_exits_65(repo: Repo, journal: Path) -> None:
    """Items whose tries ran out are named, one line each, and the run exits 65: before, it
    exited 0 and a script running it took every landing for reviewed."""
    landed = [repo.land(f"failing {n}", {f"f{n}.txt": "a\n"}) for n in range(2)]
    failing = ("--handler", "review=support.handlers:Failing")
    result = run_reviewer("--once", "--max-tries", "1", *failing, journal=journal)
    assert result.returncode == 65, result.stderr
    named = sorted(line for line in result.stderr.splitlines() if "given up: " in line)
    assert named == sorted(
        f"landwatch: given up: review-{oid} in {repo.git_dir} (gave up after 1 tries: "
        f"RuntimeError: this handler always fails); once mended: landwatch retry {oid[:12]}"
        for oid in landed
    )


def test_once_names_a_killed_reviewers_claim_it_gave_up(repo: Repo) -> None:
    """A reviewer killed at an item's last try leaves its claim; recovery gives it up, and
    `--once` names it and exits 65 (a claim whose lease ran out an hour ago: no wait)."""
    landed = repo.land("claimed at its last try, then killed")
    back_date(repo, 3600)
    assert work_item.claim_next(repo.git_dir, now=time.time() - 3600) is not None
    result = run_reviewer("--once", "--max-tries", "1")
    assert result.returncode == 65, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "given up: " in line]
    assert line == (
        f"landwatch: given up: review-{landed} in {repo.git_dir} (given up after 1 tries "
        f"(nobody settled it)); once mended: landwatch retry {landed[:12]}"
    )
    assert work_item.given_up(repo.git_dir, f"review-{landed}")


def test_once_on_a_full_state_directory_reviews_every_landing(repo: Repo) -> None:
    """The state directory (the log, the state file, the lock's note of who holds it) has no
    room: the reviewer says so, a line for each, and reviews every landing. Before, it reviewed
    one and exited 1 on the state file (a service restarted got one review per start), or
    never started where the lock's note could not be written."""
    landed = [repo.land(f"waiting {n}", {f"f{n}.txt": "a  \n"}) for n in range(3)]
    state = layout.state_dir()
    with tmpfs(state, "4m"):
        fill(state)
        result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert [report_store.read(repo.git_dir, oid) is not None for oid in landed] == [True] * 3
    said = result.stderr
    for what in (
        f"{layout.REVIEWER_LOG.path()} cannot be written (No space left on device)",
        f"{layout.REVIEWER_STATE.path()} cannot be written (No space left on device)",
        f"{layout.REVIEWER_LOCK.path()} cannot say who holds it (No space left on device)",
    ):
        assert said.count(what) == 1, said
    assert "Traceback" not in said


@pytest.mark.parametrize("lock_there", [True, False], ids=["a reviewer ran", "never ran"])
def test_once_on_a_read_only_state_directory_reviews_every_landing(
    repo: Repo, lock_there: bool
) -> None:
    """The state directory read-only (a remount; bound read-only here, for the reviewer alone):
    its lock is kept in the runtime directory (and held read-only where a reviewer left its
    file), said in one line, and every landing is reviewed: the queue is in the repository.
    Before, it could not take its lock and exited 1, reviewing nothing."""
    if lock_there:
        assert run_reviewer("--once").returncode == 0
    landed = [repo.land(f"waiting {n}", {f"f{n}.txt": "a  \n"}) for n in range(2)]
    state = layout.state_dir()
    state.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        read_only_view(state, *reviewer_command("--once")),
        env=reviewer_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert [report_store.read(repo.git_dir, oid) is not None for oid in landed] == [True, True]
    runtime = Path(os.environ["XDG_RUNTIME_DIR"], RUNTIME_LOCK)
    held = f"{runtime} and {layout.REVIEWER_LOCK.path()} (read-only)" if lock_there else runtime
    said = (
        "landwatch: landwatch's state directory cannot be written (Read-only file system: "
        f"{layout.REVIEWER_LOCK.path().parent}): the reviewer's lock is held in {held}; "
        "reviewing goes on"
    )
    assert result.stderr.splitlines().count(said) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_a_reviewer_with_nowhere_to_keep_its_lock_exits_1_saying_where(repo: Repo) -> None:
    """Read-only everywhere its lock could be kept (no lock file left there to hold): no
    reviewer runs, since another one could not tell it runs; one line says where and why."""
    state = layout.state_dir()
    state.mkdir(parents=True, exist_ok=True)
    runtime = state / "runtime"  # read-only too
    result = subprocess.run(
        read_only_view(state, *reviewer_command("--once")),
        env=reviewer_env(XDG_RUNTIME_DIR=str(runtime)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "landwatch: the reviewer's lock cannot be taken anywhere ("
        f"{runtime / RUNTIME_LOCK}: Read-only file system; "
        f"{layout.REVIEWER_LOCK.path()}: Read-only file system)\n"
    )


@pytest.mark.parametrize("planted", [FIFO, ENDLESS])
def test_a_worktree_entry_whose_commondir_is_no_file_is_skipped_in_one_line(
    repo: Repo, journal: Path, planted: str
) -> None:
    # An audit: an archive's repository holding .git/worktrees/evil (a HEAD, its commondir a
    # FIFO) held `reviewer --once` forever, and every repository's reviews with it: the
    # markers' pruning asked the entry's common dir. A link to /dev/zero was read to MemoryError.
    entry = planted_worktree(repo.git_dir.resolve(), "commondir", planted)
    oid = repo.land("one")
    handler = ("--handler", "review=support.handlers:Noop")
    ran = run_bounded(reviewer_command("--once", *handler), repo.path, reviewer_env(journal))
    assert ran.returncode == 0, ran.stderr
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    said = [line for line in ran.stderr.splitlines() if "evil" in line]
    assert said == [
        f"landwatch: skipping the worktree {entry}: its commondir is no file git wrote "
        "(a link, a FIFO, or no path)"
    ]
