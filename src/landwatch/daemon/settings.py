"""The resident process's knobs and their defaults, in a module of their own so that the command
line can show the defaults without importing the process (`landwatch notice` stays light).
"""

from __future__ import annotations

from typing import NamedTuple

from landwatch.kinds import DEFAULT_LEASE, DEFAULT_MAX_TRIES

# A reflog entry this young may belong to a landing whose hook is still recording it (or
# marking it skipped): the sweep leaves it for its next pass.
SWEEP_GRACE = 10.0


class Settings(NamedTuple):
    lease: float = DEFAULT_LEASE
    max_tries: int = DEFAULT_MAX_TRIES
    rescan: float = 60.0  # re-list every queue even without file events (inotify runs out)
    recovery: float = 300.0  # requeue expired claims of every repository
    prune: float = 3600.0
    keep_done: float = 30 * 86400.0
    keep_done_count: int = 1000
    grace: float = 10.0  # a running job's time to finish after SIGTERM
    jump: float = 30.0  # wall clock moving this much more (or less) than the monotonic one
    watch: bool = True  # file events (watchdog)
    state_every: float = 0.5  # the state file is rewritten at most this often
    sweep_every: float = 60.0  # read every repository's reflogs for landings nobody recorded
    sweep_grace: float = SWEEP_GRACE
    # `--once` waits this long in all (`--wait`; a lease's time, as for a stopped reviewer's
    # claim) for items backing off or held; what waits longer (push's offline backoff, up to an
    # hour; maintenance behind another git's lock) is said and left.
    once_waits: float = DEFAULT_LEASE
