"""Installing, chaining foreign hooks, core.hooksPath, uninstalling: never breaking a hook."""

from __future__ import annotations

import io
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from landwatch import cli, hooks, layout, registry, work_item
from landwatch.commands import install, uninstall
from support.queue import git_env
from support.repos import Repo

FOREIGN = """#!/bin/sh
echo "foreign $(basename "$0") $*" >> "{log}"
[ "$(basename "$0")" = post-rewrite.before-landwatch ] && cat >> "{log}"
exit {status}
"""


def foreign_hook(repo: Repo, event: str, log: Path, status: int = 0) -> Path:
    hook = repo.git_dir / "hooks" / event
    hook.write_text(FOREIGN.format(log=log, status=status))
    hook.chmod(0o751)
    return hook


def test_install_writes_marked_executable_hooks_and_registers(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    output = repo.install()
    for event in hooks.HOOK_EVENTS:
        hook = repo.git_dir / "hooks" / event
        assert hooks.is_ours(hook)
        assert hook.stat().st_mode & stat.S_IXUSR
        text = hook.read_text()
        assert text.startswith("#!/bin/sh\n")
        assert f"LANDWATCH_EVENT={event}\n" in text
        assert f"LANDWATCH_ENTRY={layout.ENTRY_POINT.path()}\n" in text
    entry = layout.ENTRY_POINT.path()
    assert os.access(entry, os.X_OK) and ' -I -m landwatch "$@"' in entry.read_text()
    assert registry.registered() == [repo.git_dir.resolve()]
    assert (repo.git_dir / "landwatch" / "pending").is_dir()
    assert "registered" in output


def test_install_is_idempotent_and_upgrades_its_own_hooks(repo: Repo) -> None:
    hook = repo.git_dir / "hooks" / "post-commit"
    hook.write_text(hook.read_text().replace("# landwatch-hook 1", "# landwatch-hook 0"))
    output = repo.install()
    assert "landwatch-hook 1" in hook.read_text()
    assert not (repo.git_dir / "hooks" / "post-commit.before-landwatch").exists()
    assert "registered" not in output and "kept your" not in output
    assert registry.registered() == [repo.git_dir.resolve()]


def test_a_foreign_hook_runs_first_with_its_arguments_and_status(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    foreign_hook(repo, "post-merge", log, status=3)
    foreign_hook(repo, "post-commit", log)
    output = repo.install()
    assert "kept your post-merge hook as post-merge.before-landwatch" in output
    oid = repo.land("one")
    assert log.read_text() == "foreign post-commit.before-landwatch \n"
    assert repo.pending() == [(oid, None)]
    # The status git sees is the foreign hook's, whether landwatch records or knows the item.
    for _ in range(2):
        ran = subprocess.run(["sh", ".git/hooks/post-merge", "0"], cwd=repo.path)
        assert ran.returncode == 3
    assert log.read_text().count("foreign post-merge.before-landwatch 0") == 2


def test_a_foreign_post_rewrite_hook_gets_a_copy_of_stdin(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    foreign_hook(repo, "post-rewrite", log)
    repo.install()
    old = repo.land("one")
    repo.git("commit", "-q", "--amend", "-m", "one, amended")
    assert log.read_text() == f"foreign post-rewrite.before-landwatch amend\n{old} {repo.head()}\n"
    assert repo.pending()[-1] == (repo.head(), None)


@pytest.mark.parametrize("chained", [False, True])
def test_a_long_rewrite_is_recorded_whole_and_given_whole(tmp_path: Path, chained: bool) -> None:
    """post-rewrite's stdin read in linear time, straight or (for a hook we chain) buffered,
    down to a last line without its line end."""
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    if chained:
        foreign_hook(repo, "post-rewrite", log)
    repo.install()
    pairs = [(f"{n:040x}", f"{n + 1_000_000:040x}") for n in range(300)]
    given = "".join(f"{old} {new}\n" for old, new in pairs).rstrip("\n")
    ran = subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "rebase"],
        cwd=repo.path,
        input=given,
        text=True,
        capture_output=True,
        env=git_env(),
    )
    assert ran.returncode == 0 and ran.stderr == ""
    assert [oid for oid, _ in repo.pending()] == [new for _, new in pairs]
    if chained:
        assert log.read_text() == f"foreign post-rewrite.before-landwatch rebase\n{given}"


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


def test_install_refuses_to_lose_a_hook(repo: Repo) -> None:
    hooks = repo.git_dir / "hooks"
    (hooks / "post-commit.before-landwatch").write_text("#!/bin/sh\necho older\n")
    (hooks / "post-commit").write_text("#!/bin/sh\necho newer\n")
    with pytest.raises(install.InstallError, match="move one of them away"):
        install.install(repo.path, out=io.StringIO())
    assert (hooks / "post-commit").read_text() == "#!/bin/sh\necho newer\n"


def test_hooks_path_equal_to_the_default_is_as_if_unset(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git("config", "core.hooksPath", ".git/hooks")
    repo.install()
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)]


