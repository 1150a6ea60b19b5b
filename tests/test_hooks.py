"""What landwatch's hooks are (hooks): the hook's text for each event, and whose a hook is."""

from __future__ import annotations

from pathlib import Path

from landwatch import hooks
from support.repos import Repo


def test_only_a_hook_beside_lefthook_says_lefthook_may_replace_it(tmp_path: Path) -> None:
    # lefthook overwrites, without moving it aside, any hook with LEFTHOOK in it.
    repo = Repo(tmp_path / "repo")
    repo.install()
    for event in hooks.HOOK_EVENTS:
        assert "LEFTHOOK" not in (repo.git_dir / "hooks" / event).read_text()
    entry, host, where = Path("/entry"), "host", repo.git_dir
    assert "LEFTHOOK" in hooks.render_hook("post-commit", entry, host, where, lefthook=True)
