"""The processes landwatch starts (processes): run to their end with their output, never with our
stdin or a terminal, stopped past their timeout, `alive` asked while they run and what it raises
stopping them; and a process of ours dies with the one that started it, even when that one is
SIGKILLed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from landwatch.processes import (
    MOST_OUTPUT,
    SAID_TOO_MUCH,
    has_ended,
    most_memory,
    run_command,
    run_program,
)
from support.daemon import process_gone, wait_for
from support.sandbox import MAPPING

# The middle process starts a long sleeper that should die with it, prints its pid, waits.
MIDDLE = textwrap.dedent("""\
    import subprocess, sys
    from landwatch.processes import child_dies_with_us
    sleeper = subprocess.Popen(["sleep", "600"], preexec_fn=child_dies_with_us())
    print(sleeper.pid, flush=True)
    sys.stdin.read()
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_dies_with_a_parent_killed_by_sigkill() -> None:
    middle = subprocess.Popen(
        [sys.executable, "-c", MIDDLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert middle.stdout is not None
    sleeper = int(middle.stdout.readline())
    assert not process_gone(sleeper)
    middle.kill()
    middle.wait()
    wait_for(lambda: process_gone(sleeper), "the sleeper to die with its parent")


def test_a_command_runs_to_its_end_with_its_output_and_status(tmp_path: Path) -> None:
    script = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    done = run_command([sys.executable, "-c", script], timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr, done.timed_out) == (
        3,
        "out\n",
        "err\n",
        False,
    )
    assert not done.ok
    assert run_command(["true"], timeout=60).ok


def test_what_a_command_prints_is_its_bytes_and_what_it_says_words() -> None:
    """Its stdout as the system's own strings hold bytes (a path that is not UTF-8, or that holds
    `\\r`, names that path again: it was read with U+FFFD, and `\\r` as a newline, naming no
    directory), what it is given likewise; its stderr words for a person, U+FFFD for the rest."""
    script = r"printf 'caf\351\r\n'; printf 'caf\351\n' >&2"  # Latin-1's é, not UTF-8
    said = run_command(["sh", "-c", script], timeout=60)
    assert said.ok and os.fsencode(said.stdout) == b"caf\xe9\r\n" and said.stderr == "caf\ufffd\n"
    assert run_command(["cat"], timeout=60, input=said.stdout).stdout == said.stdout


def test_a_command_reads_no_stdin_of_ours_and_has_no_terminal(tmp_path: Path) -> None:
    reading, writing = os.pipe()  # our stdin holds an answer a command must not read
    os.write(writing, b"what a person typed\n")
    os.close(writing)
    saved = os.dup(0)
    os.dup2(reading, 0)
    try:
        read = run_command(["cat"], timeout=20)
        alone = run_command(
            [sys.executable, "-c", "import os; print(os.getsid(0) == os.getpid())"], timeout=60
        )
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(reading)
    assert read.ok and read.stdout == ""
    assert alone.stdout == "True\n"  # a session of its own: no terminal to ask a person on


def test_a_command_past_its_timeout_is_stopped() -> None:
    started = time.monotonic()
    stopped = run_command([sys.executable, "-c", "import time; time.sleep(120)"], timeout=0.3)
    assert stopped.timed_out and not stopped.ok and stopped.returncode < 0
    assert time.monotonic() - started < 30


class Lost(Exception):
    """What a job's `alive` raises once its lease is lost."""


def test_alive_is_asked_while_it_runs_and_what_it_raises_stops_it(tmp_path: Path) -> None:
    asked: list[float] = []

    def alive() -> None:
        asked.append(time.monotonic())
        if len(asked) == 3:
            raise Lost

    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(Lost):
        run_command(
            ["sh", "-c", f"echo $$ > {pid_file}; exec sleep 120"],
            timeout=60,
            alive=alive,
            poll=0.05,
        )
    assert len(asked) == 3 and time.monotonic() - started < 30
    assert process_gone(int(pid_file.read_text()))


def test_a_command_past_its_timeout_is_stopped_with_what_it_started() -> None:
    started = time.monotonic()
    stopped = run_command(["sh", "-c", "sleep 60; exit 0"], timeout=0.3)
    assert stopped.timed_out
    assert time.monotonic() - started < 30  # not the minute the sleeper would hold the pipes


# How long a helper of the person's lives (a pre-push hook's `notifier &`): past any wait a call
# of ours should make for it, and short enough that one waited for shows as a slow failure.
HELPER_LIVES = 30


def helper(pid_file: Path, *, leaving: bool) -> str:
    """Shell that starts a helper keeping the pipes it was given, its pid written to `pid_file`:
    in the command's session, or one that leaves it (setsid), which no kill of ours reaches."""
    own = f"echo $$ > {pid_file}; exec sleep {HELPER_LIVES}"
    return f"{'setsid ' if leaving else ''}sh -c '{own}' &"


def helper_pid(pid_file: Path) -> int:
    wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), "the helper to start")
    return int(pid_file.read_text())


