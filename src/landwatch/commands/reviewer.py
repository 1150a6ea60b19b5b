"""`landwatch reviewer [--once | --detach]`: the resident process that drains every registered
repository, in the foreground, until the queues are empty (`once`), or detached.

`handlers` replace or add the handler of a kind (`KIND=MODULE:CLASS`), for tests and experiments.
"""

from __future__ import annotations

import sys

from landwatch import kinds, layout
from landwatch.daemon import process
from landwatch.daemon.loop import Daemon
from landwatch.daemon.settings import Settings
from landwatch.kinds.base import SystemClock


def reviewer(
    *,
    once: bool,
    detach: bool,
    verbose: bool,
    settings: Settings,
    handlers: dict[str, str],
) -> int:
    clock = SystemClock()
    # Errors before detaching: a handler that cannot be loaded is said on the terminal.
    loaded = kinds.handlers(handlers, max_tries=settings.max_tries, clock=clock)
    niceness = layout.read_own_setting(layout.REVIEWER_NICENESS)
    if niceness.problem is not None:
        print(f"landwatch: {niceness.problem}", file=sys.stderr)

    def make() -> Daemon:
        return Daemon(loaded, settings, clock)

    if detach:
        return process.detach(
            lambda say_started: process.serve(
                make,
                mode="detached",
                once=False,
                verbose=verbose,
                to_stderr=False,
                niceness=niceness.value,
                say_started=say_started,
            )
        )
    return process.serve(
        make,
        mode="once" if once else "foreground",
        once=once,
        verbose=verbose,
        to_stderr=True,
        niceness=niceness.value,
        say_started=lambda message: (
            None if message.startswith("ok") else print(message, file=sys.stderr)
        ),
    )


def handler_overrides(specs: list[str]) -> dict[str, str]:
    """`KIND=MODULE:CLASS` arguments as kind -> handler."""
    overrides = {}
    for spec in specs:
        name, _, handler = spec.partition("=")
        overrides[name] = handler
    return overrides
