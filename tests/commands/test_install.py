"""`landwatch install`: marked executable hooks beside what was there, registered, idempotent, never
losing a hook; core.hooksPath as git reads it (the default, a generated one, a global one, one
that does not exist), and a .git/hooks linked elsewhere as if core.hooksPath named it; a bare
repository and a path with a newline refused in one line, one that is not UTF-8 installed and
reviewed; the secret rules compiled once, never a failed install."""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from landwatch import hooks, layout, registry
from landwatch.commands import install
from landwatch.commands.install_policy import InstallError
from landwatch.files import exclusive
from landwatch.review.secrets import provider_rules
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE
from support.daemon import run_reviewer, wait_for
from support.repos import Repo, installed, run_cli


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


def test_an_upgrade_writes_again_the_hooks_an_older_landwatch_wrote_elsewhere(
    repo: Repo, tmp_path: Path
) -> None:
    """install.sh's last step: the hooks are copies, so another repository's would keep an older
    push gate; written again where they were (a --hooks-path kept), the up-to-date left alone."""
    apart = tmp_path / "apart"
    apart.mkdir()
    other = Repo(tmp_path / "other")
    assert install.install(other.path, hooks_path=apart, out=io.StringIO()) == 0
    gate = apart / "pre-push"
    written = gate.read_text()
    gate.write_text(written.replace("lw_most=1000", "lw_most=5000"))  # as a release before
    untouched = repo.git_dir / "hooks" / "post-commit"
    before = untouched.stat().st_mtime_ns
    out = io.StringIO()
    assert install.rewrite_older_hooks(out) == 1
    assert gate.read_text() == written
    assert untouched.stat().st_mtime_ns == before
    assert f"{other.path}: hooks an older landwatch wrote" in out.getvalue()
    assert install.rewrite_older_hooks(io.StringIO()) == 0


def test_install_refuses_to_lose_a_hook_and_installs_the_other_events(repo: Repo) -> None:
    """Two hooks of one event install cannot sort out alone: that event is left as it is, and
    said; the others, the push gate among them, are installed. Before, one such event refused
    every event: no gate, and the landings left to the sweep (an audit)."""
    directory = repo.git_dir / "hooks"
    (directory / "post-commit.before-landwatch").write_text("#!/bin/sh\necho older\n")
    (directory / "post-commit").write_text("#!/bin/sh\necho newer\n")
    out = io.StringIO()
    with pytest.raises(InstallError, match=r"installed, but for post-commit: .*move one"):
        install.install(repo.path, out=out)
    assert (directory / "post-commit").read_text() == "#!/bin/sh\necho newer\n"
    owners = [hooks.whose(directory / event) for event in hooks.INSTALLED_EVENTS]
    assert owners == [None] + ["landwatch"] * 4
    assert "hooks post-merge, post-rewrite, post-applypatch, pre-push written" in out.getvalue()


