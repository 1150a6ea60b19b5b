"""The push gate given what git may write on pre-push's stdin (a source expression holding spaces,
ref names that are not UTF-8, or hold a line separator that is not a newline) and what may fail
under it (a full disk, one object that cannot be read): every line judged, and a refusal that the
kept reviews decided stands whatever fails beside it."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from landwatch.commands.pre_push import REFUSED, pre_push
from support.daemon import run_reviewer
from support.kinds import FakeClock, origin, remote_head
from support.queue import fill, git_env, tmpfs
from support.repos import Repo, installed
from support.tokens import GITHUB_TOKEN, github_token

ZERO = "0" * 40


@pytest.fixture
def remote(repo: Repo, tmp_path: Path) -> Path:
    return origin(repo, tmp_path / "remote.git")


def reviewed() -> None:
    done = run_reviewer("--once")
    assert done.returncode == 0, done.stderr


def remote_has(remote: Path, ref: str) -> bool:
    listed = subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "-q", "--verify", ref])
    return listed.returncode == 0


@pytest.mark.parametrize(
    ("message", "source"),
    [
        ("add settings", "HEAD^{/add settings}"),
        # Its second word all zeros: the quick path took the line for a deletion and let it go.
        ("set 0 retries and the token", "HEAD^{/set 0 retries}"),
        # A notes ref's commit (any commit may be one), sent to a branch: not notes.
        ("keep refs/notes/ aside, add settings", "refs/notes/wip^{/ refs/notes/}"),
    ],
    ids=["python", "quick-path", "notes-source"],
)
def test_a_source_expression_holding_spaces_is_judged(
    repo: Repo, remote: Path, message: str, source: str
) -> None:
    """Attack 43: git writes the source of a refspec as the person wrote it, so its line had five
    fields or more; the gate read only lines of four, judged nothing, and the push went."""
    before = remote_head(remote)
    leaked = repo.land(message, {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    repo.git("update-ref", "refs/notes/wip", leaked)
    reviewed()
    result = repo.run("push", "origin", f"{source}:refs/heads/main")
    assert result.returncode != 0, result.stderr
    assert remote_head(remote) == before
    assert f"{leaked[:10]} settings.py:1  S002" in result.stderr


def test_a_line_git_never_writes_leaves_the_gate_undecided_and_says_so(
    repo: Repo, remote: Path
) -> None:
    err = io.StringIO()
    lines = f"refs/heads/main {repo.head()}\n"  # not four fields: not taken for "nothing sent"
    assert pre_push(repo.path, "origin", str(remote), lines, clock=FakeClock(), err=err) == 0
    [said] = err.getvalue().splitlines()
    assert said.startswith("landwatch: the push gate could not decide (")
    assert "refs/heads/main" in said and said.endswith("; the push goes on")


@pytest.fixture(scope="session")
def desktop_locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """en_US.UTF-8, the common desktop locale, built here (localedef): Python reads stdin in it
    strictly, where C.UTF-8, which it coerces to, escapes what is not UTF-8."""
    where = tmp_path_factory.mktemp("locale")
    built = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "UTF-8", str(where / "en_US.UTF-8")],
        capture_output=True,
        text=True,
    )
    if not (where / "en_US.UTF-8").is_dir():
        pytest.skip(f"cannot build en_US.UTF-8 here (localedef): {built.stderr.strip()}")
    return {"LOCPATH": str(where), "LANG": "en_US.UTF-8", "LC_ALL": "en_US.UTF-8"}


@pytest.mark.parametrize(
    "branch",
    ["caf\udce9", "a\u2028b", "x\x85y"],
    ids=["latin-1", "line-separator", "next-line"],
)
def test_a_branch_whose_name_is_not_utf_8_or_holds_a_line_separator_is_judged(
    repo: Repo, remote: Path, desktop_locale: dict[str, str], branch: str
) -> None:
    """Attack 44: git allows any byte past ASCII in a ref name. The gate read its stdin strictly
    (a traceback, then "could not decide"), and split it at U+2028 and U+0085 as at a newline
    (nothing read): the push went, and with `git push --all` every branch with it."""

    def push(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["git", "push", "origin", *args],
            cwd=repo.path,
            env=git_env(**desktop_locale),
            capture_output=True,
        )

    repo.git("switch", "-q", "-c", branch)
    repo.land("add settings", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    reviewed()
    result = push(branch)
    assert result.returncode != 0 and b"push refused: 1 finding" in result.stderr, result.stderr
    assert b"Traceback" not in result.stderr and not remote_has(remote, f"refs/heads/{branch}")
    repo.git("switch", "-q", "main")
    before = remote_head(remote)
    repo.land("add more settings", {"more.py": f'token = "{github_token("more")}"\n'})
    reviewed()
    result = push("--all")
    assert result.returncode != 0 and b"push refused: 2 findings" in result.stderr, result.stderr
    assert remote_head(remote) == before and not remote_has(remote, f"refs/heads/{branch}")


def loose_objects(repo: Repo) -> int:
    counted = repo.git("count-objects", "-v").splitlines()
    return int(next(line for line in counted if line.startswith("count: ")).split()[1])


def test_a_blob_a_tag_pushes_is_scanned_without_writing_an_object(repo: Repo, remote: Path) -> None:
    """The root commit a blob is read as (in a tree holding it alone) is made in memory: a full
    disk, or an object store that cannot be written, stops no scan."""
    blob = repo.run("hash-object", "-w", "--stdin", stdin=f'key = "{GITHUB_TOKEN}"\n').stdout
    repo.git("tag", "leak", blob.strip())
    before = loose_objects(repo)
    result = repo.run("push", "origin", "refs/tags/leak")
    assert result.returncode != 0 and "(blob):1  S002" in result.stderr, result.stderr
    assert loose_objects(repo) == before


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("refs/heads/main~1:settings.py", "blob"),
        ("refs/heads/main~1^{tree}", "tree"),
        # git describe's form: no ref of that name, so git reads the id after `-g`, a blob's.
        ("refs/heads/x-g{blob}", "blob"),
    ],
)
def test_a_blob_or_tree_named_from_a_branch_s_name_is_judged(
    repo: Repo, remote: Path, source: str, what: str
) -> None:
    """Attack 93: the hook's quick path took any source written `refs/heads/...` for a branch,
    whose tip is a commit; `refs/heads/main~1:settings.py` names a blob, which `git rev-list`
    walks to nothing, and the blob holding a token the review had found went out unjudged. The
    first fix told a branch by the source's spelling, which `refs/heads/x-g<blob id>` passed
    (an audit): every oid sent has its type asked."""
    repo.land("settings", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    repo.land("take it out", {"settings.py": None})
    reviewed()
    blob = repo.git("rev-parse", "main~1:settings.py")[:12]
    result = repo.run("push", "origin", f"{source.replace('{blob}', blob)}:refs/tags/leak")
    assert result.returncode != 0 and f"1 finding in 1 {what} the remote lacks" in result.stderr
    assert not remote_has(remote, "refs/tags/leak")


def test_on_a_full_disk_a_refusal_of_a_kept_review_stands_and_a_blob_is_still_read(
    tmp_path: Path,
) -> None:
    """Attack 45: on a full disk, a push sending a blob (a tag naming a public key, as git.git's
    junio-gpg-pub) made the scan write its root commit, which failed: the whole gate could not
    decide, and a commit whose kept review refuses went out with the blob."""
    disk = tmp_path / "disk"
    with tmpfs(disk, "4m"):
        repo = installed(disk / "repo")
        remote = origin(repo, tmp_path / "remote.git")
        before = remote_head(remote)
        repo.land("add settings", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
        public = repo.run("hash-object", "-w", "--stdin", stdin="a public key\n").stdout
        repo.git("tag", "pubkey", public.strip())
        reviewed()
        filler = fill(disk)
        try:
            result = repo.run("push", "origin", "main", "--tags")
        finally:
            filler.unlink()
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    said = result.stderr
    assert "push refused: 1 finding in 1 commit" in said and "could not decide" not in said
    assert "unchecked" not in said  # the blob was read too
    assert not remote_has(remote, "refs/tags/pubkey")


def test_what_cannot_be_read_goes_unchecked_alone_and_a_refusal_stands(
    repo: Repo, remote: Path
) -> None:
    """A commit naming a blob this clone lacks (a partial clone's, a corrupt store) failed its
    scan, and a tag's of it: the gate could not decide, and what the kept reviews refused, and
    what the scan would have found past it, went out. What cannot be read is said and passed."""
    before = remote_head(remote)
    leaked = repo.land("add settings", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    reviewed()
    # Older than the rest, so scanned first: its configuration's blob is nowhere.
    missing = "1" * 40
    tree = repo.run("mktree", "--missing", stdin=f"100644 blob {missing}\t.landwatch.toml\n")
    old = {"GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z", "GIT_AUTHOR_DATE": "2001-01-01T00:00Z"}
    broken = repo.git("commit-tree", "-m", "unreadable", tree.stdout.strip(), **old)
    repo.git("tag", "-a", "-m", "a release", "v1", broken)
    tag = repo.git("rev-parse", "v1")
    repo.git("switch", "-q", "-c", "other", before)
    other = repo.land("add keys", {"keys.py": f'token = "{github_token("other")}"\n'}, hooks=False)
    lines = (
        f"refs/heads/main {leaked} refs/heads/main {before}\n"
        f"refs/heads/other {other} refs/heads/other {ZERO}\n"
        f"refs/tags/v1 {tag} refs/tags/v1 {ZERO}\n"
    )
    err = io.StringIO()
    code = pre_push(repo.path, "origin", str(remote), lines, clock=FakeClock(), err=err)
    said = err.getvalue()
    assert code == REFUSED, said
    assert f"{leaked[:10]} settings.py:1  S002" in said and f"{other[:10]} keys.py:1  S002" in said
    [unread] = [line for line in said.splitlines() if "could not be read" in line]
    assert unread.startswith(f"landwatch: commit {broken[:12]} could not be read (KeyError: ")
    assert unread.endswith(" and goes unchecked (and 1 more object)"), unread
    assert "could not decide" not in said
