"""What landwatch's hooks are (hooks): where git runs a repository's hooks (core.hooksPath, linked
worktrees) and where none can go, the hook's text for each event (its header read back by sh
exactly, the LEFTHOOK mark and husky 4's only where asked), whose a hook is by what each tool
writes, and the cached boot time dropped once the clock stepped."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from landwatch import hooks, layout
from landwatch.git import GitError
from support import GIT_LFS, git_lfs_hook
from support.repos import Repo
from support.timing import ends_by_itself


def test_only_a_hook_beside_lefthook_says_lefthook_may_replace_it(tmp_path: Path) -> None:
    # lefthook overwrites, without moving it aside, any hook with LEFTHOOK in it.
    repo = Repo(tmp_path / "repo")
    repo.install()
    for event in hooks.HOOK_EVENTS:
        assert "LEFTHOOK" not in (repo.git_dir / "hooks" / event).read_text()
    entry, host, where = Path("/entry"), "host", repo.git_dir
    assert "LEFTHOOK" in hooks.render_hook("post-commit", entry, host, where, lefthook=True)


def husky_4_takes(hook: str) -> bool:
    """Whether husky 4's install takes this hook for its own and writes over it (its isHusky)."""
    return "# husky" in hook or "#husky" in hook


def test_only_where_husky_4_would_write_its_own_hook_does_ours_say_its_mark(
    tmp_path: Path,
) -> None:
    """husky 4 writes over any hook holding its mark, and skips any other: ours says it where the
    slot was empty or held husky 4's own hook (kept), never where it runs a hook of yours, which
    would go unrun once husky 4 wrote over ours (an audit)."""
    repo = Repo(tmp_path / "repo")
    kept = {
        "post-commit": "#!/bin/sh\necho mine\n",
        "post-merge": '#!/bin/sh\n# husky\n\n. "$(dirname "$0")/husky.sh"\n',
    }
    for event, text in kept.items():
        (repo.git_dir / "hooks" / event).write_text(text)
        (repo.git_dir / "hooks" / event).chmod(0o755)
    repo.install()
    ours = {e: (repo.git_dir / "hooks" / e).read_text() for e in hooks.INSTALLED_EVENTS}
    assert not husky_4_takes(ours["post-commit"])  # yours kept: husky 4 skips ours as it did yours
    assert husky_4_takes(ours["post-merge"])  # husky 4's kept: it writes over ours, doctor mends
    assert husky_4_takes(ours["post-rewrite"]) and husky_4_takes(ours["pre-push"])  # empty slots
    for event in hooks.INSTALLED_EVENTS:
        assert not husky_4_takes(hooks.hook_body(event))


