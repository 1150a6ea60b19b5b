"""One reviewer per user (daemon.lock): the lock names who holds it until it lets go or dies
however it dies, a second taker is refused naming the first (a second reviewer exits so, whatever
its environment says of the runtime dir), and reading who holds it never waits or trusts garbage."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import layout
from landwatch.daemon.lock import AlreadyRunning, InstanceLock, LockHolder, holder
from support.daemon import reviewer_command, reviewer_env, run_reviewer, running, wait_for
from support.queue import read_only_view
from support.repos import installed


def test_a_second_reviewer_exits_naming_the_first(tmp_path: Path, journal: Path) -> None:
    installed(tmp_path / "repo")
    with running("--handler", "review=support.handlers:Noop", env=reviewer_env(journal)) as first:
        second = run_reviewer("--once", journal=journal)
        assert second.returncode == 1
        assert second.stderr.count("\n") == 1
        assert f"already running (pid {first.pid}, foreground" in second.stderr


def test_one_reviewer_whatever_the_environment_says_of_its_runtime_dir(
    tmp_path: Path, journal: Path
) -> None:
    installed(tmp_path / "repo")
    env = reviewer_env(journal)
    with running("--handler", "review=support.handlers:Noop", env=env) as first:
        bare = {k: v for k, v in env.items() if k != "XDG_RUNTIME_DIR"}  # cron, a GUI session
        elsewhere = {**env, "XDG_RUNTIME_DIR": str(tmp_path / "another-run")}
        for other in (bare, elsewhere):
            second = subprocess.run(
                reviewer_command("--once"), env=other, capture_output=True, text=True, timeout=120
            )
            assert second.returncode == 1 and f"already running (pid {first.pid}" in second.stderr
            status = subprocess.run(
                [sys.executable, "-m", "landwatch", "service", "status"],
                env=other,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert f"pid {first.pid}" in status.stdout + status.stderr


@pytest.mark.parametrize("lock_there", [True, False], ids=["a reviewer ran", "never ran"])
def test_two_reviewers_at_once_one_seeing_the_state_read_only_one_runs(
    tmp_path: Path, lock_there: bool
) -> None:
    """Two reviewers started together, one where the state directory is read-only (bound so for
    it alone), the other where it is not: each round, one runs and the other exits 1 naming a
    reviewer running, whichever starts first. Both take the runtime directory's lock first, so
    the read-only one, which can hold the state directory's only read-only where a reviewer left
    its file, or not at all, never runs beside the other."""
    installed(tmp_path / "repo")
    state = layout.state_dir()
    state.mkdir(parents=True, exist_ok=True)
    if lock_there:
        assert run_reviewer("--once").returncode == 0
    commands = (read_only_view(state, *reviewer_command()), reviewer_command())
    for _ in range(4):
        at_once(commands, reviewer_env())


def at_once(commands: tuple[list[str], ...], env: dict[str, str]) -> None:
    """`commands` (reviewers) started together: one exits 1, refused, the other runs and is
    named by the lock; it ends at SIGTERM."""
    started = [subprocess.Popen(c, env=env, text=True, stderr=subprocess.PIPE) for c in commands]
    try:
        wait_for(lambda: any(p.poll() is not None for p in started), "one to be refused")
        [refused] = [p for p in started if p.poll() is not None]
        [runs] = [p for p in started if p is not refused]
        assert refused.returncode == 1
        assert "landwatch: a reviewer is already running (" in refused.communicate()[1]
        wait_for(lambda: getattr(holder(), "pid", None) == runs.pid, "the one running named")
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.communicate(timeout=120)
    assert runs.returncode == 0


HOLDER = LockHolder(4321, "foreground", "9.9", "/var/log/reviewer.log")


def test_who_holds_the_lock_is_who_took_it_until_it_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "run" / "reviewer.lock"
    assert holder(path) is None  # no file: nobody
    lock = InstanceLock(path)
    lock.acquire(HOLDER)
    assert holder(path) == HOLDER
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    lock.release()
    lock.release()  # twice: nothing more to let go
    assert holder(path) is None  # the file stays, nobody holds it


def test_a_second_taker_is_refused_naming_the_first(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.lock"
    first = InstanceLock(path)
    first.acquire(HOLDER)
    with pytest.raises(AlreadyRunning) as refused:
        InstanceLock(path).acquire(LockHolder(1, "once", "9.9", "elsewhere"))
    assert str(refused.value) == (
        "a reviewer is already running (pid 4321, foreground, landwatch 9.9, "
        "log /var/log/reviewer.log)"
    )
    assert holder(path) == HOLDER  # the refused one wrote nothing over it
    first.release()
    second = InstanceLock(path)
    second.acquire(LockHolder(1, "once", "9.9", "elsewhere"))
    assert holder(path) == LockHolder(1, "once", "9.9", "elsewhere")
    second.release()


def test_the_kernel_lets_go_however_the_holder_dies(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.lock"
    taken_read, taken_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(taken_read)
        InstanceLock(path).acquire(LockHolder(os.getpid(), "detached", "9.9", "-"))
        os.write(taken_write, b"x")
        signal.pause()  # held until killed
        os._exit(0)
    os.close(taken_write)
    assert os.read(taken_read, 1) == b"x"
    os.close(taken_read)
    assert holder(path) == LockHolder(pid, "detached", "9.9", "-")
    os.kill(pid, signal.SIGKILL)  # no handler runs, nothing cleans up
    os.waitpid(pid, 0)
    assert holder(path) is None
    mine = InstanceLock(path)
    mine.acquire(HOLDER)
    assert holder(path) == HOLDER
    mine.release()


def test_a_longer_description_left_behind_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.lock"
    path.write_text('{"pid": 1, "mode": "detached", "version": "0.0.1", "log": "' + "x" * 500)
    lock = InstanceLock(path)
    lock.acquire(HOLDER)
    assert holder(path) == HOLDER
    lock.release()


@pytest.mark.parametrize(
    "written", [b"", b"not json", b"[1, 2]", b'"text"', b'{"pid": "12", "mode": 3}']
)
def test_a_description_that_cannot_be_read_names_nobody_in_particular(written: bytes) -> None:
    read = LockHolder.parse(written)
    assert read.pid is None
    assert read.describe().startswith("pid ?, ")


def test_a_fifo_where_the_lock_is_never_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.lock"
    os.mkfifo(path)
    assert holder(path) is None  # at once: no writer is waited for


# The lock taken at a FIFO the taker cannot write, as the reviewer takes it: it falls back to
# opening it read-only (as a lock a read-only state dir leaves), which waited for a writer.
TAKEN_READ_ONLY = """
import sys
from pathlib import Path
from landwatch.daemon.lock import InstanceLock, LockHolder
try:
    InstanceLock(Path(sys.argv[1])).acquire(LockHolder(1, "once", "9.9", "-"))
