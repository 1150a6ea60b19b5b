"""The hook as git runs it: the hook it replaced runs first with its arguments, its status and a
copy of post-rewrite's stdin (how it is run: test_kept_hooks.py), a long rewrite is read whole, the
kill switch records nothing, a stdin nobody gave is never read, and on the happy path no Python
starts and no process is spawned."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from landwatch import layout, line_markers, work_item
from landwatch.kinds.review import review_in_worker
from support.queue import git_env
from support.repos import Repo, foreign_hook, installed


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


@pytest.mark.parametrize("event", ["post-commit", "post-merge"])
def test_a_kept_hook_that_commits_in_turn_leaves_the_person_s_landing_recorded(
    tmp_path: Path, event: str
) -> None:
    """A kept hook that commits (a version bump, a changelog) runs before landwatch records:
    what is recorded is what the person's commit or merge brought, then the hook's own."""
    repo = Repo(tmp_path / "repo")
    bump = repo.git_dir / "hooks" / event
    bump.write_text(
        '#!/bin/sh\n[ -n "$BUMPING" ] && exit 0\n'
        'date +%N > VERSION && git add VERSION && BUMPING=1 git commit -q -m "bump version"\n'
    )
    bump.chmod(0o755)
    repo.install()
    base = None
    if event == "post-commit":
        repo.land("the person's work", {"work.txt": "work\n"})  # HEAD: the bump after it
    else:
        base = repo.head()
        repo.git("switch", "-q", "-c", "topic")
        repo.land("on topic", {"topic.txt": "t\n"}, hooks=False)
        repo.git("switch", "-q", "main")
        repo.git("merge", "-q", "--ff-only", "topic")
    mine, bumped = repo.git("rev-parse", "HEAD~1"), repo.head()
    assert repo.git("log", "-1", "--format=%s", bumped) == "bump version"
    assert (mine, base) in repo.pending()
    assert (bumped, None) in repo.pending()  # its own post-commit recorded the bump


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


@pytest.mark.parametrize("chained", [False, True])
def test_a_rewrite_of_thousands_of_waiting_commits_sets_each_aside_and_says_one_line(
    tmp_path: Path, chained: bool
) -> None:
    """An audit: a rebase replacing 1,600 or more commits whose lines waited put every pair in
    one argument of the notice, past Linux's 128 KiB for one: the shell's `Argument list too
    long` on the terminal, no line said, nothing set aside. The pairs go on the notice's stdin,
    read straight or (for a hook we chain) buffered."""
    repo = Repo(tmp_path / "repo")
    if chained:
        foreign_hook(repo, "post-rewrite", tmp_path / "log")
    repo.install()
    told = repo.land("ws", {"c.py": "c = 3  \n"}, hooks=False)
    review_in_worker(str(repo.git_dir), told, None)  # a line waits of a commit still here
    pairs = [(f"{n:040x}", f"{n + 1_000_000:040x}") for n in range(2000)]
    for old, _ in pairs:  # each replaced commit's line waits, as report_store marks it
        (layout.UNREAD.path(repo.git_dir) / old).touch()
    # What a hook killed between making the pairs' file and removing it left: never read.
    layout.REWRITE_PAIRS.path(repo.git_dir).write_text(f"{told}:{'e' * 40}\n")
    ran = subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "rebase"],
        cwd=repo.path,
        input="".join(f"{old} {new}\n" for old, new in pairs),
        text=True,
        capture_output=True,
        env=git_env(),
    )
    assert ran.returncode == 0
    line = f"landwatch: P001 trailing whitespace in c.py:1 · landwatch show {told[:7]}\n"
    assert ran.stderr == line
    # Set aside by the rewrite's own pairs (a commit found dropped later would name no new one).
    assert sorted(line_markers.set_aside_pairs(repo.git_dir)) == sorted(
        (new, old) for old, new in pairs
    )
    assert line_markers.unread(repo.git_dir) == []
    assert not os.path.lexists(layout.REWRITE_PAIRS.path(repo.git_dir))  # removed at once


def test_a_squash_of_more_commits_than_a_record_names_names_the_first(repo: Repo) -> None:
    """post-rewrite's lines grouped by new commit, each recorded once naming the old ones (in a
    row, as git gives a squash); past the record's bound only the first are named."""
    most = work_item.MAX_REWRITTEN
    olds = [f"{n:040x}" for n in range(most + 45)]
    news = [f"{n + 1_000_000:040x}" for n in range(3)]
    # One commit alone, then a squash of more than the bound, then two squashed into one.
    pairs = [(olds[0], news[0]), *((old, news[1]) for old in olds[1:-2])]
    pairs += [(old, news[2]) for old in olds[-2:]]
    given = "".join(f"{old} {new}\n" for old, new in pairs)
    ran = subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "rebase"],
        cwd=repo.path,
        input=given,
        text=True,
        capture_output=True,
        env=git_env(),
    )
    assert ran.returncode == 0 and ran.stderr == ""
    assert [oid for oid, _ in repo.pending()] == news
    replaced = {}
    while (claimed := work_item.claim_next(repo.git_dir, [work_item.WorkKind.REVIEW])) is not None:
        replaced[claimed.item.oid] = claimed.item.replaced
    assert replaced == {
        news[0]: (olds[0],),
        news[1]: tuple(olds[1 : 1 + most]),
        news[2]: tuple(olds[-2:]),
    }


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


