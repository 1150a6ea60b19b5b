"""The review kind drained by the real reviewer, and the hooks' line telling of it once."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path

import pytest

from landwatch import layout, line_markers, report_store, work_item
from landwatch.kinds.review import ReviewHandler
from landwatch.work_item import DONE, WorkItem, WorkKind
from support.daemon import done_ids, run_reviewer
from support.kinds import FakeClock, in_process, reporter, settle_down
from support.queue import git
from support.remotes import partial_clone
from support.repos import Repo, installed
from support.review import KEY_ID
from support.tokens import GITHUB_TOKEN


def test_the_reviewer_reviews_landings_and_the_hooks_tell_once(repo: Repo) -> None:
    oid = repo.land("with findings", {"a.py": "x = 1  \nimport pdb\n"})
    clean = repo.land("clean", {"b.txt": "fine\n"})
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert sorted(
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ) == sorted([f"review-{oid}", f"review-{clean}"])
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and stored.summary() == "2 warnings"
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == (
        f"landwatch: P001 trailing whitespace in a.py:1, +1 warning · landwatch show {oid[:7]}\n"
    )
    assert repo.run("commit", "-q", "--allow-empty", "-m", "again").stderr == ""
    shown = repo.landwatch("show", oid)
    assert shown.returncode == 0 and "a.py" in shown.stdout and "debug-statement" in shown.stdout
    assert repo.landwatch("show", "HEAD").returncode == 1  # not reviewed yet


def test_hostile_names_are_reviewed_and_never_reach_a_terminal_raw(tmp_path: Path) -> None:
    repo = installed(tmp_path / "repo\x1b[2J\u202e")  # the reviewer logs its path
    repo.git("config", "landwatch.notes", "true")
    names = [
        b"caf\xe9.txt",  # not UTF-8
        b"evil\x1b]0;pwned\x07.txt",  # a terminal escape and a bell
        "admin\u202e\u2066txt.exe".encode(),  # bidirectional overrides
    ]
    for name in names:
        (repo.path / os.fsdecode(name)).write_bytes(b"trailing  \n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "hostile names")
    oid = repo.head()
    result = run_reviewer("--once", "--verbose")
    assert result.returncode == 0, result.stderr
    assert f"review-{oid}" in [
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ]
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and len([f for f in stored.findings if f.rule == "P001"]) == 3
    shown = repo.landwatch("show", oid)
    note = repo.git("notes", "--ref", "landwatch", "show", oid)
    reviewed = repo.landwatch("review", oid, "--sarif")
    assert reviewed.returncode == 0 and "Traceback" not in reviewed.stderr
    assert "caf%E9.txt" in reviewed.stdout
    for text in (shown.stdout, note, result.stderr, layout.REVIEWER_LOG.path().read_text()):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\u2066" not in text
    assert "caf\\xe9.txt" in shown.stdout and "evil\\x1b]0;pwned\\x07.txt" in shown.stdout
    assert "admin\\u202e\\u2066txt.exe" in shown.stdout
    assert "repo\\x1b[2J\\u202e" in layout.REVIEWER_LOG.path().read_text()  # escaped, not dropped


def test_a_rebase_does_not_say_again_what_was_seen(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "topic")
    before = repo.land("topic", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("seen", {"b.txt": "clean\n"})
    assert before[:7] in repo.said
    repo.git("checkout", "-q", "main")
    repo.land("upstream", {"c.txt": "clean\n"}, hooks=False)
    repo.git("checkout", "-q", "topic")
    rebased = repo.run("rebase", "-q", "main")
    assert rebased.returncode == 0, rebased.stderr
    new = repo.git("rev-parse", "HEAD~1")
    assert new != before
    assert run_reviewer("--once").returncode == 0
    # On a moved base the patch is reviewed anew; what was seen of it is not said again.
    again = report_store.read(repo.git_dir, new)
    assert again is not None and again.summary() == "1 warning"
    assert again.carried_from is None
    repo.land("after", {"d.txt": "clean\n"})
    assert repo.said == ""
    assert line_markers.unread(repo.git_dir) == []


def test_a_rebase_tells_once_what_was_not_seen_yet(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "topic")
    before = repo.land("topic", {"a.txt": "trailing  \n"})  # rebased before it was reviewed
    repo.git("checkout", "-q", "main")
    repo.land("upstream", {"c.txt": "clean\n"}, hooks=False)
    repo.git("checkout", "-q", "topic")
    assert repo.run("rebase", "-q", "main").returncode == 0
    new = repo.head()
    assert run_reviewer("--once").returncode == 0
    assert report_store.read(repo.git_dir, before) is not None
    assert line_markers.unread(repo.git_dir) == [new]  # the replaced one's marker went with it
    repo.land("after", {"d.txt": "clean\n"})
    assert repo.said == (
        f"landwatch: P001 trailing whitespace in a.txt:1 · landwatch show {new[:7]}"
        f" (replaces {before[:7]})\n"
    )


def test_an_amend_says_only_what_is_new(repo: Repo) -> None:
    first = repo.land("one", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("next", {"b.txt": "clean\n"})
    assert first[:7] in repo.said  # seen
    repo.git("reset", "-q", "--hard", first)
    amended = repo.run("commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00")
    assert amended.returncode == 0 and amended.stderr == ""
    assert run_reviewer("--once").returncode == 0
    carried = report_store.read(repo.git_dir, repo.head())
    assert carried is not None and carried.carried_from == first
    assert line_markers.unread(repo.git_dir) == []
    # More content, the same finding: reviewed again, and still nothing new to say.
    repo.stage({"a.txt": "trailing  \nmore\n"})
    assert repo.run("commit", "-q", "--amend", "--no-edit").returncode == 0
    assert run_reviewer("--once").returncode == 0
    again = report_store.read(repo.git_dir, repo.head())
    assert again is not None and again.carried_from is None
    assert again.summary() == "1 warning" and line_markers.unread(repo.git_dir) == []
    # A new finding is said.
    repo.stage({"a.txt": "trailing  \nmore\nalso trailing  \n"})
    assert repo.run("commit", "-q", "--amend", "--no-edit").returncode == 0
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [repo.head()]


def test_a_commit_made_again_after_a_reset_says_only_what_is_new(repo: Repo) -> None:
    """`git reset --soft HEAD~1 && git commit`, the amend by hand (an audit: the finding told and
    read was told again, of the commit made again)."""
    repo.land("base", {"base.txt": "clean\n"})
    first = repo.land("one", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("next", {"b.txt": "clean\n"})
    assert first[:7] in repo.said  # seen
    repo.git("reset", "-q", "--hard", first)
    repo.git("reset", "-q", "--soft", "HEAD~1")
    again = repo.run("commit", "-q", "-m", "one, again")
    assert again.returncode == 0 and again.stderr == ""
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == []
    repo.land("then", {"c.txt": "clean\n"})
    assert repo.said == ""


def test_several_commits_squashed_by_hand_say_only_what_was_not_seen(repo: Repo) -> None:
    """`git reset --soft HEAD~2 && git commit`, the squash by hand (an audit: the finding of the
    first, told and read, was told again as the squash's worst, the second's unseen one behind
    it); now both commits are the ones replaced, as a rebase's squash names them."""
    repo.land("base", {"base.txt": "clean\n"})
    repo.land("one", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    second = repo.land("two", {"b.txt": "trailing  \n"})
    assert "a.txt:1" in repo.said  # the first's line, told at the second's landing: seen
    assert run_reviewer("--once").returncode == 0
    assert line_markers.unread(repo.git_dir) == [second]
    repo.git("reset", "-q", "--soft", "HEAD~2")
    squashed = repo.run("commit", "-q", "-m", "one and two")
    assert squashed.returncode == 0 and squashed.stderr == ""
    assert run_reviewer("--once").returncode == 0
    repo.land("then", {"c.txt": "clean\n"})
    assert "b.txt:1" in repo.said and "a.txt" not in repo.said, repo.said


def test_an_amend_that_fixed_the_white_space_is_told_as_what_it_is(repo: Repo) -> None:
    """The loop people run most: the line names trailing spaces, they fix them with an amend;
    the fixed commit's review is its own, shown and told as such, never the old one."""
    first = repo.land("one", {"a.py": "x = 1   \ny = 2\n"})
    assert run_reviewer("--once").returncode == 0
    repo.stage({"a.py": "x = 1\ny = 2\n"})
    assert repo.run("commit", "-q", "--amend", "--no-edit").returncode == 0
    fixed = repo.head()
    assert run_reviewer("--once").returncode == 0
    shown = repo.landwatch("show", "--json", fixed)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["carried_from"] is None and report["commit"] == fixed
    assert [f["rule"] for f in report["findings"] if f["rule"] == "P001"] == []
    assert "x = 1   " not in repo.landwatch("show", fixed).stdout
    repo.land("next", {"b.txt": "clean\n"})
    assert "P001" not in repo.said and first[:7] not in repo.said


def test_a_review_kept_again_for_its_commit_tells_nothing_already_seen(repo: Repo) -> None:
    """The queue runs an item at least once: a reviewer killed after it kept a review but before
    its item was done runs it again. What the line told of it then is not told again, a new
    finding is (an audit's SIGKILL between the two had the same finding told twice)."""
    landed = repo.land("one", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("next", {"b.txt": "clean\n"})
    assert landed[:7] in repo.said  # seen
    item = WorkItem(WorkKind.REVIEW, landed, repo.git_dir)
    ReviewHandler(clock=FakeClock()).handle(item, reporter())
    assert line_markers.unread(repo.git_dir) == []
    repo.land("then", {"c.txt": "clean\n"})
    assert repo.said == ""
    # Not seen yet (its marker still there): told, once.
    repo.land("two", {"d.txt": "trailing  \n"})
    told = repo.head()
    assert run_reviewer("--once").returncode == 0
    ReviewHandler(clock=FakeClock()).handle(
        WorkItem(WorkKind.REVIEW, told, repo.git_dir), reporter()
    )
    assert line_markers.unread(repo.git_dir) == [told]


def test_every_unread_review_is_listed_and_the_line_says_how_many_wait(repo: Repo) -> None:
    oids = [repo.land(f"finding {n}", {f"f{n}.txt": "trailing  \n"}) for n in range(3)]
    repo.land("clean", {"clean.txt": "fine\n"})
    assert run_reviewer("--once").returncode == 0
    repo.land("next", {"next.txt": "fine\n"})
    assert repo.said == (
        f"landwatch: P001 trailing whitespace in f2.txt:1 · landwatch show {oids[2][:7]}"
        " (2 more unread: landwatch show --unread)\n"
    )
    listed = repo.landwatch("show", "--unread")
    assert listed.returncode == 0, listed.stderr
    heads = [line for line in listed.stdout.splitlines() if line.startswith("landwatch review")]
    assert [line.split()[3] for line in heads] == [oids[1][:12], oids[0][:12]]
    assert "finding 1" in listed.stdout and "f1.txt" in listed.stdout
    assert repo.landwatch("show", "--unread").stdout == "landwatch: no unread reviews\n"
    repo.land("quiet", {"quiet.txt": "fine\n"})
    assert repo.said == ""


def test_a_review_past_its_budget_is_stored_with_a_note_and_others_go_on(
    repo: Repo, tmp_path: Path
) -> None:
    # The person's own linter, which runs everywhere, never answers; the budget is 1 s.
    own = layout.OWN_CONFIG.path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(
        '[[linters]]\nname = "stuck"\ncommand = ["sleep", "600"]\nfiles = ["*.txt"]\n'
        'format = "ruff-json"\ntimeout = 120\n'
    )
    repo.git("config", "landwatch.review.budget", "1")
    slow = repo.land("slow", {"a.txt": "a  \n", "b.txt": "b\n", "c.txt": "c\n"})
    other = installed(tmp_path / "other")
    other.git("config", "landwatch.review.budget", "1")
    quick = other.land("quick", {"q.py": "x = 1  \n"})
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    stored = report_store.read(repo.git_dir, slow)
    assert stored is not None and stored.truncated
    assert ("P001", "a.txt") in [(f.rule, f.path) for f in stored.findings]
    assert [run["status"] for run in stored.linters] == ["timeout"]
    assert [n for n in stored.notes if n.startswith("linters stopped before stuck on ")]
    assert work_item.entries(repo.git_dir, work_item.FAILED) == []
    assert f"review-{slow}" in [
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ]
    reviewed = report_store.read(other.git_dir, quick)
    assert reviewed is not None and reviewed.summary().startswith("1 warning")


def test_a_commit_whose_reflog_entry_has_no_message_is_reviewed(repo: Repo) -> None:
    """`git update-ref` after `git commit-tree`, as scripts do: reviewed, not given up."""
    repo.stage({"a.txt": "trailing  \n"})
    made = repo.git("commit-tree", repo.git("write-tree"), "-p", "HEAD", "-m", "by a script")
    repo.git("update-ref", "refs/heads/main", made)
    assert repo.landwatch("enqueue", made).returncode == 0
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    stored = report_store.read(repo.git_dir, made)
    assert stored is not None and stored.summary() == "1 warning"
    assert not work_item.entries(repo.git_dir, work_item.FAILED)


TEAMMATE = {"GIT_AUTHOR_EMAIL": "mate@example.com", "GIT_COMMITTER_EMAIL": "Mate@Example.com"}


def test_a_teammates_commits_arriving_by_pull_are_told_only_at_error(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.git"
    git("init", "-q", "--bare", "-b", "main", str(upstream), cwd=tmp_path)
    mate = Repo(tmp_path / "mate")
    mate.git("push", "-q", str(upstream), "main")
    mine = Repo(tmp_path / "mine", clone_of=upstream)
    mine.install()
    mine.git("config", "user.email", "T@example.com")  # whose commits are mine

    def pulled(message: str, files: dict[str, str | None]) -> str:
        """A teammate's commit, pushed, and pulled here (a fast-forward: post-merge), whose
        hook says nothing: nothing worth telling was unread."""
        mate.land(message, files, hooks=False, env=TEAMMATE)
        mate.git("push", "-q", str(upstream), "main")
        result = mine.run("pull", "-q", "--ff-only")
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert run_reviewer("--once").returncode == 0
        return mine.head()

    tip = pulled("Their whitespace", {"a.txt": "trailing  \n"})
    stored = report_store.read(mine.git_dir, tip)
    assert stored is not None and stored.shape == "range" and stored.summary() == "1 warning"
    assert line_markers.unread(mine.git_dir) == []
    assert "the one line tells only of their errors" in mine.landwatch("show", tip).stdout
    key = pulled("Their key", {"b.txt": f"KEY = '{KEY_ID}'\n"})
    mine.land("next", {"n.txt": "clean\n"})
    assert mine.said == f"landwatch: S002 AWS access key ID in b.txt:1 · landwatch show {key[:7]}\n"
    # Commits of mine landing by a merge are told as they were.
    mine.git("checkout", "-q", "-b", "side")
    mine.land("My whitespace", {"c.txt": "trailing  \n"}, hooks=False)
    mine.git("checkout", "-q", "main")
    assert mine.run("merge", "-q", "--ff-only", "side").returncode == 0
    assert run_reviewer("--once").returncode == 0
    mine.land("last", {"l.txt": "clean\n"})
    assert mine.said.startswith("landwatch: P001 trailing whitespace in c.txt:1 · "), mine.said


def test_merges_skip_reads_a_landed_git_merge_for_what_it_added_alone(repo: Repo) -> None:
    """`git merge` lands as a range from ORIG_HEAD (post-merge): with `merges = "skip"` that
    merge is read for what none of its parents has, as a merge reviewed alone is. Before, the
    range was read whole and the topic's own whitespace was told again at the merge."""
    repo.land("skip merges", {".landwatch.toml": 'merges = "skip"\n'}, hooks=False)
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"topic.txt": "from topic  \n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("main moves", {"main.txt": "main\n"}, hooks=False)
    assert repo.run("merge", "-q", "--no-ff", "--no-edit", "topic").returncode == 0
    merge = repo.head()
    assert [n for n in repo.pending() if merge in n], "the merge was not recorded"
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(repo.git_dir, merge)
    assert stored is not None and stored.shape == "range"
    assert stored.findings == []
    assert any("what none of its parents has" in note for note in stored.notes)


@pytest.mark.parametrize("told", [True, False])
def test_a_merge_of_my_own_branch_tells_nothing_its_commits_lines_tell(
    repo: Repo, told: bool
) -> None:
    """An audit: a `--no-ff` merge of the person's own branch lands as a range (ORIG_HEAD..the
    merge), whose line told again what the branch's own commits' lines had told, or were still
    to tell. A finding a kept review of a commit it brings holds is that commit's to tell; what
    the range brings unreviewed (landed with landwatch off) is the merge's."""
    repo.git("switch", "-q", "-c", "topic")
    reviewed = repo.land("topic", {"a.py": "x = 1  \n"})
    repo.land("unreviewed", {"b.txt": "y  \n"}, hooks=False)
    topic_line = f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {reviewed[:7]}"
    if told:
        assert run_reviewer("--once").returncode == 0
        assert said(repo, "told") == topic_line + "\n"
    repo.git("switch", "-q", "main")
    repo.land("main moves", {"main.txt": "main\n"}, hooks=False)
    merged = repo.run("merge", "-q", "--no-ff", "--no-edit", "topic")
    assert merged.returncode == 0 and merged.stderr == "", merged.stderr
    merge = repo.head()
    assert run_reviewer("--once").returncode == 0  # the topic's review, if not yet, then this
    stored = report_store.read(repo.git_dir, merge)
    assert stored is not None and stored.summary() == "2 warnings"  # the review holds both
    merge_line = (
        f"landwatch: P001 trailing whitespace in b.txt:1, +1 warning · landwatch show {merge[:7]}"
    )
    more = "" if told else " (1 more unread: landwatch show --unread)"
    assert said(repo, "next") == merge_line + more + "\n"
    assert said(repo, "last") == ("" if told else topic_line + "\n")


@pytest.mark.parametrize("told", [True, False])
def test_a_pull_of_my_branch_as_the_host_rebased_it_tells_nothing_of_it_again(
    repo: Repo, told: bool
) -> None:
    """An audit: a branch's commit, its line told (or still to tell), the branch "Rebase and
    merge"d by the host onto main after a teammate's commit (a copy: the person its author, the
    host its committer), pulled: the range told the finding again, as the range's."""
    repo.git("switch", "-q", "-c", "topic")
    reviewed = repo.land("topic", {"a.py": "x = 1  \n"})
    topic_line = f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {reviewed[:7]}"
    if told:
        assert run_reviewer("--once").returncode == 0
        assert said(repo, "told") == topic_line + "\n"
    repo.git("switch", "-q", "-c", "upstream", "main")  # what the host's main then holds
    repo.land("theirs", {"t.txt": "t\n"}, hooks=False, env=TEAMMATE)
    picked = repo.run("cherry-pick", reviewed, LANDWATCH="0", GIT_COMMITTER_EMAIL="host@x.org")
    assert picked.returncode == 0, picked.stderr
    repo.git("switch", "-q", "main")
    assert repo.run("merge", "-q", "--ff-only", "upstream").returncode == 0  # the pull
    pulled = repo.head()
    assert run_reviewer("--once").returncode == 0
    stored = report_store.read(repo.git_dir, pulled)
    assert stored is not None and stored.shape == "range" and stored.summary() == "1 warning"
    assert said(repo, "next") == ("" if told else topic_line + "\n")
    assert said(repo, "last") == ""


def said(repo: Repo, message: str) -> str:
    """What the hooks printed when an empty commit landed."""
    return repo.run("commit", "-q", "--allow-empty", "-m", message).stderr


def landed_and_pruned(repo: Repo) -> str:
    """A landing reset away, its reflog expired and its commit pruned by gc before a review."""
    gone = repo.land("oops", {"b.txt": "secret\n"})
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    return gone


def reviewed_in_process(tmp_path: Path) -> None:
    """A reviewer in this process, with the review kind, run until nothing is left to do."""
    clock = FakeClock()
    reviewer = in_process({"review": ReviewHandler(clock=clock)}, clock, tmp_path / "s.json")
    try:
        settle_down(reviewer)
    finally:
        reviewer.shutdown()


def test_a_commit_pruned_before_its_review_is_said_gone_once_and_finished(
    repo: Repo, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A landing reset away and pruned by gc before the reviewer got to it cannot be reviewed,
    now or at any retry: its item is finished at its first try and said once in the log.
    Before, it failed five times over minutes, was given up, and the one line told of it."""
    gone = landed_and_pruned(repo)
    pruned = subprocess.run(["git", "cat-file", "-e", gone], cwd=repo.path, check=False)
    assert pruned.returncode != 0
    caplog.set_level(logging.INFO, logger="landwatch")
    reviewed_in_process(tmp_path)
    assert done_ids(repo.git_dir) == [f"review-{gone}"]
    assert repo.pending() == [] and work_item.entries(repo.git_dir, work_item.FAILED) == []
    assert report_store.read(repo.git_dir, gone) is None
    assert [m for m in caplog.messages if "no longer in the repository" in m] == [
        f"review-{gone}: {gone[:12]} is no longer in the repository (reset away and pruned by "
        "gc): nothing to review"
    ]
    assert repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr == ""


def test_a_commit_pruned_from_a_partial_clone_is_gone_without_asking_the_remote(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A partial clone's git asks its remote for an object it lacks: asked whether the commit
    was still there, it fetched at every try, failed (the remote never had it), and the
    landing was tried five times and given up, told as a failure."""
    fetches = tmp_path / "fetches"
    clone = partial_clone(tmp_path, fetches)
    clone.install()
    gone = landed_and_pruned(clone)
    reviewed_in_process(tmp_path)
    assert done_ids(clone.git_dir) == [f"review-{gone}"]
    assert work_item.entries(clone.git_dir, work_item.FAILED) == []
    assert fetches.read_text() == ""


def test_a_review_whose_lines_could_hold_no_token_loads_no_rule_set_in_its_worker(
    repo: Repo,
) -> None:
    """Issue 40: every worker loaded kingfisher's rule set as it started (0.4 s and 44 MB in
    each of the reviewer's two), so a `reviewer --once` of one clean commit took 1.2 s. The
    first review whose lines hold what a match needs loads it (rule_anchors), as by hand."""
    from landwatch.review.secrets import provider_rules

    handler = ReviewHandler(clock=FakeClock())
    try:
        clean = repo.land("clean", {"a.py": "x = 1\n"})
        handler.handle(WorkItem(WorkKind.REVIEW, clean, repo.git_dir), reporter())
        assert handler.worker.call(reporter(), provider_rules.loaded) is False
        leaked = repo.land("a token", {"b.py": f'token = "{GITHUB_TOKEN}"\n'})
        handler.handle(WorkItem(WorkKind.REVIEW, leaked, repo.git_dir), reporter())
        assert handler.worker.call(reporter(), provider_rules.loaded) is True
        stored = report_store.read(repo.git_dir, leaked)
        assert stored is not None and stored.worst().name == "ERROR", stored
    finally:
        handler.close()