def test_hooks_path_equal_to_the_default_is_as_if_unset(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git("config", "core.hooksPath", ".git/hooks")
    repo.install()
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)]


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


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_linked_hooks_directory_is_judged_as_a_hooks_path_to_where_it_leads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """.git/hooks a link to the project's committed githooks/: install took it for the
    repository's own and wrote landwatch's hooks into the committed files, the person's home in
    them, the project's pre-push replaced (an audit). Refused as core.hooksPath there is."""
    repo = Repo(tmp_path / "repo")
    team = repo.path / "githooks" if where == "inside" else tmp_path / "hooks of mine"
    team.mkdir()
    (team / "pre-push").write_text("#!/bin/sh\necho team-pre-push >&2\n")
    (team / "pre-push").chmod(0o755)
    if where == "inside":
        repo.git("add", "githooks")
        repo.land("team hooks", hooks=False)
    shutil.rmtree(repo.git_dir / "hooks")
    (repo.git_dir / "hooks").symlink_to(os.path.relpath(team, repo.git_dir))
    code, output = run_cli(repo, "install", capsys=capsys)
    link = repo.git_dir / "hooks"
    said = {
        "inside": "a directory the project commits (githooks/pre-push); landwatch did not write "
        f"there: {COMMITTED_WHY}\n  Instead:  rm {link} && mkdir {link} && git config "
        f"core.hooksPath {team}; {instead(repo)}\n",
        "outside": "a directory outside the repository, shared by other repositories; landwatch "
        "did not write there.\n  To install there on purpose:  landwatch install --hooks-path "
        f"{shlex.quote(str(team))}\n",
    }[where]
    assert (code, output) == (1, f"landwatch: {repo.git_dir / 'hooks'} is a link to {team}, {said}")
    assert sorted(path.name for path in team.iterdir()) == ["pre-push"]
    assert repo.git("status", "--porcelain") == "" and registry.registered() == []
    if where == "inside":  # what it says to do instead is not refused in its turn
        link.unlink()
        link.mkdir()
        repo.git("config", "core.hooksPath", str(team))
        assert run_cli(repo, "install", "--hooks-path", str(link), capsys=capsys)[0] == 0
        assert repo.git("status", "--porcelain") == "" and hooks.is_ours(link / "pre-push")


COMMITTED_WHY = (
    "the next `git commit -a` would give its hooks to everyone, your home's path in them."
)


def instead(repo: Repo) -> str:
    """What install says to do beside a hooks directory the project commits."""
    return (
        f"landwatch install --hooks-path {repo.git_dir / 'hooks'}, then call .git/hooks/<event> "
        "from the project's hooks (docs/hooks.md)"
    )


@pytest.mark.parametrize("shape", ["githooks", "husky 8", "husky 9 forced in"])
def test_a_hooks_directory_the_project_commits_is_never_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    """core.hooksPath naming a directory the project commits (a tracked githooks/, husky 8's
    .husky, even husky 9's generated .husky/_ forced in): install called it one "a tool
    generates" and offered `--hooks-path` there, whose hooks the next `git commit -a` gave every
    teammate in place of the project's, the person's home in them (an audit). Named for what it
    is, refused even when asked, and what it says to do instead works: landwatch's hooks in
    .git/hooks, called from the project's."""
    repo = Repo(tmp_path / "repo")
    team, hook = repo.path / "githooks", "pre-push"
    text = '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\ntrue\n'
    if shape == "husky 8":  # its layout: your hooks committed, its helper in the ignored `_`
        team, hook = repo.path / ".husky", "pre-commit"
        (team / "_").mkdir(parents=True)
        (team / "_" / ".gitignore").write_text("*\n")
        (team / "_" / "husky.sh").write_text("#!/usr/bin/env sh\n")
    elif shape == "husky 9 forced in":  # its generated `.husky/_`, yet committed (git add -f)
        team, hook, text = repo.path / ".husky" / "_", "pre-commit", '. "$(dirname "$0")/h"\n'
        team.mkdir(parents=True)
        (team / "h").write_text("#!/usr/bin/env sh\n")
    team.mkdir(exist_ok=True)
    (team / hook).write_text(text)
    (team / hook).chmod(0o755)
    where = os.path.relpath(team, repo.path)
    repo.git("add", *(["-f"] if "9" in shape else []), where)
    repo.land("the project's hooks", hooks=False)
    repo.git("config", "core.hooksPath", where)
    before = sorted(path.name for path in team.iterdir())
    tracked = ", ".join(f"{where}/{name}" for name in (["h"] if "9" in shape else []) + [hook])
    refused = f"a directory the project commits ({tracked}); landwatch did not write there: "
    refused += f"{COMMITTED_WHY}\n  Instead:  {instead(repo)}\n"
    code, output = run_cli(repo, "install", capsys=capsys)
    assert (code, output) == (1, f"landwatch: core.hooksPath points to {team}, {refused}")
    code, output = run_cli(repo, "install", "--hooks-path", where, capsys=capsys)
    assert (code, output) == (1, f"landwatch: {where}, {refused}")
    assert sorted(path.name for path in team.iterdir()) == before
    assert repo.git("status", "--porcelain") == "" and registry.registered() == []
    # Instead: installed in .git/hooks, and the project's post-commit (committed) calls it;
    # made where a clone without git's templates has none.
    if shape == "githooks":
        shutil.rmtree(repo.git_dir / "hooks")
    code, output = run_cli(
        repo, "install", "--hooks-path", str(repo.git_dir / "hooks"), capsys=capsys
    )
    assert code == 0, output
    (team / "post-commit").write_text(
        '#!/bin/sh\nhook="$(git rev-parse --git-common-dir)/hooks/post-commit"\n'
        'if [ -x "$hook" ]; then "$hook" "$@"; fi\n'
    )
    (team / "post-commit").chmod(0o755)
    repo.git("add", "-f", str(team / "post-commit"))
    repo.land("call landwatch's hooks", hooks=False)
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)] and repo.git("status", "--porcelain") == ""


