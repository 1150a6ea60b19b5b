"""The resident process as a process (daemon.process): SIGKILL and restart, SIGTERM and its
grace, the warm worker dying with it, detached in the background."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout, work_item
from landwatch.daemon.process import PrivateLog
from support.daemon import (
    done_ids,
    journal_lines,
    process_gone,
    reviewer_env,
    run_reviewer,
    running,
    wait_for,
)
from support.queue import fill, tmpfs, tries_of
from support.repos import Repo
from support.tokens import random_text

NICENESS = layout.REVIEWER_NICENESS.name


def test_sigkill_in_the_middle_of_a_job_then_restart(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.land("interrupted")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    with running("--lease", "1", "--handler", "review=support.handlers:Blocking", env=env) as first:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the job to start")
        first.kill()
        first.wait()
    assert work_item.find_claim(repo.git_dir, f"review-{oid}") is not None
    with running("--lease", "1", "--handler", "review=support.handlers:Noop", env=env):
        # The restarted reviewer's own expiry timer returns the dead claim after its lease.
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the redo", timeout=60)
    kinds = [words[0] for words in journal_lines(journal) if words[1] == oid]
    assert kinds == ["start", "done"]
    assert tries_of(repo.git_dir, f"review-{oid}") == 1


def test_sigterm_hands_back_a_job_that_outlives_the_grace(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.land("long")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    with running(
        "--grace", "0.5", "--handler", "review=support.handlers:Blocking", env=env
    ) as proc:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the job to start")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        _, stderr = proc.communicate()
    assert "handed back" in stderr
    assert repo.pending() == [(oid, None)]
    assert tries_of(repo.git_dir, f"review-{oid}") == 0


def worker_of(journal: Path, oid: str) -> int:
    """The pid of the warm worker that started `oid`'s job, once it has."""
    wait_for(lambda: any(w[:2] == ["start", oid] for w in journal_lines(journal)), "the job")
    return next(int(w[2]) for w in journal_lines(journal) if w[:2] == ["start", oid])


