"""commands.doctor_hooks: what doctor finds of a registered repository's hooks, with the mend
`--fix` runs: nothing where landwatch's run at every landing and push; the landings and the
gate named apart where another tool took them, both mended by one install, run once."""

from __future__ import annotations

import io
from pathlib import Path

from landwatch.commands import doctor_hooks
from landwatch.hooks import INSTALLED_EVENTS
from support.repos import Repo, worktree_entry


def test_nothing_where_landwatch_s_hooks_run(repo: Repo) -> None:
    assert doctor_hooks.problems(repo.git_dir) == []


def test_a_tool_that_took_every_hook_is_named_for_landings_and_gate_one_mend_for_both(
    repo: Repo,
) -> None:
    hooks = repo.git_dir / "hooks"
    for event in INSTALLED_EVENTS:
        (hooks / event).write_text(f'#!/bin/sh\ncall_lefthook run {event} "$@"\n')
    found = doctor_hooks.problems(repo.git_dir)
    said = [problem.what for problem in found]
    assert any("sweep only: lefthook replaced landwatch's" in what for what in said), said
    assert any("the push gate does not run (git runs lefthook's pre-push" in what for what in said)
    mends = {problem.mend for problem in found if problem.mend is not None}
    assert len(mends) == 1  # one install mends both, and doctor --fix runs it once
    (mend,) = mends
    mend(io.StringIO())
    assert doctor_hooks.problems(repo.git_dir) == []
    assert "# landwatch-hook" in (hooks / "pre-push").read_text()


def test_a_hook_installer_run_again_over_ours_is_mended(repo: Repo) -> None:
    """A project's hook installer run again after landwatch (simple-git-hooks at every `npm
    install`, which deletes every other hook too; `cp scripts/pre-push .git/hooks/`) leaves in
    the slot the very hook landwatch keeps aside: --fix installs again, that copy kept. Before,
    it refused every event ("identical ... move one of them away"), the gate off for good."""
    hooks = repo.git_dir / "hooks"
    script = "#!/bin/sh\necho the project's pre-push\n"
    for _ in range(2):  # the installer before landwatch, then again after it
        for event in INSTALLED_EVENTS:
            (hooks / event).unlink()
        (hooks / "pre-push").write_text(script)
        (hooks / "pre-push").chmod(0o755)
        if not (hooks / "pre-push.before-landwatch").exists():
            repo.install()
    found = doctor_hooks.problems(repo.git_dir)
    assert any("the push gate does not run" in problem.what for problem in found)
    for mend in {problem.mend for problem in found if problem.mend is not None}:
        mend(io.StringIO())
    assert doctor_hooks.problems(repo.git_dir) == []
    assert "# landwatch-hook" in (hooks / "pre-push").read_text()
    assert (hooks / "pre-push.before-landwatch").read_text() == script


def test_the_gate_alone_taken_is_named_alone(repo: Repo) -> None:
    (repo.git_dir / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    said = [problem.what for problem in doctor_hooks.problems(repo.git_dir)]
    assert len(said) == 1 and "the push gate does not run (git runs another pre-push" in said[0]


def test_a_planted_worktree_entry_naming_another_repository_names_nothing_of_it(
    repo: Repo, tmp_path: Path
) -> None:
    """An archive's `.git/worktrees/evil/gitdir` naming another repository of yours: doctor
    asked git there which hooks it runs, and named that repository as this one's worktree where
    landwatch's hooks do not run. A worktree is one only where its `.git` leads back."""
    other = Repo(tmp_path / "other")
    worktree_entry(repo.git_dir, other.path / ".git")
    assert doctor_hooks.problems(repo.git_dir) == []
