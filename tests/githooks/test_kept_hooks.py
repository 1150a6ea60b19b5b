"""A hook landwatch keeps aside (<event>.before-landwatch) runs as git ran it, by its own path: a
link into the project finds its files, a bash hook's BASH_SOURCE guard runs its main, a hook that
runs itself again under bash runs once; husky 1 to 4's alone is sourced under the event's name,
the one way it finds its event. Each kept hook logs what it ran; its status is the hook's. A hook
of one's own is never removed as another tool's (one that runs git-lfs's), nor written over (one
script linked for two events), and uninstall puts it back as it was."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from landwatch.commands import uninstall
from support import GIT_LFS
from support.kinds import origin
from support.queue import git, git_env
from support.repos import Repo

EVENTS = ("post-commit", "pre-push")


def keep(repo: Repo, text: str, events: tuple[str, ...] = EVENTS) -> None:
    """`text` as the hook of each of `events`, then landwatch installed, keeping them aside."""
    for event in events:
        hook = repo.git_dir / "hooks" / event
        hook.write_text(text)
        hook.chmod(0o755)
    said = repo.install()
    for event in events:
        assert f" {event} hook as {event}.before-landwatch" in said


def lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_a_kept_hook_linked_into_the_project_finds_its_files(tmp_path: Path) -> None:
    """A hook that is a link to the project's own script, which finds its library beside it by
    `readlink -f "$0"`: sourced as landwatch's hook, it looked beside that, failed, and every push
    was refused once landwatch was installed (found by an audit)."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    remote = origin(repo, tmp_path / "remote.git")
    tools = repo.path / "tools"
    tools.mkdir()
    (tools / "lib.sh").write_text(f'check() {{ echo "checked $*" >> "{log}"; }}\n')
    (tools / "githook").write_text(
        '#!/bin/sh\nhere=$(dirname "$(readlink -f "$0")")\n. "$here/lib.sh" || exit 1\ncheck "$@"\n'
    )
    (tools / "githook").chmod(0o755)
    for event in EVENTS:
        (repo.git_dir / "hooks" / event).symlink_to("../../tools/githook")
    repo.install()
    assert (repo.git_dir / "hooks" / "pre-push.before-landwatch").is_symlink()
    oid = repo.land("one")
    pushed = repo.run("push", "-q", "origin", "main", LANDWATCH="0")  # the kept hook, not the gate
    assert pushed.returncode == 0, pushed.stderr
    assert git("rev-parse", "main", cwd=remote) == oid
    assert lines(log) == ["checked ", f"checked origin {remote}"]


# A bash hook whose main runs only when it is executed, not sourced (the usual guard): a
# WIP commit may not be pushed. It logs each run of main, with its arguments.
GUARDED = """#!/usr/bin/env bash
main() {{
    echo "main $*" >> "{log}"
    [ "$#" -eq 2 ] || return 0  # post-commit: nothing to refuse
    while read -r _ local _ _; do
        if git log -1 --format=%s "$local" | grep -q '^WIP'; then
            echo "refusing to push a WIP commit" >&2
            return 1
        fi
    done
}}
if [[ "${{BASH_SOURCE[0]}}" == "$0" ]]; then
    main "$@"
    exit
fi
"""


def test_a_kept_bash_hook_run_only_when_executed_still_refuses(tmp_path: Path) -> None:
    """Sourced, `[[ "${BASH_SOURCE[0]}" == "$0" ]]` was false: main never ran, and the person's
    own refusal of a WIP commit was silently skipped, the commit pushed (found by an audit)."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    remote = origin(repo, tmp_path / "remote.git")
    held = git("rev-parse", "main", cwd=remote)
    keep(repo, GUARDED.format(log=log))
    repo.land("WIP: not ready")
    refused = repo.run("push", "-q", "origin", "main", LANDWATCH="0")  # the kept hook's refusal
    assert refused.returncode != 0
    assert "refusing to push a WIP commit" in refused.stderr
    assert git("rev-parse", "main", cwd=remote) == held
    assert lines(log) == ["main ", f"main origin {remote}"]


def run_bounded(repo: Repo, log: Path, *args: str, **env: str) -> int:
    """`git ARGS`'s status, its hooks' processes killed and the test failed should the kept hook
    run more than five times (the log's lines) or git not end within a minute."""
    process = subprocess.Popen(
        ["git", *args],
        cwd=repo.path,
        env=git_env(**env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # git and every hook it starts: one group, to be killed whole
    )
    deadline = time.monotonic() + 60
    while process.poll() is None:
        if len(lines(log)) > 5 or time.monotonic() > deadline:
            # Until none is left (a hook may fork as the signal goes), git reaped meanwhile.
            for _ in range(200):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    break
                process.poll()
                time.sleep(0.05)
            pytest.fail(f"git {args[0]} ran the kept hook {len(lines(log))} times and never ended")
        time.sleep(0.02)  # polling for the process's end, not standing in for time
    return process.returncode


# A /bin/sh hook that needs bash and runs itself again under it: logged once by each shell.
REEXEC = """#!/bin/sh
shell=sh
[ -z "$BASH_VERSION" ] || shell=bash
echo "$(basename "$0") in $shell" >> "{log}"
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
exit "${{KEPT_STATUS:-0}}"
"""


def test_a_kept_hook_that_runs_itself_again_under_bash_runs_once(tmp_path: Path) -> None:
    """Sourced as landwatch's hook, `exec bash "$0"` ran landwatch's hook again, which sourced
    the kept hook again, without end: git commit never returned (found by an audit). Each run
    is bounded here, so that such a loop fails the test rather than hangs it."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    remote = origin(repo, tmp_path / "remote.git")
    held = git("rev-parse", "main", cwd=remote)
    keep(repo, REEXEC.format(log=log))
    assert run_bounded(repo, log, "commit", "-q", "--allow-empty", "-m", "one") == 0
    name = "post-commit.before-landwatch"
    assert lines(log) == [f"{name} in sh", f"{name} in bash"]
    log.unlink()
    # Its status, given under bash, is the hook's: the push is refused.
    assert run_bounded(repo, log, "push", "-q", "origin", "main", KEPT_STATUS="1") != 0
    name = "pre-push.before-landwatch"
    assert lines(log) == [f"{name} in sh", f"{name} in bash"]
    assert git("rev-parse", "main", cwd=remote) == held


# A hook that finds its event by its own name, stripping the name landwatch keeps it under, as
# docs/hooks.md suggests: it logs the name it was run by, the event and its arguments.
DISPATCHER = """#!/bin/sh
name=$(basename "$0")
event=${{name%.before-landwatch}}
case $event in
    post-commit | pre-push) echo "$name: $event $*" >> "{log}" ;;
    *) echo "$name: unknown" >> "{log}" ;;