def test_bare_repository_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    repo = Repo.existing(bare)
    code, output = run_cli(repo, "install", capsys=capsys)
    assert code == 1
    assert output.count("\n") == 1 and "bare repository" in output


def test_a_path_with_a_newline_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "line\nbreak")
    result = repo.landwatch("install")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "newline in its path" in result.stderr and "Traceback" not in result.stderr
    assert not (repo.git_dir / "landwatch").exists()


def test_a_hooks_path_with_a_newline_is_refused_in_one_line_by_install_and_uninstall(
    tmp_path: Path,
) -> None:
    """core.hooksPath holding a line end (a copied repository's config) shifted the lines of
    git's one answer: install said `cannot run git`, uninstall took out nothing and exited 0."""
    repo = Repo(tmp_path / "repo")
    repo.git("config", "core.hooksPath", "/nonexistent/hooks\nx")
    for command in ("install", "uninstall"):
        result = repo.landwatch(command)
        assert (result.returncode, result.stdout) == (1, ""), command
        assert result.stderr == (
            "landwatch: git config core.hooksPath = '/nonexistent/hooks\\x0ax' has a newline in "
            "it, which no hooks directory of landwatch's can have; set it to a path without one, "
            "or unset it (git config --unset core.hooksPath)\n"
        )
    assert not (repo.git_dir / "landwatch").exists()


def test_a_path_that_is_not_utf8_is_installed_and_its_landings_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository at `caf\\xe9` (Latin-1's é, no UTF-8): the paths git printed were read with
    U+FFFD for that byte, naming no directory, and install said `cannot run git: No such file or
    directory`. Its path is now git's own bytes: installed, each landing recorded by the hook and
    reviewed, the path shown escaped, also where printing refuses what is not UTF-8 (a desktop's
    UTF-8 locale; this machine's C locale lets any byte through)."""
    monkeypatch.setenv("PYTHONIOENCODING", "utf-8:strict")
    repo = Repo(tmp_path / os.fsdecode(b"caf\xe9"))
    git_dir, shown = repo.path / ".git", f"{tmp_path}/caf\\xe9/.git"
    refused = repo.landwatch("install", "--hooks-path", str(repo.path / "none"))
    assert (
        refused.stderr
        == f"landwatch: {tmp_path}/caf\\xe9/none is not a directory; nothing written\n"
    )
    installing = repo.landwatch("install")
    assert installing.returncode == 0, installing.stderr
    assert f"written to {shown}/hooks\n" in installing.stdout
    assert f"registered {shown} with your reviewer" in installing.stdout
    assert registry.registered() == [git_dir]
    landed = repo.land("Add a debugger", {"b.py": "breakpoint()\n"})
    assert repo.pending(git_dir) == [(landed, None)]  # the hook recorded it
    assert run_reviewer("--once").returncode == 0
    repo.land("More", "c.py")  # the next landing's one line tells the review
    assert f"P007 debug statement in b.py:1 · landwatch show {landed[:7]}" in repo.said
    shown_review = repo.landwatch("show", landed)
    assert shown_review.returncode == 0 and "P007 debug-statement" in shown_review.stdout
    assert shown in repo.landwatch("status").stdout
    uninstalling = repo.landwatch("uninstall")
    assert uninstalling.returncode == 0 and f"unregistered {shown}" in uninstalling.stdout
    assert not registry.registered()


def test_a_hooks_path_that_does_not_exist_is_refused_and_nothing_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    nowhere = tmp_path / "no" / "such" / "dir"
    code, output = run_cli(repo, "install", "--hooks-path", str(nowhere), capsys=capsys)
    assert code == 1 and output == f"landwatch: {nowhere} is not a directory; nothing written\n"
    assert not (tmp_path / "no").exists() and registry.registered() == []


def test_a_sha256_repository_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "sha256"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(path)], check=True)
    repo = Repo.existing(path)
    result = repo.landwatch("install")
    if result.returncode == 0:
        pytest.skip("this pygit2 reads SHA-256 repositories: they are reviewed like any other")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "sha256 object names" in result.stderr and "nothing installed" in result.stderr
    assert not (path / ".git" / "landwatch").exists() and registry.registered() == []


