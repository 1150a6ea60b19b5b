"""A remote hook's rev held to the commit trusted (wall.project_hooks.revs): resolved with `git
ls-remote` (a tag's commit, an annotated one's too, a branch's; a commit id as it is; what cannot be
resolved said why), and written over the name in a configuration, YAML or prek's TOML, the rest of
the file kept; a file whose revs cannot be told apart is refused, not guessed; a configuration
linked out of the checkout is not opened."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from landwatch.review.project_hooks.config import Family, ManagerConfig, Remote
from landwatch.wall.project_hooks.checkout import Checkout
from landwatch.wall.project_hooks.revs import (
    RevError,
    _toml,
    _yaml,
    local_path,
    pin_in_checkout,
    resolve,
)
from support.queue import git
from support.repos import Repo
from support.sandbox import account, far_away, needs_accounts
from support.timing import ends_by_itself

COMMIT = "a" * 40
OTHER = "b" * 40


def hooks_repository(tmp_path: Path) -> tuple[Repo, str]:
    repo = Repo(tmp_path / "hooks")
    repo.land("v1", {"say.sh": "echo one\n"}, hooks=False)
    repo.git("tag", "v1")
    repo.git("tag", "-a", "-m", "annotated", "v1-annotated")
    return repo, repo.head()


def test_a_tag_a_branch_and_a_commit_id_resolve_to_their_commit(tmp_path: Path) -> None:
    repo, first = hooks_repository(tmp_path)
    url = f"file://{repo.path}"
    assert resolve(Remote(url, "v1")) == (first, "a tag: held to the commit it names now")
    assert resolve(Remote(url, "v1-annotated"))[0] == first  # the commit, not the tag object
    branch = repo.git("symbolic-ref", "--short", "HEAD")
    assert resolve(Remote(url, branch)) == (first, "a branch: held to its commit now")
    assert resolve(Remote("https://nowhere.invalid/x", COMMIT)) == (COMMIT, "a commit id")


def test_what_cannot_be_resolved_says_why(tmp_path: Path) -> None:
    repo, _ = hooks_repository(tmp_path)
    commit, why = resolve(Remote(f"file://{repo.path}", "v9"))
    assert commit is None and why == f"v9 is not a tag or branch of file://{repo.path}"
    commit, why = resolve(Remote(f"file://{tmp_path}/gone", "v1"))
    assert commit is None and "does not appear to be a git repository" in why
    assert resolve(Remote("--upload-pack=touch x", "v1")) == (None, "no rev to resolve")


def test_revs_are_written_where_they_stand() -> None:
    text = (
        "# kept\nrepos:\n- repo: https://x/y  # a comment\n  rev: v1.0   # the tag\n"
        "  hooks: [{id: a}]\n- repo: local\n  hooks: []\n- repo: https://z/\u00e9\n  rev: 'v2'\n"
        "- repo: https://untrusted/\n  rev: v3\n"
    )
    pinned = _yaml(text, {("https://x/y", "v1.0"): COMMIT, ("https://z/\u00e9", "v2"): OTHER})
    assert pinned == text.replace("v1.0", f'"{COMMIT}"').replace("'v2'", f'"{OTHER}"')


def test_a_rev_a_merge_key_gives_is_refused_never_left_as_its_name() -> None:
    # pre-commit reads `<<: *anchor` as landwatch's reading does, so a rev there was trusted as
    # a commit, left as its name (only scalars of the entry itself are written), and not
    # checked: a tag moved after trust ran new code.
    resolved = {("https://x/y", "v1"): COMMIT}
    anchored = "remote: &hooks\n  repo: https://x/y\n  rev: v1\n"
    for entry in ("- <<: *hooks\n", "- <<: *hooks\n  rev: v1\n"):
        text = f"{anchored}repos:\n{entry}  hooks: [{{id: a}}]\n"
        with pytest.raises(RevError, match=r"the rev of https://x/y \(v1\) could not be"):
            _yaml(text, resolved)
    # An alias of the rev's scalar: its anchor is written over, and what is read back is refused.
    aliased = "v: &v v1\nrepos:\n- repo: https://x/y\n  rev: *v\n  hooks: [{id: a}]\n"
    with pytest.raises(RevError, match="cannot read the configuration to pin its revs"):
        _yaml(aliased, resolved)


def test_prek_s_toml_revs_are_written_in_order_and_checked() -> None:
    text = (
        '[[repos]]\nrepo = "https://x/y"\nrev = "v1.0"\nhooks = [{id = "a"}]\n'
        '[[repos]]\nrepo = "local"\nhooks = []\n'
        "[[repos]]\nrepo = 'https://z/'\nrev = 'v1.0'\nhooks = []\n"
    )
    pinned = _toml(text, {("https://x/y", "v1.0"): COMMIT, ("https://z/", "v1.0"): OTHER})
    assert f'rev = "{COMMIT}"' in pinned and f'rev = "{OTHER}"' in pinned
    # A rev written where the repositories' order cannot tell whose it is: refused.
    tricky = text.replace("hooks = []\n", 'hooks = []\nnote = """rev = "v0" """\n', 1)
    with pytest.raises(RevError):
        _toml(tricky, {("https://x/y", "v1.0"): COMMIT})


def test_where_the_build_reads_a_hook_repository_on_this_machine(tmp_path: Path) -> None:
    assert local_path(".", tmp_path) == tmp_path
    with far_away("hooks") as far:
        Repo(far / "hooks")
        git("init", "-q", "--bare", str(far / "bare.git"), cwd=far)
        assert local_path(f"file://{far}/hooks", tmp_path) == far / "hooks"
        assert local_path(f"{far}/hooks", tmp_path) == far / "hooks"
        assert local_path(f"{far}/bare.git", tmp_path) == far / "bare.git"
    assert local_path("https://x/y", tmp_path) is None
    assert local_path("../hooks", tmp_path) is None


def refused(url: str, root: Path) -> str:
    """Why `url` is not shown to the build (the run is refused in that line)."""
    with pytest.raises(RevError) as raised:
        local_path(url, root)
    said = str(raised.value)
    assert said.startswith("the hook repository "), said
    return said.partition(" is not shown to the environment build: ")[2]


def test_a_hook_repository_in_the_person_s_home_is_never_in_sight(tmp_path: Path) -> None:
    """Their other repositories stay out of the wall's sight, however the path is written."""
    home = Path.home()
    Repo(home / "work" / "other")
    in_home = f"it is in {os.path.realpath(home)}, yours"
    assert refused(str(home / "work" / "other"), tmp_path) == in_home
    assert refused(f"file://{home}/work/other", tmp_path) == in_home
    assert refused("/srv/../" + str(home).lstrip("/") + "/work/other", tmp_path) == in_home
    assert refused("/", tmp_path).startswith("it holds ")  # the home, and the rest
    link = tmp_path / "hooks-link"
    link.symlink_to(home / "work" / "other")
    assert refused(str(link), tmp_path) == in_home
    assert local_path(".", tmp_path) == tmp_path  # the checkout itself


