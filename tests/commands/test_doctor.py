"""`landwatch doctor`: quiet on a healthy setup; `--fix` registers a moved repository and starts
the reviewer; it reads the repository's settings by the rule the hooks follow, names a value
landwatch cannot use with the command that mends it, and waits as long as staleAfter; and it
tells whether linters run sandboxed (review/test_sandbox.py: when they do)."""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import layout, registry, report_store
from landwatch.commands.doctor import doctor
from landwatch.daemon.loop import LEFT_WAITING
from landwatch.hooks import INSTALLED_EVENTS
from support import TOOLS
from support.daemon import run_reviewer
from support.project_hooks import committed, local_hooks, tools
from support.queue import fill, tmpfs
from support.repos import ENDLESS, FIFO, Repo, back_date, installed, planted_worktree, run_cli
from support.timing import ends_by_itself, run_bounded


def test_a_setting_landwatch_cannot_use_is_named_with_the_command_that_mends_it(
    repo: Repo,
) -> None:
    repo.git("config", "landwatch.maintenance.interval", "90.5")
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    [line] = [line for line in doctor.stdout.splitlines() if "interval" in line]
    assert "landwatch.maintenance.interval = '90.5' is not a whole number of seconds" in line
    assert "landwatch uses 3600" in line
    fix = line.rpartition("; fix: ")[2]
    assert fix.endswith("config --unset-all landwatch.maintenance.interval")
    subprocess.run(shlex.split(fix), check=True)
    assert "interval" not in repo.landwatch("doctor").stdout


def test_items_wait_as_long_as_stale_after_allows_before_doctor_tells(repo: Repo) -> None:
    repo.git("config", "landwatch.staleAfter", "3600")
    repo.land("waits")
    back_date(repo, 1000)  # past doctor's old fixed 600 s, within the repository's bound
    assert "item(s) wait" not in repo.landwatch("doctor").stdout
    back_date(repo, 4000)
    assert "1 item(s) wait" in repo.landwatch("doctor").stdout


def test_doctor_fix_registers_a_moved_repository_and_starts_the_reviewer(
    repo: Repo, tmp_path: Path
) -> None:
    old_place = repo.git_dir.resolve()
    moved = Repo.existing(tmp_path / "elsewhere")
    shutil.move(repo.path, moved.path)
    moved.land("after the move")
    try:
        fixed = moved.landwatch("doctor", "--fix")
        assert "forgot" in fixed.stdout and str(old_place) in fixed.stdout
        assert fixed.returncode == 0, fixed.stdout
        assert registry.registered() == [moved.git_dir.resolve()]
    finally:
        moved.landwatch("service", "stop")