def plant(work: Path, oid: str, report: dict[str, object], mark: bytes) -> None:
    """What the issue planted in .git/landwatch: a known/ marker for an upstream commit, a copy
    of a report without findings renamed to be that commit's, and a mark copied from elsewhere."""
    for part in ("known", "reports"):
        (work / part).mkdir(parents=True, mode=0o700, exist_ok=True)
    (work / "known" / f"review-{oid}").write_text("planted\n")
    (work / "reports" / f"{oid}.json").write_text(json.dumps({**report, "commit": oid}))
    (work / "made").write_bytes(mark)


def test_a_planted_work_directory_is_moved_aside_and_the_pulled_commit_reviewed(
    tmp_path: Path,
) -> None:
    """The issue's attack: a repository copied with `.git/landwatch` planted, then `landwatch
    install` and a pull bringing the commit the plant names. Before, that commit was never
    reviewed (the marker made the hook's record a duplicate, the report made the sweep skip
    it) and `show` printed the planted report; now install moves the directory aside."""
    elsewhere = installed(tmp_path / "elsewhere")  # a clean review to copy, and its mark
    clean = elsewhere.land("Add the notes", "notes.txt")
    assert run_reviewer("--once").returncode == 0
    report = json.loads(layout.report_file(elsewhere.git_dir, clean).read_text())
    assert report["findings"] == []
    upstream = Repo(tmp_path / "upstream")
    victim = Repo(tmp_path / "victim", clone_of=upstream.path)
    bad = upstream.land("Sum the prices", {"cart.py": "import pdb; pdb.set_trace()   \n"})
    work = victim.git_dir / "landwatch"
    plant(work, bad, report, (elsewhere.git_dir / "landwatch" / "made").read_bytes())
    said = victim.install()
    aside = [p for p in victim.git_dir.iterdir() if p.name.startswith("landwatch.not-made-here.")]
    assert len(aside) == 1 and (aside[0] / "reports" / f"{bad}.json").exists()
    assert f"landwatch: {work} was not made by landwatch here" in said
    assert f"moved aside, unread, to {aside[0]}" in said
    assert not (work / "known" / f"review-{bad}").exists() and registry.made_here(victim.git_dir)
    assert victim.run("pull", "-q", "--ff-only").returncode == 0
    assert victim.head() == bad
    assert run_reviewer("--once").returncode == 0
    shown = victim.landwatch("show", bad)
    assert "P007 debug-statement" in shown.stdout, shown.stdout + shown.stderr
    assert json.loads(layout.report_file(victim.git_dir, bad).read_text())["findings"]


