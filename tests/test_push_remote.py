"""What a push's remote holds as this repository tells it (push_remote), with real git: the
remotes at a URL, a remote's own tracking refs, whether they stand for the push's destination,
one repository however its URL is written, and that place remembered for the pre-push hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import layout, push_remote
from support.kinds import origin
from support.repos import Repo


def test_the_remotes_at_a_url_are_those_configured_with_it(repo: Repo, tmp_path: Path) -> None:
    remote = origin(repo, tmp_path / "remote.git")
    assert push_remote.remotes_at(repo.path, str(remote)) == ["origin"]
    assert push_remote.remotes_at(repo.path, str(tmp_path / "elsewhere.git")) == []


def test_a_remote_s_own_tracking_refs_leave_out_those_of_remotes_named_within_it() -> None:
    remotes = ["pub", "pub/internal", "pubs"]
    assert push_remote.own_tracking("pub", remotes) == ["--exclude=pub/internal/*", "--remotes=pub"]
    assert push_remote.own_tracking("pubs", remotes) == ["--remotes=pubs"]
    assert push_remote.own_tracking("pub/internal", remotes) == []  # pub's branches are there


def test_one_repository_is_one_place_however_its_url_is_written(tmp_path: Path) -> None:
    for written in (
        "git@github.com:acme/app.git",
        "ssh://git@github.com/acme/app",
        "https://GitHub.com/acme/app/",
    ):
        assert push_remote.same_place("https://github.com/acme/app.git", written), written
    assert not push_remote.same_place("https://github.com/acme/app", "https://gitlab.com/acme/app")
    assert not push_remote.same_place("git@github.com:acme/app", "git@github.com:acme/app-public")
    (tmp_path / "remote.git").mkdir()
    (tmp_path / "link.git").symlink_to(tmp_path / "remote.git")
    assert push_remote.same_place(str(tmp_path / "remote.git"), f"file://{tmp_path}/link.git")
    assert not push_remote.same_place(str(tmp_path / "remote.git"), str(tmp_path / "other.git"))


def test_a_port_is_part_of_the_place_and_a_local_path_is_kept_whole(
    repo: Repo, tmp_path: Path
) -> None:
    """`ssh://git@host:2222/a/b` and `ssh://git@host/a/b` were one place (ports were dropped),
    and so were the directories `/srv/p` and `/srv/p.git` (`.git` was dropped from paths too)."""
    assert not push_remote.same_place("ssh://git@host:2222/acme/app", "ssh://git@host/acme/app")
    assert not push_remote.same_place("https://host:8443/acme/app", "https://host/acme/app")
    assert not push_remote.same_place("https://host:22/acme/app", "https://host/acme/app")
    for default, written in (
        ("ssh://git@host:22/acme/app", "git@host:acme/app.git"),
        ("https://host:443/acme/app", "https://host/acme/app.git"),
        ("http://host:80/acme/app", "http://host/acme/app"),
        ("git://host:9418/acme/app", "git://host/acme/app.git"),
    ):
        assert push_remote.same_place(default, written), default
    for directory in ("p", "p.git"):
        (tmp_path / directory).mkdir()
    assert not push_remote.same_place(str(tmp_path / "p"), str(tmp_path / "p.git"))
    assert not push_remote.same_place(str(tmp_path / "p"), f"file://{tmp_path}/p.git")
    assert push_remote.same_place(str(tmp_path / "p.git"), f"file://{tmp_path}/p.git/")
    # Its callers: tracking refs stand for the place alone, and only it is remembered.
    repo.git("remote", "add", "origin", "ssh://git@host/acme/app")
    assert not push_remote.tracking_stands(
        repo.git_dir, "origin", "ssh://git@host:2222/acme/app", {}
    )
    assert push_remote.tracking_stands(repo.git_dir, "origin", "ssh://git@host:22/acme/app.git", {})
    repo.git("remote", "add", "local", str(tmp_path / "p"))
    assert not push_remote.tracking_stands(repo.git_dir, "local", str(tmp_path / "p.git"), {})
    kept = layout.SAME_PLACE.path(repo.git_dir).read_text()
    assert kept == "origin\tssh://git@host/acme/app\tssh://git@host:22/acme/app.git\n"


def test_tracking_refs_stand_only_for_where_they_were_fetched_and_as_it_says(
    repo: Repo, tmp_path: Path
) -> None:
    remote = origin(repo, tmp_path / "remote.git")
    repo.git("update-ref", "refs/remotes/origin/main", repo.head())
    held = {"refs/heads/main": repo.head()}
    assert push_remote.tracking_stands(repo.path, "origin", str(remote), held)
    assert not push_remote.tracking_stands(repo.path, "origin", str(tmp_path / "new.git"), held)
    moved = {"refs/heads/main": "1" * 40}  # the destination holds another commit there
    assert not push_remote.tracking_stands(repo.path, "origin", str(remote), moved)
    assert not layout.SAME_PLACE.path(repo.git_dir).exists()  # one spelling: nothing to keep


def test_one_place_under_two_spellings_is_remembered_once_for_the_hook(
    repo: Repo, tmp_path: Path
) -> None:
    remote = origin(repo, tmp_path / "remote.git")
    pushed_to = f"file://{remote}"
    held: dict[str, str] = {}  # no branch pushed: nothing to disagree with
    for _ in range(2):
        assert push_remote.tracking_stands(repo.git_dir, "origin", pushed_to, held)
    kept = layout.SAME_PLACE.path(repo.git_dir)
    assert kept.read_text() == f"origin\t{remote}\t{pushed_to}\n"
    assert kept.stat().st_mode & 0o777 == 0o600
    # Never two places, nor a line the hook would read as two.
    push_remote.remember_same_place(repo.git_dir, "origin", str(remote), str(tmp_path / "x.git"))
    push_remote.remember_same_place(repo.git_dir, "origin", str(remote), f"{pushed_to}\nx")
    assert kept.read_text().count("\n") == 1
    for number in range(push_remote.MOST_REMEMBERED + 5):
        push_remote.remember_same_place(repo.git_dir, f"r{number}", str(remote), pushed_to)
    lines = kept.read_text().splitlines()
    assert len(lines) == push_remote.MOST_REMEMBERED and lines[-1].startswith("r68\t")


DEFAULTS = (None, "nothing", "current", "matching", "simple", "upstream", "tracking")


@pytest.mark.parametrize(
    ("refspecs", "branch", "checked_out"),
    [
        # Mapped somewhere (the seven of before; the last names no destination).
        (["refs/heads/*:refs/heads/alice/*"], "main", "main"),
        (["+refs/heads/m*n:refs/heads/x/*/y"], "main", "main"),
        (["refs/heads/dev:refs/heads/d", "refs/heads/main:refs/heads/published"], "main", "main"),
        (["refs/heads/dev:refs/heads/d", "refs/heads/*:refs/heads/b/*"], "main", "main"),
        (["refs/heads/*:refs/for/*"], "main", "main"),
        (["HEAD:refs/for/main"], "main", "main"),
        (["refs/heads/main"], "main", "main"),
        # No destination: to its own name, where the refspec takes the branch at all.
        (["HEAD"], "main", "main"),
        (["+HEAD"], "main", "dev"),  # HEAD is dev: main is not sent
        (["@"], "main", "main"),
        (["refs/heads/*"], "main", "dev"),
        (["main"], "main", "dev"),
        (["heads/main"], "main", "main"),
        (["refs/heads/dev"], "main", "main"),
        ([":"], "main", "main"),  # the branches the remote holds
        (["+:"], "dev", "dev"),  # which dev is not
        (["main:published"], "main", "main"),
        (["refs/heads/f*:refs/heads/a/*", ":"], "main", "main"),
        (["refs/heads/*", "refs/heads/*:refs/heads/a/*"], "main", "main"),  # the first pattern
        (["HEAD", "refs/heads/*:refs/heads/a/*"], "main", "main"),  # two places
        (["^refs/heads/main", "HEAD"], "main", "main"),
    ],
)
def test_a_branch_is_sent_where_the_person_s_own_push_sends_it(
    repo: Repo, tmp_path: Path, refspecs: list[str], branch: str, checked_out: str
) -> None:
    """destination() is where `git push` (no argument: the person's) sends the branch, whatever
    push.default says: one branch there, else nowhere. A refspec naming no destination (`HEAD`,
    `refs/heads/*`, `:`) held it back for good, as `git push origin main` passes them by."""
    origin(repo, tmp_path / "remote.git")
    repo.git("push", "-q", "--no-verify", "origin", "main:trunk")
    repo.git("branch", "-q", "--set-upstream-to=origin/trunk", "main")  # upstream's own branch
    repo.git("branch", "-q", "dev")
    repo.git("switch", "-q", checked_out)
    for refspec in refspecs:
        repo.git("config", "--add", "remote.origin.push", refspec)
    for default in DEFAULTS:
        if default is not None:
            repo.git("config", "push.default", default)
        said = repo.run("push", "--dry-run", "--porcelain", "--no-verify").stdout
        pairs = [line.split("\t")[1].partition(":") for line in said.splitlines() if "\t" in line]
        # HEAD is the branch checked out, as porcelain names what it sends by a `HEAD` refspec.
        named = (
            ("HEAD", f"refs/heads/{branch}") if branch == checked_out else (f"refs/heads/{branch}",)
        )
        sent = [to for sender, _, to in pairs if sender in named]
        where = push_remote.destination(repo.git_dir, "origin", branch, checked_out)
        alone = sent[0] if len(sent) == 1 and sent[0].startswith("refs/heads/") else None
        assert where.ref == alone, (default, sent, where)
        assert all(ref in where.what for ref in sent) if alone is None else where.what == ""


def test_a_branch_a_negative_push_refspec_leaves_out_is_sent_nowhere() -> None:
    """Stricter than git 2.39, which sends main by the next refspec, though `^refs/heads/m*`
    takes it: the person's pushes mean to leave it out, and so does auto-push."""
    refspecs = ["^refs/heads/m*", "refs/heads/*:refs/heads/a/*"]
    kept = {"refs/heads/main", "refs/heads/dev"}
    assert push_remote.sent_to(refspecs, "refs/heads/main", head="main", refs=kept, held=True) == []
    assert push_remote.sent_to(refspecs, "refs/heads/dev", head="main", refs=kept, held=True) == [
        "refs/heads/a/dev"
    ]


@pytest.mark.parametrize(
    "remote", ["https://h.example/acme/app.git", "git@h.example:acme/app", "../app.git", "."]
)
def test_a_remote_given_as_a_url_has_no_tracking_ref(repo: Repo, remote: str) -> None:
    """Auto-push to a URL (landwatch.push.remote) looked for `refs/remotes/https://h.example/...`,
    no ref's name, which git refused at every push: git keeps no tracking ref for a URL."""
    assert push_remote.tracking_ref(remote, "refs/heads/main") is None


@pytest.mark.parametrize("remote", ["origin", "corp/public", "-x"])
def test_a_remote_s_tracking_ref_is_a_ref_of_its_name(repo: Repo, remote: str) -> None:
    tracking = push_remote.tracking_ref(remote, "refs/heads/main")
    assert tracking == f"refs/remotes/{remote}/main"
    assert repo.run("check-ref-format", tracking).returncode == 0


def test_a_url_is_pushed_to_where_its_rewrites_send_it(repo: Repo) -> None:
    """push_urls of a URL: git's rewriting for a push, the longest pushInsteadOf it starts
    with, else the longest insteadOf, else the URL itself."""
    repo.git("config", "url./mirror/.pushInsteadOf", "/srv/")
    repo.git("config", "url./mirror/team/.pushInsteadOf", "/srv/team/")
    repo.git("config", "url./fetched/.insteadOf", "/other/")
    assert push_remote.push_urls(repo.git_dir, "/srv/team/app.git") == ["/mirror/team/app.git"]
    assert push_remote.push_urls(repo.git_dir, "/srv/solo.git") == ["/mirror/solo.git"]
    assert push_remote.push_urls(repo.git_dir, "/other/app.git") == ["/fetched/app.git"]
    assert push_remote.push_urls(repo.git_dir, "/elsewhere/app.git") == ["/elsewhere/app.git"]


def test_of_two_rewrites_as_long_the_base_named_first_wins_as_in_git(repo: Repo) -> None:
    """A round-2 audit: git keeps its rewrites by the base, in the order the configuration
    first names each; the first line naming the prefix won here instead."""
    repo.git("config", "--add", "url./A/.pushInsteadOf", "/never/")
    repo.git("config", "--add", "url./B/.pushInsteadOf", "/srv/x")
    repo.git("config", "--add", "url./A/.pushInsteadOf", "/srv/x")
    assert push_remote.push_urls(repo.git_dir, "/srv/x.git") == ["/A/.git"]