def doctor_with_no_bwrap(repo: Repo, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`landwatch doctor` with a PATH holding git and no bwrap, whatever the machine has."""
    bare = tmp_path / "bin"
    bare.mkdir(exist_ok=True)
    if not (bare / "git").exists():
        (bare / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    return subprocess.run(
        [sys.executable, "-m", "landwatch", "doctor"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bare)},
    )


def test_doctor_on_a_healthy_setup_is_quiet(repo: Repo, tmp_path: Path) -> None:
    run_reviewer("--detach")
    try:
        doctor = repo.landwatch("doctor")
        assert doctor.returncode == 0, doctor.stdout
        assert doctor.stdout.startswith("landwatch doctor: all well: 1 repository covered")
        # And whether a repository's code runs behind the wall, which is told, never a problem.
        assert doctor.stdout.count("\n") == 2
        assert doctor.stdout.splitlines()[1] == (
            "landwatch doctor: a repository's code runs without the wall: git config "
            "landwatch.sandbox is false"
        )
        repo.git("config", "landwatch.sandbox", "true")
        without = doctor_with_no_bwrap(repo, tmp_path)
        assert without.returncode == 0, without.stdout
        assert without.stdout.splitlines()[1] == (
            "landwatch doctor: there is no wall here: bubblewrap (bwrap) is not installed; "
            "nothing a repository wrote runs: install bubblewrap (apt install bubblewrap), or say "
            "`git config --global landwatch.sandbox false` to run what you trusted as you: with "
            "your files, your network and your sockets"
        )
    finally:
        repo.landwatch("service", "stop")


def test_a_copied_repository_s_own_configuration_does_not_take_the_wall_away(
    repo: Repo, tmp_path: Path
) -> None:
    """`[landwatch] sandbox = false` in the repository's .git/config (come with a copy of it)
    is the repository's word: the wall stays, and without bubblewrap nothing of it runs."""
    (Path(os.environ["HOME"]) / ".gitconfig").write_text("[landwatch]\n\tmaintenance = false\n")
    repo.git("config", "landwatch.sandbox", "false")
    doctor = doctor_with_no_bwrap(repo, tmp_path)
    assert "runs without the wall" not in doctor.stdout
    assert "there is no wall here: bubblewrap (bwrap) is not installed" in doctor.stdout


def test_an_unusable_work_directory_is_told_once_and_named_with_what_mends_it(
    repo: Repo,
) -> None:
    pending = repo.git_dir / "landwatch" / "pending"
    pending.rmdir()
    pending.write_text("")  # a file where the reviewer claims from
    oid = repo.land("recorded, never claimed")
    assert repo.said == (
        "landwatch: .git/landwatch/pending is not a directory of landwatch's: what lands here "
        "is recorded but not reviewed; run: landwatch doctor\n"
    )
    ran = run_reviewer("--once")
    assert ran.returncode == LEFT_WAITING, ran.stderr  # its landing is left, and said so
    assert f"left for the next run: the queue of {repo.git_dir}, which cannot be used" in ran.stderr
    claims = [line for line in ran.stderr.splitlines() if "cannot claim" in line]
    assert claims == [f"landwatch: cannot claim from {repo.git_dir}: Not a directory"]
    assert "landwatch: landwatch:" not in ran.stderr
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    [line] = [line for line in doctor.stdout.splitlines() if str(pending) in line]
    assert line.startswith(
        f"landwatch: {pending} is not a directory: what lands in {repo.git_dir} is recorded "
        "but never reviewed; fix: mv "
    )
    subprocess.run(shlex.split(line.rpartition("; fix: ")[2]), check=True)
    assert str(pending) not in repo.landwatch("doctor").stdout
    assert run_reviewer("--once").returncode == 0
    assert report_store.read(repo.git_dir, oid) is not None


def test_doctor_fix_sets_a_file_in_place_of_a_state_directory_aside(repo: Repo) -> None:
    claimed = repo.git_dir / "landwatch" / "claimed"
    claimed.rmdir()
    claimed.write_text("kept")
    fixed = repo.landwatch("doctor", "--fix")
    try:
        assert f"landwatch: moved {claimed} aside to {claimed}.not-a-directory." in fixed.stdout
        assert claimed.is_dir() or not claimed.exists()
        [aside] = claimed.parent.glob("claimed.not-a-directory.*")
        assert aside.read_text() == "kept"
    finally:
        repo.landwatch("service", "stop")


def test_a_setting_of_your_own_config_is_told_once_with_no_repository_registered(
    tmp_path: Path,
) -> None:
    """~/.gitconfig is every repository's: told once, wherever doctor runs, with the command
    that unsets it there (not in a repository, where it is not)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run(["git", "config", "--global", "landwatch.notify", "loud"], check=True)
    doctor = subprocess.run(
        [sys.executable, "-m", "landwatch", "doctor"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert doctor.returncode == 1
    [line] = [line for line in doctor.stdout.splitlines() if "notify" in line]
    assert line == (
        f"landwatch: {Path.home() / '.gitconfig'}: git config landwatch.notify = 'loud' is not "
        "off, errors or findings; landwatch sends no notification; fix: git config --global "
        "--unset-all landwatch.notify"
    )
    for n in range(2):
        installed(tmp_path / f"repo{n}")
    told = Repo.existing(tmp_path / "repo0").landwatch("doctor").stdout
    assert [line for line in told.splitlines() if "notify" in line] == [line]
    subprocess.run(shlex.split(line.rpartition("; fix: ")[2]), check=True)
    assert "notify" not in Repo.existing(tmp_path / "repo0").landwatch("doctor").stdout


HUSKY = TOOLS / "npm" / "node_modules" / "husky" / "bin.js"


@pytest.mark.skipif(
    shutil.which("node") is None or not HUSKY.exists(), reason="husky is not installed"
)
def test_a_husky_worktree_whose_landings_no_hook_records_is_told(tmp_path: Path) -> None:
    """husky's core.hooksPath, `.husky/_`, is each worktree's own: missing in a new linked
    worktree (git runs no hook there), or husky's shims alone once husky ran there."""
    repo = Repo(tmp_path / "repo")
    (repo.path / ".gitignore").write_text("_\n")  # as husky's own .husky/_/.gitignore says
    subprocess.run(["node", str(HUSKY)], cwd=repo.path, check=True, capture_output=True)
    repo.install()
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = Repo.existing(tmp_path / "side")
    hooks = tmp_path / "side" / ".husky" / "_"
    doctor = repo.landwatch("doctor")
    assert (
        f"landwatch: {side.path}: core.hooksPath names {hooks}, which is not there: git runs "
        "no hook; what lands there is not recorded by a hook (the reflog sweep reviews it, "
        "later); fix: call landwatch's hooks from the tool's (docs/hooks.md, a lasting husky "
        "setup)"
    ) in doctor.stdout.splitlines()
    subprocess.run(["node", str(HUSKY)], cwd=side.path, check=True, capture_output=True)
    doctor = repo.landwatch("doctor")
    assert (
        f"landwatch: {side.path}: git runs husky's hooks from {hooks}, not landwatch's; what "
        "lands there is not recorded by a hook"
    ) in doctor.stdout
    assert "all well" not in doctor.stdout


def test_a_push_gate_missing_from_hooks_otherwise_in_place_is_told_and_mended(repo: Repo) -> None:
    gate = repo.git_dir / "hooks" / "pre-push"
    gate.unlink()  # installed by a landwatch without the gate, or removed since
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    assert (
        "the push gate does not run (there is no pre-push hook): a secret a review found can be "
        "pushed; " in doctor.stdout
    )
    assert "fix: landwatch install" in doctor.stdout
    repo.landwatch("doctor", "--fix")
    assert "push gate" not in repo.landwatch("doctor").stdout
    assert "# landwatch-hook" in gate.read_text()


def test_a_gate_replaced_with_the_landing_hooks_is_told_and_one_install_mends_both(
    repo: Repo,
) -> None:
    """lefthook's reinstall (husky 4's too) replaces landwatch's landing hooks and its pre-push:
    doctor said only that the landings were left to the sweep, and a push of a secret went out
    (an audit). It names the gate beside them; --fix installs once and mends both."""
    hooks = repo.git_dir / "hooks"
    for event in INSTALLED_EVENTS:
        (hooks / event).write_text(f'#!/bin/sh\ncall_lefthook run {event} "$@"\n')
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    assert "sweep only: lefthook replaced landwatch's" in doctor.stdout
    assert (
        f"landwatch: {repo.git_dir}: the push gate does not run (git runs lefthook's pre-push "
        "hook): a secret a review found can be pushed; fix: landwatch install\n"
    ) in doctor.stdout
    fixed = repo.landwatch("doctor", "--fix").stdout
    assert fixed.count(" written to ") == 1 and "could not mend" not in fixed
    assert "# landwatch-hook" in (hooks / "pre-push").read_text()
    assert "push gate" not in repo.landwatch("doctor").stdout


def test_hooks_an_older_landwatch_wrote_are_told_and_written_again(repo: Repo) -> None:
    """An upgrade leaves other repositories' hooks as they were written: the push gate's fixes
    would not run there until install writes them again."""
    gate = repo.git_dir / "hooks" / "pre-push"
    written = gate.read_text()
    gate.write_text(written.replace("lw_most=1000", "lw_most=5000"))  # as a release before
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    [line] = [said for said in doctor.stdout.splitlines() if "older landwatch" in said]
    assert "its pre-push hook(s) are an older landwatch's" in line
    assert line.endswith("fix: landwatch install")
    repo.landwatch("doctor", "--fix")
    assert "older landwatch" not in repo.landwatch("doctor").stdout
    assert gate.read_text() == written


def test_items_given_up_are_named_with_what_starts_them_again(repo: Repo) -> None:
    from landwatch import work_item

    landed = repo.land("one")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    work_item.settle(repo.git_dir, claimed, work_item.FAILED)
    doctor = repo.landwatch("doctor")
    assert doctor.returncode == 1
    assert f"1 item(s) given up in {repo.git_dir}: the review of {landed[:12]}" in doctor.stdout
    assert "fix: once the cause is mended, landwatch retry --all in that repository" in (
        doctor.stdout
    )
    assert repo.landwatch("retry", "--all").returncode == 0
    assert "given up" not in repo.landwatch("doctor").stdout


def test_reviews_waiting_for_disk_space_are_counted_with_what_mends_them(tmp_path: Path) -> None:
    from landwatch import work_item
    from landwatch.kinds.review import ReviewHandler
    from support.kinds import FakeClock, in_process, settle_down

    disk = tmp_path / "disk"
    with tmpfs(disk, "4m"):
        repo = installed(disk / "repo")
        for n in range(2):
            repo.land(f"landed {n}", f"f{n}")
        filler = fill(disk)
        clock = FakeClock()
        reviewer = in_process({"review": ReviewHandler(clock=clock)}, clock, tmp_path / "s.json")
        try:
            settle_down(reviewer)  # tried: the report cannot be written; no try counted
        finally:
            reviewer.shutdown()
        assert work_item.entries(repo.git_dir, work_item.FAILED) == []
        doctor = repo.landwatch("doctor")
        assert doctor.returncode == 1
        [line] = [line for line in doctor.stdout.splitlines() if "disk space" in line]
        work = repo.git_dir / "landwatch"
        assert line.startswith(f"landwatch: 2 item(s) in {repo.git_dir} wait for disk space: ")
        assert (
            f"{work}: its filesystem is full (0 KiB free); fix: make room where {work} is" in line
        )
        assert line.endswith("; they go on alone within 30 min")
        filler.unlink()
        assert "disk space" not in repo.landwatch("doctor").stdout
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        try:
            read_only = repo.landwatch("doctor").stdout
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        assert f"{work}: its filesystem is read-only; fix: remount the filesystem holding" in (
            read_only
        )
        shutil.rmtree(repo.path)


def test_a_state_directory_with_no_room_is_named_with_what_mends_it(repo: Repo) -> None:
    """The reviewer goes on where its state directory is full or read-only, without its log,
    its state file and the note of who runs it: doctor says why they are missing. Before, it
    said only that the reviewer was not running (it had died on its state file)."""
    state = layout.state_dir()
    with tmpfs(state, "4m"):
        filler = fill(state)
        doctor = repo.landwatch("doctor")
        assert doctor.returncode == 1
        [line] = [line for line in doctor.stdout.splitlines() if "state directory" in line]
        assert line.startswith(
            f"landwatch: landwatch's state directory {state}: its filesystem is full (0 KiB "
            "free): the reviewer's log, its state (`landwatch status`), "
        )
        assert line.endswith(f"cannot be written; fix: make room where {state} is")
        filler.unlink()
        assert "state directory" not in repo.landwatch("doctor").stdout
        subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
        read_only = repo.landwatch("doctor").stdout
        assert f"state directory {state}: its filesystem is read-only: " in read_only
        assert f"; fix: remount the filesystem holding {state} rw" in read_only


@pytest.mark.parametrize("planted", ["a FIFO", "a link to a FIFO"])
def test_a_fifo_at_the_repository_s_hooks_holds_doctor_up_nowhere(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    # An audit: a FIFO at a copied repository's .git/hooks/pre-commit held `landwatch doctor`
    # forever (which tool runs the project's hooks is read from the hook there), and one at
    # post-commit held it (and install) where whose hook it is was asked.
    hook = "id: x\nname: x\nlanguage: system\nentry: 'true'"
    committed(repo, {".pre-commit-config.yaml": local_hooks(hook)})
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody ever writes to it
    for event in ("pre-commit", "post-commit"):
        (repo.git_dir / "hooks" / event).unlink(missing_ok=True)
        if planted == "a FIFO":
            os.mkfifo(repo.git_dir / "hooks" / event)
        else:
            (repo.git_dir / "hooks" / event).symlink_to(fifo)
    monkeypatch.setenv("PATH", tools(tmp_path, "pre-commit"))
    out = io.StringIO()
    assert ends_by_itself(lambda: doctor(repo.path, fix=False, out=out)) == 1
    said = out.getvalue().splitlines()
    assert [line for line in said if "post-commit" in line and "fix: landwatch install" in line]
    assert said[-1].startswith(
        "landwatch doctor: the project's hooks (.pre-commit-config.yaml) run with pre-commit 4."
    )
    assert said[-1].endswith(f"({tmp_path}/bin-pre-commit/pre-commit) (not trusted yet)")


@pytest.mark.parametrize("planted", [FIFO, ENDLESS])
@pytest.mark.parametrize("pointer", ["commondir", "gitdir"])
def test_a_worktree_entry_s_pointer_that_is_no_file_holds_doctor_up_nowhere(
    repo: Repo, pointer: str, planted: str
) -> None:
    # An audit: an archive's repository holding .git/worktrees/evil with a FIFO as its
    # commondir held `landwatch doctor` forever where it asked whether the disk had room; one as
    # its gitdir held it where it asked which hooks the worktree runs. A link to /dev/zero at
    # either was read until memory ran out.
    doctor = [sys.executable, "-m", "landwatch", "doctor"]
    before = run_bounded(doctor, repo.path)
    planted_worktree(repo.git_dir, pointer, planted)
    said = run_bounded(doctor, repo.path)
    assert (said.returncode, said.stdout, said.stderr) == (
        before.returncode,
        before.stdout,
        before.stderr,
    )
    assert said.returncode == 1 and "the reviewer is not running" in said.stdout


def test_a_repository_s_path_holding_a_terminal_s_escapes_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An audit: the coverage line of a project committing its hooks directory (landwatch's
    hooks installed in .git/hooks, as install says to) ended with its fix, the repository's
    path quoted for a shell but not made printable: `status` and `doctor` printed its ESC, BEL
    and U+202E raw (a terminal took a new title and turned red)."""
    repo = Repo(tmp_path / "r\x1b]0;PWNED\x07\x1b[31mred\u202e")
    (repo.path / "githooks").mkdir()
    (repo.path / "githooks" / "pre-commit").write_text("#!/bin/sh\n")
    (repo.path / "githooks" / "pre-commit").chmod(0o755)
    repo.git("add", "githooks")
    repo.land("the project's hooks", hooks=False)
    repo.git("config", "core.hooksPath", "githooks")
    code, said = run_cli(
        repo, "install", "--hooks-path", str(repo.git_dir / "hooks"), capsys=capsys
    )
    assert code == 0, said
    for command in ("doctor", "status"):
        code, said = run_cli(repo, command, capsys=capsys)
        assert "--hooks-path '" in said and "r\\x1b]0;PWNED\\x07\\x1b[31mred\\u202e" in said
        assert not {"\x1b", "\x07", "\u202e"} & set(said), (command, said)


def test_no_program_a_clone_commits_runs_where_path_names_the_working_directory(
    repo: Repo, tmp_path: Path
) -> None:
    """Audits: with PATH ending in `:` (the working directory, to shutil.which as to a shell),
    doctor found a clone's committed `prek` and asked it its version; with an empty entry before
    git's, status, show, review and the reviewer ran its committed `git`: untrusted, outside the
    wall. PATH is kept to its absolute directories."""
    ran = tmp_path / "ran"
    program = f'#!/bin/sh\necho "$0 $*" >> {ran}\necho "9.9"\n'
    configs = {"prek.toml": "[[repos]]\nrepo = 'local'\n", "lefthook.yml": "pre-commit: {}\n"}
    tools_of_its_own = {"prek": program, "lefthook": program, "git": program}
    repo.land("its own tools", {**tools_of_its_own, **configs}, hooks=False)
    for name in tools_of_its_own:
        (repo.path / name).chmod(0o755)
    system = tools(tmp_path)
    asked = [["doctor"], ["status"], ["show", "HEAD"], ["review", "HEAD"], ["reviewer", "--once"]]
    for path in (f"{system}:", f":{system}", f".:{system}", f"{system}::bin", ".", ":"):
        for command in asked:
            said = subprocess.run(
                [sys.executable, "-m", "landwatch", *command],
                cwd=repo.path,
                env={**os.environ, "PATH": path},
                capture_output=True,
                text=True,
            )
            assert "9.9" not in said.stdout, (path, command)
    assert not ran.exists(), ran.read_text()