def stop(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("leaving", [False, True], ids=["in-its-session", "left-its-session"])
@pytest.mark.parametrize("runner", ["command", "program"])
def test_a_command_is_done_when_it_exits_though_a_helper_it_started_holds_its_pipes(
    tmp_path: Path, leaving: bool, runner: str
) -> None:
    """A pre-push hook's `notifier &` keeps git's pipes open: the reviewer's push waited for the
    pipes to close, not for git, past its timeout (a push that went through told as `no
    answer`). Now the call returns once the command exits, with all it said; the helper is the
    person's and is left running: it still is when the call returns."""
    pid_file = tmp_path / "helper"
    script = f"{helper(pid_file, leaving=leaving)} echo pushed; echo said >&2"
    if runner == "command":
        done = run_command(["sh", "-c", script], timeout=2 * HELPER_LIVES)
        said = (done.returncode, done.stdout, done.stderr, done.timed_out)
        assert said == (0, "pushed\n", "said\n", False)
    else:
        ran = run_program(["sh", "-c", script], input=b"", timeout=2 * HELPER_LIVES)
        assert (ran.returncode, ran.stdout, ran.stderr, ran.timed_out) == (
            0,
            b"pushed\n",
            b"said\n",
            False,
        )
    pid = helper_pid(pid_file)
    try:
        assert not process_gone(pid)  # the call did not wait for it
    finally:
        stop(pid)


def test_a_command_past_its_timeout_is_not_waited_for_by_a_helper_outside_its_session(
    tmp_path: Path,
) -> None:
    """Its session killed, the command was read to the end of its pipes, which a helper that left
    the session (setsid) held: the reviewer's push hung as long as the helper lived, for good
    for one that never ends. Now what is left in them is read, and the call returns."""
    pid_file = tmp_path / "helper"
    script = f"{helper(pid_file, leaving=True)} echo started; exec sleep {HELPER_LIVES}"
    stopped = run_command(["sh", "-c", script], timeout=2.0)
    pid = helper_pid(pid_file)
    try:
        assert stopped.timed_out and stopped.returncode < 0 and stopped.stdout == "started\n"
        assert not process_gone(pid)  # returned before the helper ended
    finally:
        stop(pid)


def test_a_program_reads_its_input_and_answers_in_bytes(tmp_path: Path) -> None:
    given = b"caf\xe9 \x00 not UTF-8\n"  # a linter's input is a committed file, any bytes
    done = run_program(["sh", "-c", "cat; pwd >&2; exit 4"], input=given, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.timed_out) == (4, given, False)
    assert Path(done.stderr.decode().strip()).resolve() == tmp_path.resolve()


def test_a_program_past_its_timeout_is_stopped_with_all_it_started(tmp_path: Path) -> None:
    """A linter that starts workers which keep its pipes open: all of them are killed, and the
    caller gets its answer at the timeout, not when the workers would end."""
    pids = tmp_path / "pids"
    script = f"sleep 120 & echo $! > {pids}; sleep 120 & wait"
    started = time.monotonic()
    stopped = run_program(["sh", "-c", script], input=b"", timeout=0.5)
    assert stopped.timed_out and stopped.returncode < 0
    assert time.monotonic() - started < 30
    wait_for(lambda: process_gone(int(pids.read_text())), "the linter's worker to be killed")


def test_a_program_that_says_too_much_is_stopped_there_with_all_it_started(
    tmp_path: Path,
) -> None:
    """A hook behind the wall printing at a gigabyte a second: read whole, two seconds of it
    had the reviewer hold 3 GB. Past MOST_OUTPUT on a stream it is stopped, that much kept."""
    pids = tmp_path / "pids"
    script = f"sleep 120 & echo $! > {pids}; head -c 40000000 /dev/zero; wait"
    stopped = run_program(["sh", "-c", script], input=b"", timeout=60)
    assert stopped.over == SAID_TOO_MUCH and not stopped.timed_out and stopped.returncode < 0
    assert stopped.stdout == bytes(MOST_OUTPUT)
    wait_for(lambda: process_gone(int(pids.read_text())), "what it started to be killed")
    flood = run_program(["sh", "-c", "head -c 40000000 /dev/zero >&2"], input=b"", timeout=60)
    assert flood.over == SAID_TOO_MUCH and len(flood.stderr) == MOST_OUTPUT
    # Input it does not read, and output it stops giving at its time, are no trouble.
    given = run_program(
        ["sh", "-c", "head -c 10 > /dev/null; echo read"], input=bytes(1 << 24), timeout=60
    )
    assert (given.stdout, given.returncode, given.over) == (b"read\n", 0, "")
    late = run_program(["sh", "-c", "echo partial; exec sleep 60"], input=b"", timeout=0.5)
    assert late.timed_out and late.stdout == b"partial\n"


def mapped(size: int) -> bytes:
    ran = run_program([sys.executable, "-c", MAPPING, str(size)], input=b"", timeout=60)
    return ran.stdout


def test_a_program_that_runs_away_is_refused_memory_past_half_the_machine_s() -> None:
    """A linter on a pathological file, a hook manager keeping all its hooks print: each
    process of a repository's holds at most half the machine's memory; before, all of it."""
    most = most_memory()
    assert most is not None
    assert mapped(most + (64 << 20)) == b"refused\n"
    assert mapped(256 << 20) == b"held\n"
    # What it starts is bounded too.
    past = most + (64 << 20)
    nested = (
        f"import subprocess, sys; subprocess.run([sys.executable, '-c', {MAPPING!r}, '{past}'])"
    )
    ran = run_program([sys.executable, "-c", nested], input=b"", timeout=60)
    assert ran.stdout == b"refused\n"


def test_a_lower_memory_limit_the_person_set_is_kept() -> None:
    asked = "import resource; print(*resource.getrlimit(resource.RLIMIT_DATA))"
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_DATA, (1 << 30, resource.RLIM_INFINITY))\n"
        "from landwatch.processes import run_program\n"
        f"ran = run_program([sys.executable, '-c', {asked!r}], input=b'', timeout=60)\n"
        "sys.stdout.buffer.write(ran.stdout)\n"
    )
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    assert said.split() == [str(1 << 30).encode()] * 2


def test_a_process_has_ended_when_gone_or_a_zombie_nobody_reaped() -> None:
    # The reviewer that uninstall waits for may be someone's unreaped child: it runs nothing.
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        assert not has_ended(sleeper.pid)
    finally:
        sleeper.kill()
    # Killed and not reaped yet: a zombie; /proc says so once the kill has landed.
    wait_for(lambda: has_ended(sleeper.pid), "the killed process to end")
    assert sleeper.poll() is not None  # reaped only now
    assert has_ended(sleeper.pid)
    assert not has_ended(os.getpid())
