"""Every way a commit lands records exactly the right work items (real git, git 2.39 events)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from landwatch import work_item
from landwatch.work_item import Enqueued, WorkItem, WorkKind
from support.repos import Repo, installed, sharing_hooks


def test_commit_records_head(repo: Repo) -> None:
    oid = repo.land("one")
    assert repo.pending() == [(oid, None)]
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    assert claimed.item == WorkItem(WorkKind.REVIEW, oid, repo.git_dir, repo.path.resolve())


def test_cherry_pick_and_revert_record_their_commits(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "side")
    picked = repo.land("on side", "side.txt")
    repo.git("switch", "-q", "main")
    repo.land("main moves on", "main.txt")
    repo.clear()
    repo.git("cherry-pick", picked)
    cherry = repo.head()
    repo.git("revert", "--no-edit", "HEAD")
    assert repo.pending() == [(cherry, None), (repo.head(), None)]
    assert cherry != picked


def test_merge_concluded_by_commit_is_recorded_by_post_commit(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "side")
    repo.land("side change", {"file": "side\n"})
    repo.git("switch", "-q", "main")
    repo.land("main change", {"file": "main\n"})
    repo.clear()
    assert repo.run("merge", "side").returncode != 0  # a conflict: no post-merge
    (repo.path / "file").write_text("resolved\n")
    repo.git("add", "file")
    repo.git("commit", "-q", "--no-edit")
    assert repo.pending() == [(repo.head(), None)]


def test_merge_records_the_new_head_with_its_base(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "side")
    repo.land("a", "a")
    repo.land("b", "b")
    repo.git("switch", "-q", "main")
    repo.land("c", "c")
    before = repo.head()
    repo.clear()
    repo.git("merge", "-q", "--no-edit", "side")
    assert repo.pending() == [(repo.head(), before)]


def test_fast_forward_merge_is_one_item_for_everything_that_landed(repo: Repo) -> None:
    before = repo.head()
    repo.git("switch", "-q", "-c", "side")
    repo.land("a", "a", hooks=False)  # made elsewhere: not recorded before
    repo.land("b", "b", hooks=False)
    tip = repo.head()
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "side")
    assert repo.pending() == [(tip, before)]


def test_fast_forward_onto_commits_already_recorded_adds_nothing(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "side")
    repo.land("a", "a")
    repo.git("switch", "-q", "main")
    repo.clear()
    repo.git("merge", "-q", "--ff-only", "side")
    assert repo.pending() == []  # the id (kind + oid) is known: it was reviewed as committed


def test_squash_merge_lands_nothing_until_its_commit(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "side")
    repo.land("a", "a")
    repo.git("switch", "-q", "main")
    repo.clear()
    repo.git("merge", "-q", "--squash", "side")
    assert repo.pending() == []
    repo.git("commit", "-q", "-m", "squashed")
    assert repo.pending() == [(repo.head(), None)]


def test_pull_fast_forward_and_pull_with_merge(tmp_path: Path) -> None:
    upstream = Repo(tmp_path / "upstream")
    Repo(tmp_path / "unused", initial=False)
    subprocess.run(
        ["git", "clone", "-q", str(upstream.path), str(tmp_path / "clone")],
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    clone = Repo.existing(tmp_path / "clone")
    clone.install()
    clone.git("config", "pull.rebase", "false")
    before = clone.head()
    upstream.land("upstream 1", "u1", hooks=False)
    upstream.land("upstream 2", "u2", hooks=False)
    clone.git("pull", "-q")
    assert clone.pending() == [(upstream.head(), before)]
    clone.clear()

    upstream.land("upstream 3", "u3", hooks=False)
    clone.land("local", "local")
    clone.clear()
    before = clone.head()
    clone.git("pull", "-q", "--no-edit")
    assert clone.pending() == [(clone.head(), before)]
    assert clone.git("rev-list", "--count", "--merges", f"{before}..HEAD") == "1"


def test_pull_rebase_records_the_rebased_local_commits(tmp_path: Path) -> None:
    upstream = Repo(tmp_path / "upstream")
    subprocess.run(["git", "clone", "-q", str(upstream.path), str(tmp_path / "clone")], check=True)
    clone = Repo.existing(tmp_path / "clone")
    clone.install()
    upstream.land("upstream", "u", hooks=False)
    clone.land("local 1", "l1")
    clone.land("local 2", "l2")
    clone.clear()
    clone.git("pull", "-q", "--rebase")
    rebased = clone.git("rev-list", "--reverse", "origin/main..HEAD").split()
    assert len(rebased) == 2
    assert clone.pending() == [(oid, None) for oid in rebased]


def test_amend_records_the_new_commit_once(repo: Repo) -> None:
    repo.land("one")
    repo.clear()
    repo.git("commit", "-q", "--amend", "-m", "one, amended")
    assert repo.pending() == [(repo.head(), None)]


def test_rebase_records_each_rewritten_commit_not_each_pick(repo: Repo) -> None:
    base = repo.head()
    repo.git("switch", "-q", "-c", "topic")
    for n in range(3):
        repo.land(f"topic {n}", f"t{n}")
    repo.git("switch", "-q", "main")
    repo.land("main moves", "m")
    repo.git("switch", "-q", "topic")
    repo.clear()
    repo.git("rebase", "-q", "main")
    rewritten = repo.git("rev-list", "--reverse", "main..topic").split()
    assert len(rewritten) == 3
    assert sorted(repo.pending()) == sorted((oid, None) for oid in rewritten)
    assert base not in rewritten
    # Each item names the commit it replaced (post-rewrite's map), for the review to carry over.
    replaced = {}
    while (claimed := work_item.claim_next(repo.git_dir, [WorkKind.REVIEW])) is not None:
        replaced[claimed.item.oid] = claimed.item.rewritten
    assert [replaced[oid] for oid in rewritten] == repo.git(
        "rev-list", "--reverse", "topic@{1}", "^main@{1}"
    ).split()


def test_interactive_rebase_with_fixup_and_squash(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "topic")
    olds = [repo.land(f"topic {n}", f"t{n}") for n in range(4)]
    repo.clear()
    editor = "sed -i -e '2s/^pick/fixup/' -e '4s/^pick/squash/'"
    repo.git("rebase", "-q", "-i", "HEAD~4", GIT_SEQUENCE_EDITOR=editor, GIT_EDITOR="true")
    rewritten = repo.git("rev-list", "--reverse", "HEAD~2..HEAD").split()
    assert repo.git("rev-list", "--count", "main..HEAD") == "2"
    assert sorted(repo.pending()) == sorted((oid, None) for oid in rewritten)
    # Each new commit's record names every commit folded into it, the first as `rewritten` (the
    # one field a reader before also-rewritten takes), for its review to know what was seen.
    known = repo.git_dir / "landwatch" / "known"
    lines = (known / f"review-{rewritten[0]}").read_text().splitlines()
    assert [line for line in lines if "rewritten" in line] == [
        f"rewritten {olds[0]}",
        f"also-rewritten {olds[1]}",
    ]
    replaced = {}
    while (claimed := work_item.claim_next(repo.git_dir, [WorkKind.REVIEW])) is not None:
        replaced[claimed.item.oid] = claimed.item.replaced
    assert replaced == {rewritten[0]: tuple(olds[:2]), rewritten[1]: tuple(olds[2:])}


def test_an_amend_by_a_rebase_s_exec_is_recorded_as_replacing_the_pick(repo: Repo) -> None:
    """`git rebase -x 'git commit --amend ...'`: the rebase's post-rewrite lists each pick, not
    the amend of it its exec made, which was left to the reflog sweep's grace (a `reviewer
    --once` right after did not review it). The amend's post-rewrite records it, naming the
    pick it replaced, and asks nothing else mid-rebase (no push, no line)."""
    repo.git("switch", "-q", "-c", "topic")
    olds = [repo.land(f"topic {n}", f"t{n}") for n in range(2)]
    repo.clear()
    amend = "echo amended >> a.txt && git add a.txt && git commit -q --amend --no-edit"
    rebased = repo.run("rebase", "-q", "--force-rebase", "-x", amend, "HEAD~2")
    assert rebased.returncode == 0 and "landwatch" not in rebased.stderr, rebased.stderr
    tips = repo.git("rev-list", "--reverse", "HEAD~2..HEAD").split()
    replaced = {}
    while (claimed := work_item.claim_next(repo.git_dir, [WorkKind.REVIEW])) is not None:
        replaced[claimed.item.oid] = claimed.item.replaced
    # Each tip is recorded, replacing the pick its exec amended, which the rebase's list names
    # as replacing the commit picked (git flushes its list lazily: where it names the tip
    # itself, the tip replaces the commit picked).
    for tip, old in zip(tips, olds, strict=True):
        (replacing,) = replaced[tip]
        assert replacing == old or replaced[replacing] == (old,)
    assert work_item.claim_next(repo.git_dir) is None


def test_a_rebase_whose_exec_amends_asks_the_push_of_the_branch_as_it_ends(repo: Repo) -> None:
    """The rebase's list ends with the pick its last exec amended, a commit no branch holds: its
    push named that, and the push kind found no branch to push. It names HEAD as the rebase ends."""
    repo.git("config", "landwatch.push.remote", "origin")
    repo.git("switch", "-q", "-c", "topic")
    for n in range(2):
        repo.land(f"topic {n}", f"t{n}")
    repo.clear()
    amend = "echo amended >> a.txt && git add a.txt && git commit -q --amend --no-edit"
    repo.git("rebase", "-q", "--force-rebase", "-x", amend, "HEAD~2")
    assert repo.pending(kind=WorkKind.PUSH) == [(repo.git("rev-parse", "topic"), None)]


def test_rebase_apply_backend_records_once(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "topic")
    repo.land("t1", "t1")
    repo.land("t2", "t2")
    repo.git("switch", "-q", "main")
    repo.land("m", "m")
    repo.git("switch", "-q", "topic")
    repo.clear()
    repo.git("rebase", "-q", "--apply", "main")
    rewritten = repo.git("rev-list", "--reverse", "main..topic").split()
    assert sorted(repo.pending()) == sorted((oid, None) for oid in rewritten)


def test_git_am_records_each_applied_patch(repo: Repo, tmp_path: Path) -> None:
    other = Repo(tmp_path / "other")
    other.land("patch 1", "p1", hooks=False)
    other.land("patch 2", "p2", hooks=False)
    other.git("format-patch", "-q", "-2", "-o", str(tmp_path / "patches"))
    repo.git("am", "-q", *sorted(str(p) for p in (tmp_path / "patches").iterdir()))
    applied = repo.git("rev-list", "--reverse", "HEAD~2..HEAD").split()
    # Each patch is its own hook run; the clock ticks every 10 ms, so their order may tie.
    assert sorted(repo.pending()) == sorted((oid, None) for oid in applied)


def test_linked_worktrees_record_in_their_own_git_dir(repo: Repo, tmp_path: Path) -> None:
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    linked = Repo.existing(tmp_path / "linked")
    oid = linked.land("in the linked worktree", "w")
    assert linked.git_dir.parent.name == "worktrees"
    assert repo.pending(linked.git_dir) == [(oid, None)]
    assert repo.pending() == []
    claimed = work_item.claim_next(linked.git_dir)
    assert claimed is not None and claimed.item.work_tree == linked.path.resolve()


def test_submodule_records_in_its_own_git_dir(repo: Repo, tmp_path: Path) -> None:
    library = Repo(tmp_path / "library")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library.path), "lib")
    sub = Repo.existing(repo.path / "lib")
    assert sub.install()
    oid = sub.land("in the submodule", "s")
    assert sub.git_dir.parent.name == "modules"
    assert sub.pending() == [(oid, None)]


def test_shell_and_python_producers_write_one_format(repo: Repo) -> None:
    shell = repo.land("by the hook")
    # A duplicate through the other producer collapses.
    assert work_item.enqueue(WorkItem(WorkKind.REVIEW, shell, repo.git_dir)) is Enqueued.KNOWN
    python = repo.land("without the hook", "p", hooks=False)
    assert (
        work_item.enqueue(WorkItem(WorkKind.REVIEW, python, repo.git_dir, repo.path.resolve()))
        is Enqueued.ADDED
    )
    # The hook meets the Python producer's marker: no second item.
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("merge", "-q", "--ff-only", python)
    assert repo.pending() == [(shell, None), (python, None)]
    decoded = []
    while (claimed := work_item.claim_next(repo.git_dir, [WorkKind.REVIEW])) is not None:
        decoded.append(claimed.item)
    assert decoded == [
        WorkItem(WorkKind.REVIEW, shell, repo.git_dir, repo.path.resolve()),
        WorkItem(WorkKind.REVIEW, python, repo.git_dir, repo.path.resolve()),
    ]


def stamp_of_landing(repo: Repo) -> float:
    """Seconds since the epoch by the stamp the hook gave the newest pending review."""
    work_item.publish_ready(repo.git_dir)
    names = [n for n in work_item.entries(repo.git_dir, "pending") if n.startswith("review-")]
    newest = max(names, key=lambda name: int(name.rpartition(".")[2]))
    return int(newest.rpartition(".")[2]) / 1_000_000


def test_the_last_stamp_is_written_in_place(repo: Repo) -> None:
    repo.land("writes the last stamp")
    last = repo.git_dir / "landwatch" / "last-stamp"
    # Longer than a stamp: what a shorter write leaves behind comes after the line the hook reads.
    last.write_text("100\n" + "9" * 30 + "\n")
    inode = last.stat().st_ino
    repo.clear()
    repo.land("after a short last stamp")
    first, rest = last.read_text().split("\n", 1)
    assert last.stat().st_ino == inode
    assert int(first) == int(stamp_of_landing(repo) * 1_000_000)
    assert rest.endswith("9\n")
    repo.clear()
    landed = [repo.land("one after"), repo.land("and another")]
    assert [oid for oid, _ in repo.pending()] == landed


def test_a_clock_stepped_back_since_the_boot_time_was_cached_is_noticed(repo: Repo) -> None:
    repo.land("caches the boot time")
    repo.clear()
    cache = repo.git_dir / "landwatch" / "boot-time"
    boot_id, btime = cache.read_text().split()
    # Written while the clock ran a day ahead: its boot time, and its mtime, a day later.
    cache.write_text(f"{boot_id} {int(btime) + 86400}\n")
    ahead = time.time() + 86400
    os.utime(cache, (ahead, ahead))
    repo.land("after the clock came back")
    assert abs(stamp_of_landing(repo) - time.time()) < 60
    assert cache.read_text().split() == [boot_id, btime]


def test_the_reviewer_drops_a_boot_time_a_clock_step_left_behind(repo: Repo) -> None:
    from support.daemon import run_reviewer

    repo.land("caches the boot time")
    repo.clear()
    cache = repo.git_dir / "landwatch" / "boot-time"
    boot_id, btime = cache.read_text().split()
    cache.write_text(f"{boot_id} {int(btime) - 7200}\n")  # the clock stepped 2 h ahead since
    (repo.git_dir / "landwatch" / "last-stamp").unlink()  # which keeps stamps in order only
    repo.land("stamped 2 h behind")
    assert time.time() - stamp_of_landing(repo) > 7000
    repo.clear()
    assert run_reviewer("--once").returncode == 0
    assert not cache.exists()
    repo.land("after the reviewer looked")
    assert abs(stamp_of_landing(repo) - time.time()) < 60


def test_settings_in_an_included_config_file_are_seen(repo: Repo, tmp_path: Path) -> None:
    included = tmp_path / "included.gitconfig"
    included.write_text("[landwatch]\n\tstaleAfter = 600\n")
    repo.git("config", "include.path", str(included))
    repo.land("settings cached")
    assert repo.pending(kind=WorkKind.PUSH) == []
    # The repository's own config is looked at by every landing; the cache names the others.
    cached = (repo.git_dir / "landwatch" / "settings").read_text().splitlines()
    assert [line for line in cached if line.startswith("file ")] == [f"file {included}"]
    included.write_text('[landwatch]\n\tstaleAfter = 600\n[landwatch "push"]\n\tremote = origin\n')
    cache = repo.git_dir / "landwatch" / "settings"
    later = cache.stat().st_mtime + 1
    os.utime(included, (later, later))
    oid = repo.land("push asked for in the included file")
    assert repo.pending(kind=WorkKind.PUSH) == [(oid, None)]


def test_a_setting_landwatch_cannot_use_is_said_once_per_change(repo: Repo) -> None:
    repo.git("config", "landwatch.staleAfter", "1e3")
    repo.land("one")
    assert repo.said == (
        "landwatch: git config landwatch.staleAfter = '1e3' is not a whole number of seconds "
        "(1 to 9 digits, no leading zero); landwatch uses 600\n"
    )
    repo.land("two")
    assert repo.said == ""  # not at every landing
    repo.git("config", "landwatch.staleAfter", "900")
    repo.git("config", "landwatch.maintenance", "maybe")
    repo.git("config", "landwatch.notes", "maybe")  # not the hooks' to tell
    cache = repo.git_dir / "landwatch" / "settings"
    later = cache.stat().st_mtime + 1
    os.utime(repo.git_dir / "config", (later, later))
    repo.land("three")
    assert repo.said == (
        "landwatch: git config landwatch.maintenance = 'maybe' is not true or false; landwatch "
        "keeps maintenance on\n"
    )
    repo.git("config", "landwatch.maintenance", "false")
    later = cache.stat().st_mtime + 1
    os.utime(repo.git_dir / "config", (later, later))
    repo.land("four")
    assert repo.said == ""


def test_a_settings_cache_the_hook_never_writes_is_made_again_once(repo: Repo) -> None:
    """Garbage in `settings` (newer than every config file) was read at every landing, a byte a
    `read`, and never made again: 3 MB cost each commit a second. Now one landing makes it anew."""
    repo.land("the cache made")
    cache = repo.git_dir / "landwatch" / "settings"
    made = cache.read_bytes()
    for garbage in (
        b"7" * 100_000,  # one line, no line end
        b"not a key\n",
        b"file relative/config\n",  # the hook writes whole paths
        b"landwatch.notes " + b"x" * 5000 + b"\n",  # past any line the hook keeps
    ):
        cache.write_bytes(garbage)
        repo.land("the cache made again")
        assert cache.read_bytes() == made, garbage[:20]
        mtime = cache.stat().st_mtime_ns
        repo.land("the cache as made")
        assert cache.stat().st_mtime_ns == mtime


QUICK_WAY = 'lw_record_quickly "$@" 3>&2 2>/dev/null && exit 0\n'


def rewrite_hook(hooks: Path, after_quick_way: str) -> None:
    """The post-commit of the directory `hooks` with `after_quick_way` in place of the line that
    ends the quick way."""
    hook = hooks / "post-commit"
    text = hook.read_text()
    assert text.count(QUICK_WAY) == 1
    hook.write_text(text.replace(QUICK_WAY, after_quick_way))


def test_a_common_landing_ends_before_the_shell_reads_the_rest_of_the_hook(repo: Repo) -> None:
    repo.land("the first landing makes the caches")
    repo.clear()
    # What follows the quick way cannot even be parsed: a landing that reaches it fails loudly.
    rewrite_hook(repo.git_dir / "hooks", QUICK_WAY + "lw_unparsable (((\n")
    for number in range(3):
        oid = repo.land(f"common landing {number}")
        assert repo.said == ""
        assert repo.pending() == [(oid, None)]
        repo.clear()
    repo.git("config", "landwatch.staleAfter", "900")  # settings changed: the whole hook
    cache = repo.git_dir / "landwatch" / "settings"
    later = cache.stat().st_mtime + 1
    os.utime(repo.git_dir / "config", (later, later))
    repo.land("needs the rest")
    assert "Syntax error" in repo.said


def test_a_linked_worktree_takes_the_quick_way_too(repo: Repo, tmp_path: Path) -> None:
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    linked = Repo.existing(tmp_path / "linked")
    linked.land("the first landing makes its work directory", "w")
    repo.clear(linked.git_dir)
    rewrite_hook(repo.git_dir / "hooks", QUICK_WAY + "lw_unparsable (((\n")  # the repository's
    oid = linked.land("a common landing", "w")
    assert linked.said == ""
    assert repo.pending(linked.git_dir) == [(oid, None)]


def test_each_repository_a_shared_hooks_directory_serves_takes_the_quick_way(
    tmp_path: Path,
) -> None:
    """A global core.hooksPath landwatch was installed in for two repositories: its hooks name
    both, and a common landing in either ends before the rest of the hook is read."""
    shared = tmp_path / "global-hooks"
    repos = sharing_hooks(shared, tmp_path / "a", tmp_path / "b")
    for repo in repos:
        repo.land("the first landing makes the caches")
        repo.clear()
    rewrite_hook(shared, QUICK_WAY + "lw_unparsable (((\n")
    for repo in repos:
        oid = repo.land("a common landing")
        assert repo.said == ""
        assert repo.pending() == [(oid, None)]


def test_the_quick_way_and_the_whole_hook_write_one_record(repo: Repo, tmp_path: Path) -> None:
    def record_of_a_landing(repo: Repo) -> dict[str, str]:
        """Its record's lines, but what differs between two landings and two worktrees."""
        oid = repo.land(f"landing in {repo.path.name}")
        marker = repo.git_dir / "landwatch" / "known" / f"review-{oid}"
        lines = dict(line.partition(" ")[::2] for line in marker.read_text().splitlines())
        assert lines.pop("oid") == oid
        assert abs(int(lines.pop("enqueued")) / 1e6 - time.time()) < 60
        assert Path(lines.pop("work-tree")) == repo.path
        host, boot, _pid = lines.pop("producer").split()
        return {**lines, "producer": f"{host} {boot}"}

    whole = installed(tmp_path / "whole")
    for each in (repo, whole):
        each.land("the first landing makes the caches")
    rewrite_hook(whole.git_dir / "hooks", "")  # no quick way: every landing takes the whole hook
    quick_record, whole_record = record_of_a_landing(repo), record_of_a_landing(whole)
    assert quick_record == whole_record
    assert list(quick_record) == ["landwatch-work-item", "kind", "end", "producer"]
    assert repo.said == whole.said == ""