@contextlib.contextmanager
def held_in_worker(
    repo: Repo, tmp_path: Path, journal: Path, subject: str, *options: str
) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    """A landing whose job waits in the reviewer's warm worker until its gate is written: the
    reviewer (run with `options`), the worker's pid and the landing's oid, once it waits."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.land(subject)
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    handler = "review=support.handlers:BlockingInWorker"
    with running(*options, "--handler", handler, env=env) as reviewer:
        yield reviewer, worker_of(journal, oid), oid


def test_the_warm_worker_dies_with_a_reviewer_killed_by_sigkill(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    with held_in_worker(repo, tmp_path, journal, "interrupted in the worker") as held:
        reviewer, worker, oid = held
        assert worker != reviewer.pid
        reviewer.kill()  # no handler runs, no service manager cleans up
        reviewer.wait()
        wait_for(lambda: process_gone(worker), "the worker to die with its reviewer")
    assert [w[0] for w in journal_lines(journal) if w[1] == oid] == ["start"]


def test_sigterm_ends_a_job_in_the_worker_when_the_grace_runs_out(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    with held_in_worker(repo, tmp_path, journal, "long, in the worker", "--grace", "0.5") as held:
        reviewer, worker, oid = held
        reviewer.send_signal(signal.SIGTERM)
        # Before, closing the worker waited for its job: for ever, as nobody opens the gate.
        assert reviewer.wait(timeout=60) == 0
        _, stderr = reviewer.communicate()
    assert "handed back" in stderr
    assert process_gone(worker)
    assert repo.pending() == [(oid, None)]
    assert tries_of(repo.git_dir, f"review-{oid}") == 0


def test_detach_runs_in_the_background(repo: Repo, journal: Path) -> None:
    started = run_reviewer("--detach", "--handler", "review=support.handlers:Noop", journal=journal)
    assert started.returncode == 0, started.stderr
    assert "reviewer running in the background (pid" in started.stdout
    pid = int(started.stdout.split("(pid ")[1].split(")")[0])
    try:
        oid = repo.land("for the daemon")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the daemon")
        again = run_reviewer("--detach", journal=journal)
        assert again.returncode == 1 and "already running" in again.stderr
        state: dict[str, Any] = json.loads(layout.REVIEWER_STATE.path().read_text())
        assert state["pid"] == pid and state["mode"] == "detached"
    finally:
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: process_gone(pid), "the daemon to stop")


def test_the_log_is_0600_in_a_0700_directory_also_when_it_was_not(repo: Repo) -> None:
    """As docs/security.md says of every file: a new log, and one an older release left 0644."""
    log = layout.REVIEWER_LOG.path()
    assert run_reviewer("--once").returncode == 0
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    log.chmod(0o644)
    kept = log.read_text()
    assert run_reviewer("--once").returncode == 0
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert log.read_text().startswith(kept)  # appended to, not replaced


def test_a_rotated_log_starts_0600_and_no_link_is_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "reviewer.log"
    handler = PrivateLog(log, size=10, kept=1)
    try:
        for n in range(2):
            handler.emit(logging.makeLogRecord({"msg": f"line {n} is longer than ten bytes"}))
    finally:
        handler.close()
    for path in (log, tmp_path / "reviewer.log.1"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    log.unlink()
    log.symlink_to(tmp_path / "elsewhere")
    linked = PrivateLog(log)
    try:
        linked.emit(logging.makeLogRecord({"msg": "never through the link"}))
    finally:
        linked.close()
    assert not (tmp_path / "elsewhere").exists()
    assert f"{log} cannot be written (Too many levels of symbolic links)" in capsys.readouterr().err


def test_a_fifo_at_the_log_is_refused_never_waited_on(tmp_path: Path) -> None:
    """An audit: a FIFO at reviewer.log was opened to write and waited on for a reader for ever,
    the reviewer holding its lock and deaf to SIGTERM (the open is retried). Refused at once,
    said once, whether a reader waits on it or not; nothing is written into it."""
    fifo = tmp_path / "reviewer.log"
    os.mkfifo(fifo, 0o600)
    emit = (
        "import logging, sys\nfrom landwatch.daemon.process import PrivateLog\n"
        "handler = PrivateLog(sys.argv[1])\n"
        "handler.emit(logging.makeLogRecord({'msg': 'a line'}))\nprint(handler.unwritten)\n"
    )
    for reader in (False, True):
        held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK) if reader else None
        try:
            said = subprocess.run(
                [sys.executable, "-c", emit, str(fifo)],
                capture_output=True,
                text=True,
                timeout=120,  # a hang is for ever: this bounds only the failing run
            )
            assert said.returncode == 0, said.stderr
            assert said.stdout.strip() in ("No such device or address", "not a regular file")
            assert f"{fifo} cannot be written" in said.stderr
            if held is not None:
                assert os.read(held, 100) == b""  # nothing was written into it
        finally:
            if held is not None:
                os.close(held)


# A log as the reviewer writes it, in a process of its own (no rule set loaded by another test):
# a line, a traceback, then whether the maintained rule set was loaded for them.
LOGGED = """
import logging, sys
from landwatch.daemon.process import PrintableFormatter, PrivateLog
from landwatch.review.secrets import provider_rules
handler = PrivateLog(sys.argv[1])
handler.setFormatter(PrintableFormatter("%(levelname)s %(message)s"))
log = logging.getLogger("landwatch.test")
log.addHandler(handler)
log.error("held back: DEPLOY_TOKEN=%s found; push refused", sys.argv[2])
try:
    raise RuntimeError("fatal: unable to access 'https://bob:" + sys.argv[3] + "@h.example/r.git'")
except RuntimeError:
    log.exception("git push to origin failed")