esac
"""


def test_a_kept_hook_that_dispatches_on_its_name_sees_the_name_it_is_kept_under(
    tmp_path: Path,
) -> None:
    """Run by its own path, the kept hook is named <event>.before-landwatch: one that finds its
    event by its name (not husky's) strips that suffix, and finds it."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    remote = origin(repo, tmp_path / "remote.git")
    keep(repo, DISPATCHER.format(log=log))
    repo.land("one")
    assert repo.run("push", "-q", "origin", "main", LANDWATCH="0").returncode == 0
    assert lines(log) == [
        "post-commit.before-landwatch: post-commit ",
        f"pre-push.before-landwatch: pre-push origin {remote}",
    ]


def test_a_kept_hook_of_another_language_runs_by_its_own_path(tmp_path: Path) -> None:
    """A kept hook in any other language (python here; node, a binary) runs by its path too,
    named <event>.before-landwatch, with git's arguments, stdin and status."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    hook = repo.git_dir / "hooks" / "post-rewrite"
    hook.write_text(
        "#!/usr/bin/env python3\nimport os, sys\n"
        f"with open({str(log)!r}, 'a') as log:\n"
        "    print(os.path.basename(sys.argv[0]), *sys.argv[1:], file=log)\n"
        "    log.write(sys.stdin.read())\n"
        "sys.exit(int(os.environ.get('KEPT_STATUS', '0')))\n"
    )
    hook.chmod(0o755)
    repo.install()
    old = repo.land("one")
    repo.git("commit", "-q", "--amend", "-m", "one, amended")
    assert log.read_text() == f"post-rewrite.before-landwatch amend\n{old} {repo.head()}\n"
    ran = subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "amend"],
        cwd=repo.path,
        input="",
        text=True,
        env=git_env(KEPT_STATUS="4"),
    )
    assert ran.returncode == 4


# husky 1 to 4's hook, as husky 4 writes it in every event's slot; the husky.sh beside it logs
# the event it took itself for, its arguments and its stdin, and exits KEPT_STATUS.
HUSKY_HOOK = """#!/bin/sh
# husky

# Hook created by Husky v4.3.8 (https://github.com/typicode/husky#readme)

. "$(dirname "$0")/husky.sh"
"""
HUSKY_SH = """hookName=$(basename "$0")
echo "$hookName $*" >> "{log}"
case $hookName in pre-push | post-rewrite) cat >> "{log}" ;; esac
exit "${{KEPT_STATUS:-0}}"
"""
HUSKY_EVENTS = ("post-commit", "post-rewrite", "pre-push")


@pytest.mark.parametrize("order", ["husky-first", "landwatch-first"])
def test_husky_1_to_4_s_kept_hook_is_sourced_under_the_event_s_name(
    tmp_path: Path, order: str
) -> None:
    """husky 1 to 4 write one hook for every event, which finds its event by its own name and
    its husky.sh beside it: run by its own path it would do nothing. It alone is sourced by sh
    as <hooks dir>/<event>, with git's arguments, stdin and status (the real husky 4 runs in
    test_hook_managers.py)."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    remote = origin(repo, tmp_path / "remote.git")
    held = git("rev-parse", "main", cwd=remote)
    if order == "landwatch-first":
        repo.install()  # then written over, as husky 4's install does, and installed again
    (repo.git_dir / "hooks" / "husky.sh").write_text(HUSKY_SH.format(log=log))
    keep(repo, HUSKY_HOOK, HUSKY_EVENTS)
    old = repo.land("one")
    repo.git("commit", "-q", "--amend", "-m", "one, amended")
    new = repo.head()
    assert lines(log) == ["post-commit ", "post-commit ", "post-rewrite amend", f"{old} {new}"]
    assert (new, None) in repo.pending()
    log.unlink()
    refused = repo.run("push", "-q", "origin", "main", LANDWATCH="0", KEPT_STATUS="1")
    assert refused.returncode != 0
    assert repo.run("push", "-q", "origin", "main", LANDWATCH="0").returncode == 0
    assert git("rev-parse", "main", cwd=remote) == new
    line = f"refs/heads/main {new} refs/heads/main {held}"
    assert lines(log) == [f"pre-push origin {remote}", line] * 2
    post_commit = subprocess.run(
        ["sh", ".git/hooks/post-commit"], cwd=repo.path, env=git_env(KEPT_STATUS="3")
    )
    assert post_commit.returncode == 3


