"""The pushes auto-push holds back (kinds.push), one for each branch held, kept in the push state
until that branch's own push goes through, whatever another branch's push does (rejected, out of
reach, pushed): status says each, and the one line each once; `landwatch allow` retries them.

A hold is the landing held (`commit`), its `branch` (where the reflogs cannot tell which branch it
landed on, those it may have: `a or b`), `what` holds it and `why`, with what to do; and the
`setting` that held it where one did (a configuration, or the branches a landing may have landed
on): a later landing held for the same is not said again.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from landwatch import layout
from landwatch.files import read_file, write_atomic
from landwatch.kinds.push_answer import redacted_state

Hold = dict[str, str]

HOLDS = "holds"
# An older release's push state kept one hold, by this name (which the share state gives the
# notes it holds back): read as the one hold it is, written as holds.
OLDER = "held_back"
# At most this many holds are kept, the oldest dropped first: one a branch held, and a branch is
# held once at a time (landwatch.push.branches may name thousands).
MOST_HOLDS = 1000
# Joins the branches a landing may have landed on, in a hold's `branch`: no branch's name holds a
# space (git check-ref-format), so the branches are read back from it whole.
_OR = " or "


def read_state(git_dir: Path, place: layout.Place = layout.PUSH_STATE) -> dict[str, object] | None:
    """How pushing from this worktree stands (failing, held back), for status and the one
    line; of another place, what the kind keeping it wrote. Its words redacted, an older one's."""
    try:
        data = json.loads(read_file(place.path(git_dir), trusted=layout.common_dir(git_dir)))
    except (OSError, ValueError):
        return None
    return redacted_state(data) if isinstance(data, dict) else None


def holds(git_dir: Path) -> list[Hold]:
    """The pushes held back from this worktree, the oldest first."""
    return holds_in(read_state(git_dir) or {})


def held_back(git_dir: Path, commit: str | None = None) -> Hold | None:
    """The push held back of the landing `commit`, or the newest held back; None where none is."""
    found = [hold for hold in holds(git_dir) if commit in (None, hold["commit"])]
    return found[-1] if found else None


def holds_in(state: Mapping[str, object]) -> list[Hold]:
    """The holds a push state keeps (an older release's one too), each whole."""
    kept = state.get(HOLDS)
    if not isinstance(kept, list):
        older = state.get(OLDER)
        kept = [older] if isinstance(older, dict) and "why" in older else []
    return [
        {"branch": "", **hold}
        for hold in kept
        if isinstance(hold, dict)
        and all(isinstance(value, str) for value in hold.values())
        and all(key in hold for key in ("commit", "what", "why"))
    ]


def with_hold(state: Mapping[str, object], hold: Hold) -> dict[str, object]:
    """`state` keeping `hold` in place of its branch's before, the other branches' kept."""
    others = [each for each in holds_in(state) if each["branch"] != hold["branch"]]
    rest = {key: value for key, value in state.items() if key not in (HOLDS, OLDER)}
    return {**rest, HOLDS: [*others, hold][-MOST_HOLDS:]}


def standing(state: Mapping[str, object], pushed: Collection[str]) -> list[Hold]:
    """The holds of `state` that stand once the branches `pushed` went through: a branch's is let
    go by its own push; one of a landing whose branch cannot be told, by a push of any it may
    have landed on (which sends it)."""
    return [hold for hold in holds_in(state) if not set(hold["branch"].split(_OR)) & set(pushed)]


def said_before(git_dir: Path, branch: str, landed: str, setting: str) -> bool:
    """Whether the push of `branch` was held back for `setting` at an earlier landing, and said:
    not said again. The very landing held, retried, is held again and said: the answer asked."""
    held = next((hold for hold in holds(git_dir) if hold["branch"] == branch), None)
    return held is not None and held.get("setting") == setting != "" and held["commit"] != landed


def either(branches: Iterable[str]) -> str:
    """A hold's `branch` for a landing whose branch cannot be told among `branches`."""
    return _OR.join(branches)


def write_push_state(git_dir: Path, state: Mapping[str, object], place: layout.Place) -> None:
    """How pushing (or sharing) from here stands, failing or held back, for status and the one
    line: its words redacted."""
    write_atomic(
        place.path(git_dir),
        json.dumps(redacted_state(dict(state))),
        trusted=layout.common_dir(git_dir),
        durable=False,
    )


def failing(
    previous: Mapping[str, object], remote: str, message: str, now: float, after: float
) -> dict[str, object]:
    """The state of pushes failing since the first did, as `previous` says (its holds and what
    was last pushed kept: a hold stays while the remote is out of reach): the remote, the last
    error, and when it is tried again."""
    since = previous.get("failing_since")
    kept = ("pushed_at", "pushed", "held_back", HOLDS)
    return {
        **{key: previous[key] for key in kept if key in previous},
        "remote": remote,
        "failing_since": since if isinstance(since, float) else now,
        "last_error": message[:500],
        "retry_at": now + after,
    }