def test_an_amend_starts_python_only_to_set_aside_a_line_held_for_the_old_commit(
    repo: Repo, tmp_path: Path
) -> None:
    """A line held for the project hooks of the commit an amend replaced is set aside by the
    amend's post-rewrite (nothing else saw it: post-commit's notice looks at unread lines),
    through a notice that says nothing; an amend with no line waiting starts nothing."""
    calls = tmp_path / "calls"
    layout.ENTRY_POINT.path().write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    repo.land("one")
    repo.git("commit", "-q", "--amend", "-m", "one, amended")
    assert not calls.exists()
    held = repo.head()
    line_markers.hold(repo.git_dir, held, ["a" * 16], [])
    repo.git("commit", "-q", "--amend", "-m", "one, amended again")
    assert calls.read_text() == f"notice --git-dir .git --set-aside {held}:{repo.head()}\n"


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


# A window's title set and the screen cleared: what a copied repository's text may hold.
ESCAPES = "\x1b]0;PWNED\x07\x1b[2J"
SHOWN = "\\x1b]0;PWNED\\x07\\x1b[2J"  # as text.safe shows it


def test_a_setting_s_text_is_shown_escaped_in_the_hook_s_line(repo: Repo) -> None:
    """A copied repository's .git/config drives no terminal at the next commit: its text is
    shown as the reviewer and doctor show it (tests/layout/test_layout.py: every byte)."""
    repo.git("config", "landwatch.staleAfter", ESCAPES)
    repo.land("one")
    assert repo.said == (
        f"landwatch: git config landwatch.staleAfter = '{SHOWN}' is not a whole number of "
        "seconds (1 to 9 digits, no leading zero); landwatch uses 600\n"
    )


def test_a_line_the_quick_way_meets_is_said_once_escaped_by_the_whole_hook(
    tmp_path: Path,
) -> None:
    """The quick way cannot escape (the escaper is parsed by the whole hook alone): it leaves a
    line holding what is not printable ASCII (a linked worktree's git dir) to the whole hook."""
    main = installed(tmp_path / f"r{ESCAPES}" / "repo")
    main.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    linked = Repo.existing(tmp_path / "linked")
    linked.land("the first landing makes its work directory", "w")
    main.clear(linked.git_dir)
    dates = {"GIT_AUTHOR_DATE": "2026-01-01T00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00Z"}
    linked.stage({"w": "the next\n"})
    tree = linked.git("write-tree")
    oid = linked.git("commit-tree", tree, "-p", "HEAD", "-m", "the next", **dates)
    marker = linked.git_dir / "landwatch" / "known" / f"review-{oid}"
    marker.mkdir()  # the commit's id known, no file of landwatch's: the quick way says so
    landed = linked.run("commit", "-q", "-m", "the next", **dates)
    assert linked.head() == oid
    assert landed.stderr == (
        f"landwatch: {str(marker).replace(ESCAPES, SHOWN)} is no file of landwatch's; "
        f"{oid[:7]} not recorded\n"
    )


NOBODY = 65534


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="landing as a second user needs root and setpriv",
)
def test_a_second_user_of_a_shared_repository_is_told_whose_the_work_directory_is() -> None:
    """The repository's work directory is whoever installed landwatch there: it exists, so
    "cannot create" said the wrong thing to the second user landing there."""
    base = Path(tempfile.mkdtemp(prefix="landwatch-shared-"))  # /tmp: nobody may reach it
    try:
        base.chmod(0o755)
        repo = Repo(base / "repo")
        repo.install()
        subprocess.run(["chmod", "-R", "a+rwX", str(repo.path)], check=True)
        work = repo.git_dir / "landwatch"
        work.chmod(0o700)  # as landwatch keeps it: its installer's alone
        home = base / "home"
        home.mkdir(mode=0o777)
        home.chmod(0o777)
        as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        landed = subprocess.run(
            [
                *as_nobody,
                "git",
                "-c",
                "safe.directory=*",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
            cwd=repo.path,
            env=git_env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config")),
            capture_output=True,
            text=True,
        )
        assert landed.returncode == 0, landed.stderr
        assert landed.stderr == (
            f"landwatch: the work directory .git/landwatch is another user's (uid "
            f"{os.getuid()}): nothing of yours is recorded here\n"
        )
    finally:
        shutil.rmtree(base)