@needs_accounts
def test_a_hook_repository_in_another_user_s_home_is_never_in_sight(tmp_path: Path) -> None:
    """On a shared machine the networked build was shown other people's repositories: only the
    person's own home was refused. Any person's home is refused, what holds one, and /home."""
    with (
        far_away("homes") as far,
        account(far / "bob") as bob,
        account(far / "service", system=True) as service,
    ):
        Repo(bob / "hooks")
        theirs = f"it is in {bob}, another user's home"
        assert refused(str(bob / "hooks"), tmp_path) == theirs
        assert refused(f"file://{bob}/hooks", tmp_path) == theirs
        (tmp_path / "hooks-link").symlink_to(bob / "hooks")
        assert refused(str(tmp_path / "hooks-link"), tmp_path) == theirs
        Repo(bob)
        assert refused(str(bob), tmp_path) == f"it is {bob}, another user's home"
        Repo.existing(far).git("init", "-q")
        assert refused(str(far), tmp_path) == f"it holds {bob}, another user's home"
        # A service's home is no person's: its repository may be shown, as one in /srv.
        Repo(service / "hooks")
        assert local_path(str(service / "hooks"), tmp_path) == service / "hooks"
    # Where homes are made, whoever has one there now; macOS's too.
    assert refused("/home", tmp_path) == "it is /home, where the users' homes are"
    assert refused("/Users", tmp_path) == "it is /Users, where the users' homes are"


def test_a_hook_repository_where_every_user_writes_or_of_the_machine_is_never_in_sight(
    tmp_path: Path,
) -> None:
    # The networked build read what a configuration named outside the home: a Kerberos ticket
    # in /tmp or /var/tmp, /run/user's secrets, the host's /proc (every command line).
    tickets = Repo(tmp_path / "krb5")  # a git repository, in /tmp all the same
    assert refused(str(tickets.path), tmp_path).endswith(", never in the wall's sight")
    for place in ("/var/tmp", "/proc", "/sys", "/dev/shm", "/run/user"):
        assert refused(place, tmp_path).endswith(", never in the wall's sight"), place
    assert refused("/var", tmp_path).startswith("it holds /var/tmp")
    with far_away("cwd") as far, contextlib.chdir(Repo(far / "cwd").path):
        # It leads to a repository that could be shown, here; to the build's own directory there.
        assert refused("/proc/self/cwd", tmp_path) == "it is in /proc, never in the wall's sight"
    with far_away("plain") as far:  # nothing the person's, nothing the machine's: no repository
        assert refused(str(far), tmp_path) == "it is not a git repository"
        (far / ".git").symlink_to(tickets.git_dir)
        assert refused(str(far), tmp_path) == "it is not a git repository"


def test_a_configuration_linked_out_of_the_checkout_is_not_opened(tmp_path: Path) -> None:
    # A committed link is checked out as a link, and the revs are written outside the wall: one
    # to a FIFO (or /dev/zero, or a file of the person's) held the worker, or wrote there.
    root = tmp_path / "checkout"
    (root / "config").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "fifo")  # nobody ever writes to it
    text = "repos:\n- repo: https://x/y\n  rev: v1\n  hooks: [{id: a}]\n"
    (outside / "theirs.yaml").write_text(text)
    (root / "config" / "hooks.yaml").write_text(text)
    declared = ManagerConfig(Family.PRE_COMMIT, ".pre-commit-config.yaml")
    resolved = {("https://x/y", "v1"): COMMIT}
    for target in (outside / "fifo", outside / "theirs.yaml"):
        (root / ".pre-commit-config.yaml").unlink(missing_ok=True)
        (root / ".pre-commit-config.yaml").symlink_to(target)
        written = ends_by_itself(lambda: pin_in_checkout(Checkout(root), declared, resolved))
        assert written == frozenset(), target
    assert (outside / "theirs.yaml").read_text() == text
    # One to a file of the checkout is written there, as the manager reads it.
    (root / ".pre-commit-config.yaml").unlink()
    (root / ".pre-commit-config.yaml").symlink_to("config/hooks.yaml")
    assert pin_in_checkout(Checkout(root), declared, resolved) == {".pre-commit-config.yaml"}
    assert f'rev: "{COMMIT}"' in (root / "config" / "hooks.yaml").read_text()
