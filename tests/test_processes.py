"""A process of ours dies with the one that started it, even when that one is SIGKILLed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from support.daemon import process_gone, wait_for

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