# One's own pre-push as git-lfs tells those with a pre-push of their own to write it: their
# check first (no WIP commit), then git-lfs's where it is on the PATH.
OWN_THEN_LFS = """#!/bin/sh
# our team's push checks
if git log -1 --format=%s | grep -q WIP; then echo "no WIP commits, please" >&2; exit 1; fi
if command -v git-lfs >/dev/null 2>&1; then git lfs pre-push "$@"; fi
"""


def test_a_hook_of_one_s_own_that_runs_git_lfs_s_is_never_removed_as_git_lfs_s(
    tmp_path: Path,
) -> None:
    """It names `git lfs `, so it was taken for git-lfs's generated hook: doctor said git-lfs had
    been uninstalled, and `doctor --fix` (a second install) deleted it; a WIP commit was pushed,
    and uninstall had nothing to put back (an audit, with the real git-lfs on the PATH)."""
    if not (GIT_LFS / "git-lfs").exists():
        pytest.skip(f"git-lfs was not unpacked into {GIT_LFS}")
    with_lfs = {"PATH": f"{GIT_LFS}{os.pathsep}{os.environ['PATH']}"}
    repo = Repo(tmp_path / "repo")
    remote = origin(repo, tmp_path / "remote.git")
    held = git("rev-parse", "main", cwd=remote)
    hook = repo.git_dir / "hooks" / "pre-push"
    hook.write_text(OWN_THEN_LFS)
    hook.chmod(0o750)
    assert "kept your pre-push hook as pre-push.before-landwatch" in repo.install()
    doctor = repo.landwatch("doctor")
    assert "git-lfs" not in doctor.stdout + doctor.stderr
    assert "git-lfs" not in repo.install()  # what `landwatch doctor --fix` runs
    repo.land("WIP: not ready")
    refused = repo.run("push", "-q", "origin", "main", **with_lfs)
    assert refused.returncode != 0 and "no WIP commits, please" in refused.stderr
    assert git("rev-parse", "main", cwd=remote) == held
    assert uninstall.uninstall(repo.path, out=io.StringIO()) == 0
    assert (hook.read_text(), stat.S_IMODE(hook.stat().st_mode)) == (OWN_THEN_LFS, 0o750)
    assert not (repo.git_dir / "hooks" / "pre-push.before-landwatch").exists()


def test_one_script_linked_for_two_events_runs_at_both_and_is_put_back_as_it_was(
    tmp_path: Path,
) -> None:
    """post-merge a link to post-commit: install put landwatch's hook in post-commit's slot
    first, then took the link, which read as landwatch's, for its own and wrote over it; the
    script never ran at a merge again, and uninstall removed the link (an audit)."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    hooks = repo.git_dir / "hooks"
    script = hooks / "post-commit"
    script.write_text(f'#!/bin/sh\necho "$(basename "$0") $*" >> "{log}"\n')
    script.chmod(0o755)
    (hooks / "post-merge").symlink_to("post-commit")
    assert "kept your post-merge hook as post-merge.before-landwatch" in repo.install()
    repo.git("switch", "-q", "-c", "side")
    repo.land("on the side", "side.txt", hooks=False)
    repo.git("switch", "-q", "main")
    before = repo.land("on main", "main.txt")
    assert lines(log) == ["post-commit.before-landwatch "] * 2  # LANDWATCH=0 runs it too
    repo.clear()
    log.unlink()
    repo.git("merge", "-q", "--no-ff", "--no-edit", "side")
    assert lines(log) == ["post-merge.before-landwatch 0"]
    assert repo.pending() == [(repo.head(), before)]  # the merge, recorded by landwatch's hook
    assert uninstall.uninstall(repo.path, out=io.StringIO()) == 0
    assert os.readlink(hooks / "post-merge") == "post-commit"
    assert (script.read_text(), stat.S_IMODE(script.stat().st_mode)) == (
        f'#!/bin/sh\necho "$(basename "$0") $*" >> "{log}"\n',
        0o755,
    )
    assert not list(hooks.glob("*.before-landwatch"))