def test_the_repository_s_hooks_are_where_git_runs_them(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    found = hooks.find_repository(repo.path / ".")
    assert found.hooks_dir == found.default_hooks_dir == repo.git_dir / "hooks"
    assert (found.git_dir, found.common_dir, found.top) == (repo.git_dir, repo.git_dir, repo.path)
    repo.git("config", "core.hooksPath", "tools/hooks")  # relative: to the top of the worktree
    (repo.path / "sub").mkdir()
    assert hooks.find_repository(repo.path / "sub").hooks_dir == repo.path / "tools" / "hooks"
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    linked = hooks.find_repository(tmp_path / "linked")
    assert linked.git_dir == repo.git_dir / "worktrees" / "linked"
    assert (linked.common_dir, linked.default_hooks_dir) == (repo.git_dir, repo.git_dir / "hooks")


def test_where_no_hook_can_go_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for where, said in ((tmp_path / "plain", "is not in a git repository"), (bare, "bare")):
        with pytest.raises(hooks.RepositoryError, match=said) as refused:
            hooks.find_repository(where)
        assert "\n" not in str(refused.value)


def test_a_git_dir_named_is_the_one_git_must_find(tmp_path: Path) -> None:
    """A git dir git cannot use (its HEAD garbage) is passed over for the repository above: a
    registered repository's worktree names its git dir, and git finding another is refused."""
    outer = Repo(tmp_path / "outer")
    inner = Repo(outer.path / "inner")
    git_dir = inner.git_dir
    assert hooks.find_repository(inner.path, git_dir=git_dir).git_dir == git_dir
    (git_dir / "HEAD").write_text("garbage\n")
    assert hooks.find_repository(inner.path).git_dir == outer.git_dir  # what git does
    with pytest.raises(hooks.RepositoryError, match=f"finds {outer.git_dir} instead"):
        hooks.find_repository(inner.path, git_dir=git_dir)


def test_inside_a_git_dir_is_no_worktree_to_install_in(repo: Repo) -> None:
    # Not bare, yet no worktree either: git answers the first questions, then refuses.
    with pytest.raises(GitError, match="work tree") as refused:
        hooks.find_repository(repo.git_dir)
    assert "\n" not in str(refused.value)


def test_the_hook_s_header_is_read_back_by_sh_exactly(tmp_path: Path) -> None:
    entry = tmp_path / 'it\'s a "path" with $HOME and `spaces`' / "landwatch"
    text = hooks.render_hook("post-merge", entry, "a host; rm -rf /", tmp_path / "r e p o")
    header = text.split("\n\n", 1)[0]  # the assignments, before the hook's body
    shown = subprocess.run(
        [
            "sh",
            "-c",
            header + '\nprintf "%s\\n" "$LANDWATCH_EVENT" "$LANDWATCH_ENTRY" '
            '"$LANDWATCH_HOST" "$LANDWATCH_REPOSITORY" "$LANDWATCH_CHAIN"',
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.splitlines() == [
        "post-merge",
        str(entry),
        "a host; rm -rf /",
        str(tmp_path / "r e p o"),
        "exec",
    ]
    assert text.splitlines()[1].startswith(f"{hooks.MARKER} {hooks.HOOK_FORMAT}: ")


def test_a_shared_directory_s_header_names_each_repository_a_line_each(tmp_path: Path) -> None:
    served = [tmp_path / "it's b", tmp_path / "a $x"]
    text = hooks.render_hook("post-commit", Path("/e"), "h", served[0], also=served[1:])
    header = text.split("\n\n", 1)[0]
    shown = subprocess.run(
        ["sh", "-c", header + '\nprintf "%s" "$LANDWATCH_REPOSITORY"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split("\n") == sorted(str(path) for path in served)
    assert "# Shared: LANDWATCH_REPOSITORY names each repository" in header
    alone = hooks.render_hook("post-commit", Path("/e"), "h", served[0], also=[served[0]])
    assert "Shared" not in alone  # itself alone: the header a repository's own hooks have
    assert f"LANDWATCH_REPOSITORY={shlex.quote(str(served[0]))}\n" in alone


def test_whose_a_hook_is_by_what_each_tool_writes(tmp_path: Path) -> None:
    written = {
        "landwatch": hooks.render_hook("post-commit", Path("/e"), "h", tmp_path),
        "pre-commit": "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n",
        "prek": "#!/bin/sh\n# File generated by prek: https://github.com/j178/prek\n",
        "lefthook": "#!/bin/sh\ncall_lefthook run post-commit\n",
        "husky": '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n',
        "git-lfs": git_lfs_hook("post-commit"),
        None: "#!/bin/sh\necho a hook of my own\n",
    }
    for owner, text in written.items():
        path = tmp_path / f"{owner}" / "post-commit"
        path.parent.mkdir()
        path.write_text(text)
        assert hooks.whose(path) == owner
        assert hooks.is_ours(path) == (owner == "landwatch")
    assert hooks.whose(tmp_path / "none") is None and not hooks.is_ours(tmp_path / "none")


def test_a_hook_that_runs_a_file_named_h_is_not_husky_s_shim(tmp_path: Path) -> None:
    """An audit: husky was told by `/h"` anywhere in a hook, so a hook of one's own running
    `tools/h` was taken for husky's shim, kept aside and never run (its push check skipped).
    husky's shims source `h` beside them: 9.1's and 9.0's spelling."""
    shims = ('#!/usr/bin/env sh\n. "$(dirname "$0")/h"', '#!/usr/bin/env sh\n. "${0%/*}/h"')
    for number, text in enumerate(shims):
        (tmp_path / f"shim{number}").write_text(text)
        assert hooks.whose(tmp_path / f"shim{number}") == "husky"
    (tmp_path / "mine").write_text('#!/bin/sh\nexec "$(git rev-parse --show-toplevel)/tools/h"\n')
    assert hooks.whose(tmp_path / "mine") is None


# Hooks that name git-lfs, each at an event, and whether they are git-lfs's own.
NAMING_GIT_LFS = {
    "its own": ("post-merge", git_lfs_hook("post-merge"), True),
    "pasted from `git lfs update --manual`, indented": (
        "post-commit",
        "\n".join(f"\t{line}" for line in git_lfs_hook("post-commit").split("\n")),
        True,
    ),
    "an older git-lfs's pre-push": ("pre-push", '#!/bin/sh\ngit lfs pre-push "$@"\n', True),
    "its pre-push at post-commit": ("post-commit", git_lfs_hook("pre-push"), False),
    "one's own, running git-lfs's after its own check": (
        "pre-push",
        "#!/bin/sh\n# our team's push checks\n"
        "if git log -1 --format=%s | grep -q WIP; then echo 'no WIP' >&2; exit 1; fi\n"
        'if command -v git-lfs >/dev/null 2>&1; then git lfs pre-push "$@"; fi\n',
        False,
    ),
    "its own, a line added": (
        "post-checkout",
        git_lfs_hook("post-checkout") + "echo checked out\n",
        False,
    ),
}


@pytest.mark.parametrize("what", NAMING_GIT_LFS)
def test_a_hook_is_git_lfs_s_as_git_lfs_itself_judges(tmp_path: Path, what: str) -> None:
    """A hook is git-lfs's when git-lfs takes it for its own (its install does not say "Hook
    already exists", its uninstall removes it): not a person's hook that runs `git lfs pre-push
    "$@"` after its own checks, as git-lfs tells people to write, which an audit saw removed."""
    event, text, its_own = NAMING_GIT_LFS[what]
    repo = Repo(tmp_path / "repo", initial=False)
    hook = repo.git_dir / "hooks" / event
    hook.write_text(text)
    assert (hooks.whose(hook) == "git-lfs") is its_own
    if not (GIT_LFS / "git-lfs").exists():
        pytest.skip(f"git-lfs was not unpacked into {GIT_LFS}: not asked what it says")
    path = {"PATH": f"{GIT_LFS}{os.pathsep}{os.environ['PATH']}"}
    installed = repo.run("lfs", "install", "--local", **path)
    assert (f"Hook already exists: {event}" not in installed.stderr) is its_own
    repo.run("lfs", "uninstall", "--local", **path)  # removes only what it takes for its own
    assert hook.exists() is not its_own


def test_a_fifo_at_a_hook_is_no_one_s_and_is_not_waited_on(tmp_path: Path) -> None:
    # An audit: `landwatch install` and `doctor` waited forever on a FIFO a copied repository
    # brought at .git/hooks/post-commit, opened to read before its type was looked at.
    os.mkfifo(tmp_path / "post-commit")
    assert ends_by_itself(lambda: hooks.whose(tmp_path / "post-commit")) is None
    assert ends_by_itself(lambda: hooks.is_ours(tmp_path / "post-commit")) is False
    # A hook git runs through a link is that hook (shared hooks are linked into .git/hooks).
    ours = tmp_path / "shared" / "post-commit"
    ours.parent.mkdir()
    ours.write_text(hooks.render_hook("post-commit", Path("/e"), "h", tmp_path))
    (tmp_path / "linked").symlink_to(ours)
    assert hooks.whose(tmp_path / "linked") == "landwatch"


def test_a_cached_boot_time_the_clock_stepped_away_from_is_dropped(git_dir: Path) -> None:
    cache = layout.BOOT_TIME.path(git_dir)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("boot-id 1700000000\n")
    assert not hooks.renew_clock_cache(git_dir, None)  # nothing known of the boot: kept
    assert not hooks.renew_clock_cache(git_dir, 1_700_000_001)  # the kernel rounds: kept
    assert cache.exists()
    assert hooks.renew_clock_cache(git_dir, 1_700_000_005)
    assert not cache.exists()
    assert not hooks.renew_clock_cache(git_dir, 1_700_000_005)  # nothing left to drop
    cache.write_text("garbage\n")
    assert not hooks.renew_clock_cache(git_dir, 1_700_000_005) and cache.exists()


def test_git_lfs_s_own_hooks_are_read_from_its_manual_instructions() -> None:
    manual = (
        "Install Git LFS manually.\n"
        "Add the following to '.git/hooks/pre-push':\n\n"
        '\t#!/bin/sh\n\tgit lfs pre-push "$@"\n\n'
        "Add the following to '.git/hooks/post-commit':\n\n"
        '\t#!/bin/sh\n\tgit lfs post-commit "$@"\n'
    )
    assert hooks.lfs_hooks(manual) == {
        "pre-push": '#!/bin/sh\ngit lfs pre-push "$@"\n',
        "post-commit": '#!/bin/sh\ngit lfs post-commit "$@"\n',
    }
