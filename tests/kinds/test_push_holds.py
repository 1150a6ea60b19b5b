"""kinds.push_holds: the pushes held back, one a branch, as the push state keeps them (an older
release's one hold too), which stand and which a push lets go, and what is said once."""

from __future__ import annotations

import json

from landwatch import layout
from landwatch.kinds import push_holds
from landwatch.kinds.push_holds import held_back, holds, holds_in, said_before, standing, with_hold
from support.repos import Repo


def hold(commit: str, branch: str, setting: str = "") -> dict[str, str]:
    made = {"commit": commit, "branch": branch, "what": f"{commit} holds", "why": "because"}
    return {**made, "setting": setting} if setting else made


def test_a_hold_replaces_its_own_branch_s_alone_the_newest_last() -> None:
    state: dict[str, object] = {"failing_since": 1.0}
    for each in (hold("1", "main"), hold("2", "topic"), hold("3", "main")):
        state = with_hold(state, each)
    assert holds_in(state) == [hold("2", "topic"), hold("3", "main")]
    assert state["failing_since"] == 1.0  # what else the state says is kept


def test_an_older_release_s_one_hold_is_read_and_written_as_holds() -> None:
    older: dict[str, object] = {"held_back": hold("1", "main"), "remote": "origin"}
    assert holds_in(older) == [hold("1", "main")]
    written = with_hold(older, hold("2", "topic"))
    assert written == {"remote": "origin", "holds": [hold("1", "main"), hold("2", "topic")]}
    # The share state's notes held back go by that name too: no hold.
    assert holds_in({"held_back": {"a" * 40: "b" * 40}}) == []


def test_a_push_lets_go_its_own_branch_s_hold_and_those_it_may_have_landed_on() -> None:
    untold = hold("2", push_holds.either(["a", "b"]))
    state = {"holds": [hold("1", "main"), untold, hold("3", "topic")]}
    assert standing(state, ["b"]) == [hold("1", "main"), hold("3", "topic")]
    assert standing(state, ["main", "topic"]) == [untold]
    assert standing(state, []) == holds_in(state)  # a push rejected, out of reach: all stand


def test_holds_are_bounded_the_oldest_dropped_first() -> None:
    state: dict[str, object] = {}
    for n in range(push_holds.MOST_HOLDS + 2):
        state = with_hold(state, hold(str(n), f"b{n}"))
    kept = holds_in(state)
    assert len(kept) == push_holds.MOST_HOLDS and kept[0]["commit"] == "2"


def test_a_hold_for_a_setting_is_said_once_and_again_for_its_own_landing(repo: Repo) -> None:
    state = with_hold({}, hold("1", "main", "origin main\npush.default upstream"))
    layout.PUSH_STATE.path(repo.git_dir).write_text(json.dumps(state))
    assert said_before(repo.git_dir, "main", "2", "origin main\npush.default upstream")
    assert not said_before(repo.git_dir, "main", "1", "origin main\npush.default upstream")
    assert not said_before(repo.git_dir, "main", "2", "origin main\npush.default simple")
    assert not said_before(repo.git_dir, "topic", "2", "origin main\npush.default upstream")
    assert [each["commit"] for each in holds(repo.git_dir)] == ["1"]
    assert held_back(repo.git_dir, "1") is not None and held_back(repo.git_dir, "2") is None