def run_cli(repo: Repo, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    cwd = Path.cwd()
    os.chdir(repo.path)
    try:
        code = cli.main(list(args))
    finally:
        os.chdir(cwd)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_generated_hooks_path_inside_the_repository_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    husky = repo.path / ".husky" / "_"
    husky.mkdir(parents=True)
    (husky / "post-commit").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    repo.git("config", "core.hooksPath", ".husky/_")
    code, output = run_cli(repo, "install", capsys=capsys)
    assert code == 1
    assert "a tool generates" in output
    assert f"landwatch install --hooks-path {husky}" in output
    assert sorted(p.name for p in husky.iterdir()) == ["post-commit"]
    assert not any((repo.git_dir / "hooks" / event).exists() for event in hooks.HOOK_EVENTS)
    assert registry.registered() == []
    # On purpose: the hooks go there, chain what was there, and record.
    code, output = run_cli(repo, "install", "--hooks-path", str(husky), capsys=capsys)
    assert code == 0, output
    assert (husky / "post-commit.before-landwatch").exists()
    (husky / "h").write_text("#!/bin/sh\n")
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)]


def test_a_global_hooks_path_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    shared = tmp_path / "global-hooks"
    shared.mkdir()
    repo.git("config", "--global", "core.hooksPath", str(shared))
    code, output = run_cli(repo, "install", capsys=capsys)
    assert code == 1
    assert "shared by other repositories" in output
    assert list(shared.iterdir()) == []


def test_bare_repository_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    repo = Repo.existing(bare)
    code, output = run_cli(repo, "install", capsys=capsys)
    assert code == 1
    assert output.count("\n") == 1 and "bare repository" in output


def test_kill_switch_records_nothing_and_keeps_the_foreign_hook(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    log = tmp_path / "log"
    foreign_hook(repo, "post-commit", log)
    repo.install()
    (repo.path / "file").write_text("changed\n")
    repo.git("commit", "-q", "-am", "off", LANDWATCH="0")
    assert repo.pending() == []
    assert log.read_text() == "foreign post-commit.before-landwatch \n"


def test_hooks_never_read_a_stdin_they_were_not_given(repo: Repo) -> None:
    (repo.path / "file").write_text("x\n")
    repo.git("add", "file")
    with subprocess.Popen(
        ["git", "commit", "-q", "-m", "stdin held open"],
        cwd=repo.path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=git_env(),
    ) as process:
        # stdin stays open and empty: a hook reading it would hang the commit.
        assert process.wait(timeout=30) == 0
        assert process.stdin is not None
        process.stdin.close()
    assert repo.pending() == [(repo.head(), None)]


def test_the_happy_path_starts_no_python(repo: Repo, tmp_path: Path) -> None:
    canary = tmp_path / "python-started"
    layout.ENTRY_POINT.path().write_text(f"#!/bin/sh\ntouch {canary}\n")
    repo.land("one")
    repo.git("switch", "-q", "-c", "side")
    repo.land("two", "two")
    repo.git("switch", "-q", "main")
    repo.land("three", "three")
    repo.git("merge", "-q", "--no-edit", "side")
    assert len(repo.pending()) == 4
    assert not canary.exists()


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_the_happy_path_spawns_no_process(repo: Repo, tmp_path: Path) -> None:
    (repo.path / "file").write_text("traced\n")
    repo.git("add", "file")
    trace = tmp_path / "trace"
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=execve",
            "-o",
            str(trace),
            "git",
            "commit",
            "-q",
            "-m",
            "traced",
        ],
        cwd=repo.path,
        check=True,
        env=git_env(),
    )
    programs = [
        line.split('"')[1]
        for line in trace.read_text().splitlines()
        if "execve(" in line and "= 0" in line.rsplit(")", 1)[-1]
    ]
    spawned_by_hook = [p for p in programs[1:] if not p.endswith("/git")]
    assert [os.path.basename(p) for p in spawned_by_hook] == ["post-commit"]
    assert repo.pending() == [(repo.head(), None)]


def test_enqueue_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    first = repo.head()
    second = repo.land("second", hooks=False)
    code, output = run_cli(repo, "enqueue", capsys=capsys)
    assert (code, output) == (0, f"added review-{second}\n")
    code, output = run_cli(repo, "enqueue", "HEAD", capsys=capsys)
    assert (code, output) == (0, f"known review-{second}\n")
    code, output = run_cli(repo, "enqueue", "--kind", "push", "--base", first, capsys=capsys)
    assert code == 0
    claimed = work_item.claim_next(repo.git_dir, ["push"])
    assert claimed is not None and claimed.item.base == first
    code, output = run_cli(repo, "enqueue", "no-such-rev", capsys=capsys)
    assert code == 1 and output.startswith("landwatch: ") and output.count("\n") == 1


def test_a_path_with_a_newline_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "line\nbreak")
    result = repo.landwatch("install")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "newline in its path" in result.stderr and "Traceback" not in result.stderr
    assert not (repo.git_dir / "landwatch").exists()


def test_a_hooks_path_that_does_not_exist_is_refused_and_nothing_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    nowhere = tmp_path / "no" / "such" / "dir"
    code, output = run_cli(repo, "install", "--hooks-path", str(nowhere), capsys=capsys)
    assert code == 1 and output == f"landwatch: {nowhere} is not a directory; nothing written\n"
    assert not (tmp_path / "no").exists() and registry.registered() == []


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


def test_only_a_hook_beside_lefthook_says_lefthook_may_replace_it(tmp_path: Path) -> None:
    # lefthook overwrites, without moving it aside, any hook with LEFTHOOK in it.
    repo = Repo(tmp_path / "repo")
    repo.install()
    for event in hooks.HOOK_EVENTS:
        assert "LEFTHOOK" not in (repo.git_dir / "hooks" / event).read_text()
    entry, host, where = Path("/entry"), "host", repo.git_dir
    assert "LEFTHOOK" in hooks.render_hook("post-commit", entry, host, where, lefthook=True)
