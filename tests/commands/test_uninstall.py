"""`landwatch uninstall`: the hooks out of a repository, the ones they replaced put back exactly, a
hook someone else wrote over ours left as it is, the hooks taken from where install wrote them, what
was trusted there withdrawn, the queue and reports removed (or kept, saying where). With --all,
landwatch removed for a person: every repository's hooks (the ones they replaced back, byte for
byte) and data, the service once the reviewer has ended, the per-user files and the command links,
after saying what goes."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch import __version__, hooks, layout, registry, trust
from landwatch.commands import service, uninstall
from landwatch.daemon.lock import holder
from support.daemon import journal_lines, reviewer_env, run_reviewer, running, wait_for
from support.repos import Repo, foreign_hook, installed, run_cli
from support.review import canary_linter


def landwatch(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "landwatch", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LANDWATCH_TEST_SCHEDULER": "systemd:true", **env},
        timeout=120,
    )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Repo, Repo, Path, Path]:
    plain = installed(tmp_path / "plain")
    chained = Repo(tmp_path / "chained")
    mine = chained.git_dir / "hooks" / "post-commit"
    mine.write_text("#!/bin/sh\necho mine\n")
    mine.chmod(0o750)
    chained.install()
    gone = installed(tmp_path / "gone")
    gone_dir = gone.git_dir.resolve()
    subprocess.run(["rm", "-rf", str(gone.path)], check=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "landwatch").symlink_to(layout.ENTRY_POINT.path())
    (bin_dir / "other-tool").symlink_to("/bin/true")  # not ours: stays
    return plain, chained, gone_dir, bin_dir


def test_uninstall_all_says_what_it_removes_and_asks(setup: tuple[Repo, Repo, Path, Path]) -> None:
    plain, _, gone, bin_dir = setup
    layout.HOOK_ENVS.path().mkdir(parents=True)  # the project hooks' environments were built
    shown = landwatch("uninstall", "--all", cwd=plain.path, LANDWATCH_BIN_DIR=str(bin_dir))
    assert shown.returncode == 1
    assert f"remove the hooks and landwatch/ (queue and reports) of {plain.git_dir}" in shown.stdout
    assert f"forget {gone} (it vanished; moved elsewhere, its hooks went with it: " in shown.stdout
    assert f"remove the link {bin_dir / 'landwatch'}" in shown.stdout
    assert f"remove {layout.state_dir()} (its state: the reviewer's log, trust, the compiled " in (
        shown.stdout
    )
    assert f"remove {layout.cache_dir()} (its cache: the environments the project hooks" in (
        shown.stdout
    )
    assert "nothing removed; run again with --yes" in shown.stdout
    assert len(registry.registered()) == 3 and layout.ENTRY_POINT.path().exists()


def test_uninstall_all_removes_everything_and_puts_hooks_back(
    setup: tuple[Repo, Repo, Path, Path],
) -> None:
    plain, chained, _, bin_dir = setup
    layout.HOOK_ENVS.path().mkdir(parents=True)  # the project hooks' environments were built
    layout.SECRET_RULES.path().mkdir(parents=True, exist_ok=True)
    completion = Path.home() / ".zfunc" / "_landwatch"  # as `landwatch completion --help` shows
    completion.parent.mkdir()
    completion.write_text("#compdef landwatch\n")
    done = landwatch("uninstall", "--all", "--yes", cwd=plain.path, LANDWATCH_BIN_DIR=str(bin_dir))
    assert done.returncode == 0, done.stdout + done.stderr
    assert registry.registered() == []
    for repo in (plain, chained):
        directory = repo.git_dir / "hooks"
        assert not any(hooks.is_ours(directory / e) for e in hooks.HOOK_EVENTS)
        assert not (repo.git_dir / "landwatch").exists()
    mine = chained.git_dir / "hooks" / "post-commit"
    assert mine.read_text() == "#!/bin/sh\necho mine\n" and mine.stat().st_mode & 0o777 == 0o750
    for directory in (layout.data_dir(), layout.state_dir(), layout.config_dir()):
        assert not directory.exists()
    assert not layout.cache_dir().exists() and not layout.SECRET_RULES.path().exists()
    assert f"your shell's completion for it is left: rm {completion}" in done.stdout
    assert "take that out of your shell's startup file" in done.stdout
    assert sorted(p.name for p in bin_dir.iterdir()) == ["other-tool"]
    # A commit afterwards says nothing at all.
    plain.land("after")
    assert plain.said == ""


def test_keep_data_keeps_the_queues_and_reports(setup: tuple[Repo, Repo, Path, Path]) -> None:
    plain, _, _, bin_dir = setup
    plain.land("recorded")
    done = landwatch(
        "uninstall", "--all", "--yes", "--keep-data", cwd=plain.path, LANDWATCH_BIN_DIR=str(bin_dir)
    )
    assert done.returncode == 0, done.stdout
    assert (plain.git_dir / "landwatch" / "pending").is_dir()
    assert not hooks.is_ours(plain.git_dir / "hooks" / "post-commit")
    work = plain.git_dir / "landwatch"
    assert f"landwatch: the queue and reports stay in {work}; rm -rf {work}\n" in done.stdout


def test_yes_goes_with_all(repo: Repo) -> None:
    wrong = repo.landwatch("uninstall", "--yes")
    assert wrong.returncode == 2 and wrong.stderr.startswith("usage: landwatch uninstall ")
    assert wrong.stderr.endswith("landwatch uninstall: error: --yes goes with --all\n")


def test_uninstall_removes_the_queue_and_reports_of_every_worktree(repo: Repo) -> None:
    repo.git("worktree", "add", "-q", "-b", "side", str(repo.path.parent / "side"))
    side = Repo.existing(repo.path.parent / "side")
    side.land("in the linked worktree")
    works = [repo.git_dir / "landwatch", side.git_dir / "landwatch"]
    assert all(work.is_dir() for work in works)
    said = repo.landwatch("uninstall")
    assert said.returncode == 0, said.stderr
    assert said.stdout.splitlines()[-1] == (
        f"landwatch: removed the queue and reports ({works[0]}, {works[1]})"
    )
    assert not any(os.path.lexists(work) for work in works)


def test_uninstall_removes_the_project_hooks_environments_built_here(repo: Repo) -> None:
    from landwatch.kinds.project_hooks import hook_store

    store = hook_store(repo.git_dir)
    (store / "repo-x").mkdir()
    said = repo.landwatch("uninstall", "--keep-data")
    assert said.returncode == 0, said.stderr
    assert f"landwatch: removed the project hooks' environments ({store})" in said.stdout
    assert not os.path.lexists(store)


def test_keep_data_keeps_them_and_says_where_and_how_to_remove_them(repo: Repo) -> None:
    oid = repo.land("recorded")
    said = repo.landwatch("uninstall", "--keep-data")
    assert said.returncode == 0, said.stderr
    work = repo.git_dir / "landwatch"
    assert said.stdout.splitlines()[-1] == (
        f"landwatch: the queue and reports stay in {work}; rm -rf {work}"
    )
    assert [pending for pending, _ in repo.pending()] == [oid]


def test_uninstall_restores_foreign_hooks_exactly(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    hooks_dir = repo.git_dir / "hooks"
    plain = foreign_hook(repo, "post-commit", tmp_path / "log")
    before = (plain.read_bytes(), stat.S_IMODE(plain.stat().st_mode))
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "merge-hook").write_text("#!/bin/sh\n")
    (hooks_dir / "post-merge").symlink_to(tmp_path / "scripts" / "merge-hook")
    repo.install()
    assert hooks.is_ours(hooks_dir / "post-commit") and hooks.is_ours(hooks_dir / "post-merge")
    assert uninstall.uninstall(repo.path, out=io.StringIO()) == 0
    assert (plain.read_bytes(), stat.S_IMODE(plain.stat().st_mode)) == before
    assert os.readlink(hooks_dir / "post-merge") == str(tmp_path / "scripts" / "merge-hook")
    assert (
        not (hooks_dir / "post-rewrite").exists() and not (hooks_dir / "post-applypatch").exists()
    )
    assert not list(hooks_dir.glob("*.before-landwatch"))
    assert registry.registered() == []
    repo.land("after uninstall")
    assert repo.pending() == []


def test_uninstall_leaves_a_hook_someone_else_wrote_over_ours(repo: Repo) -> None:
    hook = repo.git_dir / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho theirs\n")
    out = io.StringIO()
    uninstall.uninstall(repo.path, out=out)
    assert hook.read_text() == "#!/bin/sh\necho theirs\n"
    assert "not landwatch's; left as it is" in out.getvalue()


def test_uninstall_takes_the_hooks_from_where_install_wrote_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    repo.git("config", "core.hooksPath", str(shared))
    assert run_cli(repo, "install", "--hooks-path", str(shared), capsys=capsys)[0] == 0
    repo.git("config", "--unset", "core.hooksPath")  # pointed elsewhere since
    code, output = run_cli(repo, "uninstall", capsys=capsys)
    assert code == 0 and f"hooks removed from {shared}" in output
    assert sorted(p.name for p in shared.iterdir()) == []


def own_hooks(repo: Repo) -> dict[str, tuple[str | bytes, int]]:
    """The person's own hooks in `repo` before landwatch: a script (0700) and a link to it for a
    second event; what `snapshot` says of them."""
    hooks_dir = repo.git_dir / "hooks"
    (hooks_dir / "post-commit").write_text("#!/bin/sh\necho my own post-commit\n")
    (hooks_dir / "post-commit").chmod(0o700)
    (hooks_dir / "post-merge").symlink_to("post-commit")
    return snapshot(hooks_dir)


def snapshot(hooks_dir: Path) -> dict[str, tuple[str | bytes, int]]:
    """Every hook in `hooks_dir` but git's samples: a link's target, a file's bytes and mode."""
    return {
        path.name: (os.readlink(path), 0)
        if path.is_symlink()
        else (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
        for path in hooks_dir.iterdir()
        if not path.name.endswith(".sample")
    }


def test_uninstall_in_a_moved_repository_takes_the_hooks_from_where_they_are_now(
    tmp_path: Path,
) -> None:
    """After `mv p q`, uninstall in q said it removed the hooks from p/.git/hooks, which is gone,
    and left landwatch's running in q, the person's own hook still kept aside, p registered."""
    repo = Repo(tmp_path / "p")
    before = own_hooks(repo)
    repo.install()
    was = repo.git_dir.resolve()
    moved = Repo.existing(repo.path.rename(tmp_path / "q"))
    hooks_dir = (moved.git_dir / "hooks").resolve()
    said = moved.landwatch("uninstall")
    assert said.returncode == 0, said.stderr
    assert snapshot(hooks_dir) == before
    assert f"landwatch: forgot {was} (it vanished), which the hooks in {hooks_dir} were " in (
        said.stdout
    )
    assert f"landwatch: hooks removed from {hooks_dir}\n" in said.stdout
    assert str(was / "hooks") not in said.stdout
    assert registry.registered() == []
    moved.land("after")  # the person's own hook alone runs
    assert moved.said == "my own post-commit\n" and not (moved.git_dir / "landwatch").exists()


def test_uninstall_in_a_copy_takes_the_copy_s_hooks_and_leaves_the_original_s(
    tmp_path: Path,
) -> None:
    """`cp -a p c`, then uninstall in c: it took the recorded p/.git/hooks for its own, rewrote
    them there, and left landwatch's hooks in c with the person's own hook kept aside."""
    repo = Repo(tmp_path / "p")
    before = own_hooks(repo)
    repo.install()
    theirs = snapshot(repo.git_dir / "hooks")
    shutil.copytree(repo.path, tmp_path / "c", symlinks=True)
    copy = Repo.existing(tmp_path / "c")
    said = copy.landwatch("uninstall")
    assert said.returncode == 0, said.stderr
    assert snapshot(copy.git_dir / "hooks") == before
    assert snapshot(repo.git_dir / "hooks") == theirs
    assert f"landwatch: hooks removed from {(copy.git_dir / 'hooks').resolve()}\n" in said.stdout
    assert str(repo.path) not in said.stdout.replace(str(copy.path), "")
    assert registry.registered() == [repo.git_dir.resolve()]


def test_uninstall_all_run_in_a_moved_repository_takes_its_hooks_out_too(tmp_path: Path) -> None:
    """Registered as p, moved to q: --all forgot p and said nothing of q, whose hooks ran on."""
    repo = Repo(tmp_path / "p")
    before = own_hooks(repo)
    repo.install()
    was = repo.git_dir.resolve()
    moved = Repo.existing(repo.path.rename(tmp_path / "q"))
    gone = installed(tmp_path / "gone")
    gone_dir = gone.git_dir.resolve()
    shutil.rmtree(gone.path)
    here = moved.git_dir.resolve()
    done = landwatch("uninstall", "--all", "--yes", cwd=moved.path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"  forget {was} (it vanished)\n" in done.stdout
    assert (
        f"  forget {gone_dir} (it vanished; moved elsewhere, its hooks went with it: run this "
        "there to take them out too)\n"
    ) in done.stdout
    assert (
        f"  remove the hooks and landwatch/ (queue and reports) of {here}, where this runs "
        f"(its hooks were installed for {was})\n"
    ) in done.stdout
    assert snapshot(moved.git_dir / "hooks") == before
    assert not (moved.git_dir / "landwatch").exists() and registry.registered() == []


def test_uninstall_all_leaves_a_repository_where_git_finds_another_git_dir(tmp_path: Path) -> None:
    """A registered repository whose HEAD git cannot read, inside another one landwatch's hooks
    were left in (its registration gone): git run in its worktree passes over it for the one
    above, and --all took that one's hooks out instead. Git must find the registered git dir
    there; else it is said in one line and both are left as they are."""
    outer = installed(tmp_path / "outer")
    registry.unregister(outer.git_dir)
    outer_hooks = snapshot(outer.git_dir / "hooks")
    inner = installed(outer.path / "inner")
    common = inner.git_dir
    inner_hooks = snapshot(common / "hooks")
    (common / "HEAD").write_text("garbage\n")
    done = landwatch("uninstall", "--all", "--yes", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert snapshot(outer.git_dir / "hooks") == outer_hooks
    assert snapshot(common / "hooks") == inner_hooks and (common / "landwatch").is_dir()
    lines = done.stdout.splitlines()
    [said] = [line for line in lines if line.startswith("landwatch: ") and str(common) in line]
    assert said == (
        f"landwatch: left {common} as it is: git does not take {common} for a repository: in "
        f"{inner.path} it finds {outer.git_dir} instead"
    )


def test_uninstall_removes_the_work_directories_install_set_aside(tmp_path: Path) -> None:
    """A copy's work directory install moved aside as not made here was left behind by uninstall,
    unnamed, one repository or --all; --keep-data keeps it and says where. A link of that name
    (an archive's) leads to nothing uninstall removes."""
    repo = installed(tmp_path / "p")
    repo.land("recorded")
    shutil.copytree(repo.path, tmp_path / "c", symlinks=True)
    copy = Repo.existing(tmp_path / "c")
    assert "was not made by landwatch here" in copy.install()
    [aside] = copy.git_dir.glob("landwatch.not-made-here.*")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "kept").write_text("mine\n")
    (copy.git_dir / "landwatch.not-made-here.1").symlink_to(mine)
    kept = copy.landwatch("uninstall", "--keep-data")
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.splitlines()[-1] == (
        f"landwatch: the work directories set aside as not made here stay in {aside}; "
        f"rm -rf {aside}"
    )
    assert aside.is_dir()
    copy.install()
    shown = landwatch("uninstall", "--all", cwd=copy.path)
    assert (
        f"  remove the hooks and landwatch/ (queue and reports) of {copy.git_dir}, and 1 work "
        "directory set aside as not made here\n"
    ) in shown.stdout
    done = landwatch("uninstall", "--all", "--yes", cwd=copy.path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"landwatch: removed the work directories set aside as not made here ({aside})\n"
    ) in done.stdout
    assert not aside.exists() and (mine / "kept").read_text() == "mine\n"


def test_uninstall_withdraws_everything_at_once(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    assert repo.landwatch("trust", "--yes").returncode == 0
    oids = [repo.land(f"waiting {n}", {"m.py": f"x = {n}\n"}) for n in range(3)]
    said = repo.landwatch("uninstall", "--keep-data").stdout
    assert "withdrew what you trusted here" in said
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    assert [oid for oid, _ in repo.pending()] == oids  # still there for a later install
    assert trust.approvals() == []
    repo.install()
    assert run_reviewer("--once").returncode == 0
    assert repo.pending() == [] and not canary.exists()  # reviewed, trust not restored


def open_gate(gate: Path) -> None:
    """Let the Blocking handler's review end, if one waits on `gate` (else nothing waits)."""
    with contextlib.suppress(OSError):  # ENXIO: no review waits on it
        fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b"x")
        os.close(fd)


def uninstall_all_running(reviewer_pid: int) -> subprocess.Popen[str]:
    """`landwatch uninstall --all --yes` started beside the reviewer `reviewer_pid`."""
    assert holder() is not None and holder().pid == reviewer_pid  # type: ignore[union-attr]
    return subprocess.Popen(
        [sys.executable, "-m", "landwatch", "uninstall", "--all", "--yes"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "LANDWATCH_TEST_SCHEDULER": "detach"},
    )


def test_uninstall_all_waits_for_the_reviewer_to_end_before_removing_its_state(
    repo: Repo, tmp_path: Path, journal: Path
) -> None:
    """Asked to stop, the reviewer finishes its review and writes its log and state as it ends:
    removed before, the state directory came back, and "nothing runs" was said too soon."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.land("under review")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    with running("--grace", "300", "--handler", "review=support.handlers:Blocking", env=env) as rv:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the review to start")
        removing = uninstall_all_running(rv.pid)
        assert removing.stdout is not None
        said = []
        try:
            for line in removing.stdout:
                said.append(line)
                if line.startswith("landwatch: waiting for the reviewer"):
                    assert rv.poll() is None and layout.state_dir().is_dir()  # nothing gone yet
                    open_gate(gate)  # the review ends; so does the reviewer
            assert removing.wait(timeout=120) == 0, said
            assert rv.poll() is not None, "uninstall ended while the reviewer still ran"
        finally:
            open_gate(gate)
    assert "landwatch: removed; nothing of it runs any more\n" in said
    assert not layout.state_dir().exists()
    assert [words[0] for words in journal_lines(journal)] == ["start", "done"]


@contextlib.contextmanager
def reviewing_for_ever(
    repo: Repo, tmp_path: Path, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[subprocess.Popen[str]]:
    """A detached reviewer whose review never ends while the gate is shut (however fast the
    machine, it outlives any wait), the gate opened as it is left."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    oid = repo.land("under review")
    env = reviewer_env(journal, LANDWATCH_TEST_GATE=str(gate))
    monkeypatch.setenv("LANDWATCH_TEST_SCHEDULER", "detach")
    with running("--grace", "300", "--handler", "review=support.handlers:Blocking", env=env) as rv:
        wait_for(lambda: ["start", oid] in journal_lines(journal), "the review to start")
        try:
            yield rv
        finally:
            open_gate(gate)


def test_uninstall_all_waits_for_the_reviewer_only_so_long(
    repo: Repo, tmp_path: Path, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with reviewing_for_ever(repo, tmp_path, journal, monkeypatch) as rv:
        out = io.StringIO()
        code = uninstall.uninstall_everything(keep_data=False, yes=True, out=out, stop_wait=1)
        assert rv.poll() is None
    state = layout.state_dir()
    assert code == 1
    assert out.getvalue().splitlines()[-1] == (
        f"landwatch: removed, but the reviewer (pid {rv.pid}, foreground, landwatch "
        f"{__version__}) has not ended after 1 s; {state} is kept for it: once it has "
        f"ended, rm -rf {state}"
    )
    assert state.is_dir() and not layout.config_dir().exists() and registry.registered() == []


def test_the_detached_service_s_uninstall_leaves_the_wait_to_uninstall_all(
    repo: Repo, tmp_path: Path, journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit of 62cad0f: with a reviewer that would not end, `uninstall --all` waited a
    minute in the service's stop, silent, then its own minute, and said it waited one. The
    service's uninstall asks and returns; `--all` waits, saying so, as long as it says."""
    with reviewing_for_ever(repo, tmp_path, journal, monkeypatch) as rv:
        out = io.StringIO()
        service.service("uninstall", out=out)
        assert rv.poll() is None
    assert f"asked the reviewer (pid {rv.pid}) to stop" in out.getvalue()
    assert "has not ended" not in out.getvalue()