except OSError as error:
    print(error)
"""


def test_a_fifo_at_the_lock_is_refused_at_once_never_waited_on(tmp_path: Path) -> None:
    """A FIFO where the lock is taken, opened to write, was flocked and then its description
    refused (`Invalid argument`, the reviewer stopped, naming nothing); one the taker cannot
    write was opened read-only and waited on for ever. Refused at once, naming it: at the
    runtime dir's place, the state dir's lock alone is held."""
    fifo, kept = tmp_path / "run" / "reviewer.lock", tmp_path / "state" / "reviewer.lock"
    fifo.parent.mkdir()
    os.mkfifo(fifo, 0o600)
    lock = InstanceLock(fifo, kept)
    lock.acquire(HOLDER)
    assert lock.held == [kept] and lock.not_writable[fifo].strerror == "not a regular file"
    lock.release()
    fifo.chmod(0o400)
    # Root writes whatever the mode says: in a user namespace of its own, it cannot.
    unshared = ["unshare", "--user"] if os.geteuid() == 0 else []
    if unshared and subprocess.run([*unshared, "true"], capture_output=True).returncode != 0:
        pytest.skip("no user namespace here for root to lose its power to write a FIFO")
    taken = subprocess.run(
        [*unshared, sys.executable, "-c", TAKEN_READ_ONLY, str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert taken.stdout == f"[Errno 22] not a regular file: '{fifo}'\n", taken.stderr
