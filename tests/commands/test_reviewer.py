"""`landwatch reviewer`: the resident process in the foreground, `--once` or detached; a handler
given by hand (`--handler KIND=MODULE:CLASS`) replaces or adds a kind's, and one that cannot be
loaded is said on the terminal before anything starts."""

from __future__ import annotations

import json
from pathlib import Path

from landwatch import layout
from landwatch.commands.reviewer import handler_overrides
from landwatch.daemon.lock import holder
from support.daemon import done_ids, run_reviewer
from support.repos import Repo


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