def test_a_reinstall_keeps_its_own_queue_and_reports(repo: Repo) -> None:
    reviewed = repo.land("reviewed before the reinstall")
    assert run_reviewer("--once").returncode == 0
    waiting = repo.land("waiting through the reinstall", "later.txt")
    said = repo.install()
    assert "not made by landwatch" not in said
    assert layout.report_file(repo.git_dir, reviewed).exists()
    assert repo.pending() == [(waiting, None)]
    registry.unregister(repo.git_dir)  # uninstalled since: the mark still says it is ours
    assert "not made by landwatch" not in repo.install()
    assert repo.pending() == [(waiting, None)]


def test_a_work_directory_without_a_mark_is_adopted_when_registered(repo: Repo) -> None:
    """One made by a release before the marks: the repository is registered, so its queue is
    the person's and is kept (security.md says what that leaves open)."""
    waiting = repo.land("recorded before the marks")
    (repo.git_dir / "landwatch" / "made").unlink()
    assert "not made by landwatch" not in repo.install()
    assert repo.pending() == [(waiting, None)] and registry.made_here(repo.git_dir)


def test_install_compiles_the_secret_rules_once_and_says_so(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40: the first review on a new machine compiled them (6.7 s); install does, once,
    and the review reads them back (or, its lines holding no anchor, loads nothing)."""
    where = tmp_path / "state" / "secret-rules"
    monkeypatch.setenv(DIRECTORY_VARIABLE, str(where))
    first = repo.landwatch("install")
    assert first.returncode == 0, first.stderr
    assert f"landwatch: compiling the secret rules into {where} (once, a few seconds)" in (
        first.stdout
    )
    assert provider_rules.compiled()
    again = repo.landwatch("install")
    assert again.returncode == 0 and "secret rules" not in again.stdout


def test_install_that_cannot_keep_the_secret_rules_still_installs_and_says_so(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = tmp_path / "a-file"
    where.write_text("not a directory\n")
    monkeypatch.setenv(DIRECTORY_VARIABLE, str(where))
    ran = repo.landwatch("install")
    assert ran.returncode == 0, ran.stderr
    assert f"landwatch: the secret rules could not be kept in {where}" in ran.stdout
    assert "hooks post-commit" in ran.stdout


def waits_for_a_lock(pid: int) -> bool:
    """Whether the process `pid` is blocked in flock(2): /proc/locks names it after `->`."""
    for line in Path("/proc/locks").read_text().splitlines():
        words = line.split()
        if len(words) > 5 and words[1] == "->" and words[5] == str(pid):
            return True
    return False


def test_two_first_installs_at_once_keep_each_other_s_work(tmp_path: Path) -> None:
    """The audit's race (1 first install in 12): one install moved aside, as not made here, the
    work directory the other had just made and not marked yet. Gated, not timed: the registry's
    lock, held here, stops the first where it marks its work directory; the second is let go
    once it waits for a lock too (before, having moved the first's aside)."""
    repo = Repo(tmp_path / "repo")
    mine = repo.git_dir / "hooks" / "post-commit"
    mine.write_text("#!/bin/sh\necho my own\n")
    mine.chmod(0o700)
    command = [sys.executable, "-m", "landwatch", "install"]
    runs = []
    with exclusive(layout.REGISTRY_LOCK.path()):
        for _ in range(2):
            runs.append(subprocess.Popen(command, cwd=repo.path, stdout=subprocess.PIPE, text=True))
            wait_for(lambda: waits_for_a_lock(runs[-1].pid), "the install to wait for a lock")
    said = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    assert not list(repo.git_dir.glob("landwatch.not-made-here.*")), said
    assert registry.made_here(repo.git_dir) and hooks.is_ours(mine)
    assert (mine.parent / "post-commit.before-landwatch").read_text() == "#!/bin/sh\necho my own\n"