print(provider_rules.loaded())
"""


def test_every_line_of_the_log_is_redacted_and_no_rule_set_loaded_for_it(tmp_path: Path) -> None:
    """An audit found a refusing hook's token whole in the log, which escaped every line and
    redacted none. Now every line is, a traceback's too, by the detectors at hand: the rule set
    is never loaded into the resident reviewer for its log (50 MB, more than it holds at rest)."""
    log = tmp_path / "reviewer.log"
    token, password = "glpat-" + random_text("log", 20), random_text("password", 16)
    ran = subprocess.run(
        [sys.executable, "-c", LOGGED, str(log), token, password],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout == "False\n"
    written = log.read_text()
    assert "ERROR held back: DEPLOY_TOKEN=glpa… found; push refused" in written
    assert "Traceback (most recent call last):" in written and "https://bob:" in written
    assert token[6:] not in written and password not in written, written


def test_a_full_disk_under_the_log_is_said_once_and_the_log_goes_on_once_there_is_room(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, every line the log could not take printed logging's traceback on stderr (the
    journal, under systemd); now one line says so, and again if it fails anew after room."""
    disk = tmp_path / "state"
    with tmpfs(disk, "1m"):
        log = disk / "reviewer.log"
        handler = PrivateLog(log)
        try:
            filler = fill(disk)
            for n in range(50):
                handler.emit(logging.makeLogRecord({"msg": f"line {n} while full"}))
            said = capsys.readouterr().err
            assert said == (
                f"landwatch: {log} cannot be written (No space left on device): the reviewer's "
                "log lines are dropped from it until it can\n"
            )
            filler.unlink()
            handler.emit(logging.makeLogRecord({"msg": "room again"}))
            assert log.read_text().endswith("room again\n")
            filler = fill(disk)
            for n in range(3):
                handler.emit(logging.makeLogRecord({"msg": f"full again {n} " + "x" * 8192}))
            assert capsys.readouterr().err.count("cannot be written") == 1
        finally:
            handler.close()


def test_a_burst_of_sighups_then_sigterm_ends_the_reviewer(repo: Repo, journal: Path) -> None:
    """Each signal's handler ran while the loop waited: when it set a threading.Event, one that
    arrived while the loop held that Event's lock hung the reviewer for good (daemon.wakeup)."""
    env = reviewer_env(journal)
    with running("--handler", "review=support.handlers:Recording", env=env) as reviewer:
        for _ in range(300):
            reviewer.send_signal(signal.SIGHUP)
        oid = repo.land("after the burst")
        wait_for(lambda: ["reviewed", oid, "-"] in journal_lines(journal), "the landing")
        reviewer.send_signal(signal.SIGTERM)
        reviewer.communicate(timeout=60)
    assert "stopping (SIGTERM)" in layout.REVIEWER_LOG.path().read_text()


def test_the_reviewer_and_its_workers_yield_the_processor_to_the_person(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    """Background work at background priority, by default: beside a busy reviewer at niceness
    0, a task using both cores took 1.49x its time alone, at 10 1.04x (bench_busy_reviewer)."""
    subprocess.run(["git", "config", "--global", "--unset", NICENESS], check=True)
    with held_in_worker(repo, tmp_path, journal, "reviewed while the person works") as held:
        reviewer, worker, oid = held
        for pid in (reviewer.pid, worker):
            assert os.getpriority(os.PRIO_PROCESS, pid) == 10
            assert os.sched_getscheduler(pid) == os.SCHED_BATCH
        with (tmp_path / "gate").open("wb") as opened:
            opened.write(b"x")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the review")
    assert "at niceness 10, batch scheduling" in layout.REVIEWER_LOG.path().read_text()


def test_a_niceness_the_person_set_is_used_and_one_that_is_none_said_in_a_line(
    repo: Repo,
) -> None:
    subprocess.run(["git", "config", "--global", NICENESS, "19"], check=True)
    assert run_reviewer("--once").returncode == 0
    assert "at niceness 19, batch scheduling" in layout.REVIEWER_LOG.path().read_text()
    subprocess.run(["git", "config", "--global", NICENESS, "twenty"], check=True)
    ran = run_reviewer("--once")
    assert ran.returncode == 0
    assert ran.stderr.splitlines()[0] == (
        f"landwatch: git config {NICENESS} = 'twenty' is not a whole number from 0 to 19; "
        "landwatch uses 10"
    )
    assert layout.REVIEWER_LOG.path().read_text().count("at niceness") == 2


def test_a_reviewer_started_lower_stays_as_low_and_keeps_its_policy() -> None:
    """A person who started it at niceness 15, or under the idle policy, meant it."""
    code = (
        "import os\n"
        "os.nice(15)\n"
        "os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
        "from landwatch.daemon.process import background_priority\n"
        "print(background_priority(10))\n"
        "print(os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0) == os.SCHED_IDLE)\n"
    )
    said = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    # 15 above the test's own niceness (a suite run under `nice` starts higher), at most 19.
    low = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 15)
    assert said == [f"at niceness {low}", f"{low} True"]
