"""Carrying a review over to a rewritten commit: only for the same tree on the same parent's tree,
with the same message (what else a review reads lives there), and the amend found in the
reflog."""

from __future__ import annotations

from collections.abc import Callable

from landwatch.git import dropped
from landwatch.review import rewrite
from landwatch.review.change import open_repository
from landwatch.review.findings import Severity
from landwatch.review.linters import NO_LINTERS
from support.repos import Repo
from support.review import TRUST_ANY, review
from support.tokens import GITHUB_TOKEN

BODY = "".join(f"line {n}\n" for n in range(1, 21))


def rebased(repo: Repo, files: dict[str, str | None], message: str = "topic") -> tuple[str, str]:
    """Land `files` on a topic branch, move main on with a clean change to `base.txt`, rebase
    the topic onto it: (the topic commit before, after)."""
    repo.git("checkout", "-q", "-b", "topic")
    before = repo.land(message, files, hooks=False)
    repo.git("checkout", "-q", "main")
    repo.land("upstream moves on", {"base.txt": "longer\n" * 12 + BODY}, hooks=False)
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "-q", "main")
    return before, repo.head()


def test_the_commits_after_a_reworded_one_carry_their_reviews(repo: Repo) -> None:
    repo.land("base", {"base.txt": BODY}, hooks=False)
    repo.land("one", {"a.txt": "one\n"}, hooks=False)
    before = repo.land("two", {"base.txt": BODY.replace("line 15\n", "line 15  \n")}, hooks=False)
    previous = review(repo, before)
    reword = "sed -i '1s/^pick/reword/'"
    repo.git(
        "rebase", "-q", "-i", "HEAD~2", GIT_SEQUENCE_EDITOR=reword, GIT_EDITOR="sed -i s/one/1/"
    )
    after = repo.head()
    assert after != before and repo.git("log", "-1", "--format=%s", "HEAD~1") == "1"
    carried = rewrite.carry_over(open_repository(repo.git_dir), after, previous, NO_LINTERS)
    assert carried is not None and carried.commit == after and carried.carried_from == before
    assert [(f.rule, f.line, f.fingerprint) for f in carried.findings] == [
        (f.rule, f.line, f.fingerprint) for f in previous.findings
    ]
    assert carried.label == after[:12]


def test_a_patch_rebased_onto_another_base_is_reviewed_anew(repo: Repo) -> None:
    """The same patch on a moved base: what the review reads beyond the patch may differ."""
    repo.land("base", {"base.txt": BODY}, hooks=False)
    before, after = rebased(repo, {"base.txt": BODY.replace("line 15\n", "line 15  \n")})
    previous = review(repo, before)
    assert rewrite.carry_over(open_repository(repo.git_dir), after, previous, NO_LINTERS) is None


def test_a_copied_secret_whose_first_holder_was_edited_is_an_error_again(repo: Repo) -> None:
    """The push gate's advice followed: the commit that first held a token is edited, and the
    commit after it, which copied the token and was told at info for it, is judged anew."""
    first = repo.land("configure", {"config.py": f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\n'}, hooks=False)
    script = f'#!/bin/sh\nGITHUB_TOKEN="{GITHUB_TOKEN}" ./release\n'
    before = repo.land("deploy", {"deploy.sh": script}, hooks=False)
    previous = review(repo, before)
    assert [(f.rule, f.severity) for f in previous.findings if f.rule == "S002"] == [
        ("S002", Severity.INFO)
    ]
    repo.git("checkout", "-q", first)
    repo.stage({"config.py": 'import os\nGITHUB_TOKEN = os.environ["GITHUB_TOKEN"]\n'})
    repo.git("commit", "-q", "--amend", "--no-edit")
    repo.git("cherry-pick", before)
    after = repo.head()
    assert rewrite.carry_over(open_repository(repo.git_dir), after, previous, NO_LINTERS) is None
    fresh = review(repo, after)
    assert [(f.rule, f.severity) for f in fresh.findings if f.rule == "S002"] == [
        ("S002", Severity.ERROR)
    ]


def test_another_patch_message_or_configuration_is_reviewed_anew(repo: Repo) -> None:
    git_repo = open_repository(repo.git_dir)
    first = repo.land("one", {"a.txt": "x  \n"}, hooks=False)
    previous = review(repo, first)
    repo.git("commit", "-q", "--amend", "-m", "reworded")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None
    repo.git("commit", "-q", "--amend", "-m", "one")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is not None
    repo.stage({"a.txt": "x  \ny\n"})
    repo.git("commit", "-q", "--amend", "-m", "one")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None
    repo.stage({"a.txt": "x  \n", ".landwatch.toml": "[rules.P001]\nseverity = 'error'\n"})
    repo.git("commit", "-q", "--amend", "-m", "one")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None


def test_an_amend_of_the_author_is_reviewed_anew(repo: Repo) -> None:
    """An audit: a bot's commit (no message rules, none on its changelog) amended with
    `--reset-author` carried the bot's review, so its conflict markers were no error and were
    pushed. A review reads the author: a bot's, the project's practice by author, Signed-off-by."""
    git_repo = open_repository(repo.git_dir)
    markers = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> theirs\n"
    bot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
    first = repo.land("bump", {"CHANGELOG.md": markers}, hooks=False, author=bot)
    previous = review(repo, first)
    assert not [f for f in previous.findings if f.severity is Severity.ERROR]
    repo.git("commit", "-q", "--amend", "--no-edit", "--date", "2020-01-01T00:00:00")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is not None
    repo.git("commit", "-q", "--amend", "--no-edit", "--reset-author")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None
    assert [f for f in review(repo, repo.head()).findings if f.severity is Severity.ERROR]


def test_a_rebase_onto_another_configuration_of_the_linters_is_reviewed_anew(repo: Repo) -> None:
    """The same patch on top of a changed `.pylintrc`: what the linters say may differ."""
    repo.git("checkout", "-q", "-b", "topic")
    before = repo.land("topic", {"t.txt": "x  \n"}, hooks=False)
    repo.git("checkout", "-q", "main")
    repo.land("upstream configures pylint", {".pylintrc": "[MAIN]\n"}, hooks=False)
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "-q", "main")
    previous = review(repo, before)
    git_repo = open_repository(repo.git_dir)
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None


def test_the_same_lines_amid_other_surroundings_are_another_patch(repo: Repo) -> None:
    """Patch ids carry three lines of context: a line added where its neighbours changed
    upstream is reviewed anew, not carried over."""
    repo.land("base", {"base.txt": BODY}, hooks=False)
    repo.git("checkout", "-q", "-b", "topic")
    before = repo.land("topic", {"base.txt": BODY.replace("line 10\n", "line 10\nadded  \n")})
    repo.git("checkout", "-q", "main")
    repo.land("upstream", {"base.txt": BODY.replace("line 8\n", "line eight\n")}, hooks=False)
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "-q", "main")
    previous = review(repo, before)
    assert (
        rewrite.carry_over(open_repository(repo.git_dir), repo.head(), previous, NO_LINTERS) is None
    )


def test_linters_held_back_then_and_allowed_now_mean_a_new_review(repo: Repo) -> None:
    config = (
        '[[linters]]\nname = "todo"\ncommand = ["grep", "-n", "TODO", "-"]\nformat = "regex"\n'
        "pattern = '^(?P<line>[0-9]+):(?P<message>.*)$'\nfiles = [\"*.txt\"]\n"
    )
    first = repo.land("one", {"a.txt": "x\n", ".landwatch.toml": config}, hooks=False)
    previous = review(repo, first)
    assert previous.linters_held_back is not None
    repo.git("commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00")
    git_repo = open_repository(repo.git_dir)
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is not None
    assert rewrite.carry_over(git_repo, repo.head(), previous, TRUST_ANY) is None


def gone(repo: Repo) -> Callable[[list[str]], set[str]]:
    """Of commits, those the person no longer has, as the kinds ask it (git.dropped)."""
    return lambda commits: dropped(repo.git_dir, commits) or set()


def test_the_commit_an_amend_replaced_is_found_in_the_reflog(repo: Repo) -> None:
    git_repo = open_repository(repo.git_dir)
    first = repo.land("one", hooks=False)
    assert rewrite.amended_from(git_repo, first, gone=gone(repo)) == ()
    repo.git("commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00")
    assert rewrite.amended_from(git_repo, repo.head(), gone=gone(repo)) == (first,)


def test_an_amend_is_found_however_often_head_moved_since(repo: Repo) -> None:
    """An audit: amended while the reviewer was down, then 33 branch switches before it ran: the
    amend was looked for in the newest 32 entries of HEAD's reflog only, and a finding read was
    told again (a date-only amend's review not carried over)."""
    first = repo.land("one", hooks=False)
    repo.git("commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00")
    amended = repo.head()
    repo.git("branch", "side")
    for _ in range(40):
        repo.git("checkout", "-q", "side")
        repo.git("checkout", "-q", "main")
    found = rewrite.amended_from(open_repository(repo.git_dir), amended, gone=gone(repo))
    assert found == (first,)


def test_an_amend_dated_ahead_of_the_moves_after_it_is_found(repo: Repo) -> None:
    """The reflog is walked back to the first entry older than the commit, but never fewer than
    the newest 32: a clock stepped back since, or a commit dated ahead, makes the moves after it
    look older."""
    first = repo.land("one", hooks=False)
    ahead = "@4102444800 +0000"  # 2100
    repo.git("commit", "-q", "--amend", "--no-edit", GIT_COMMITTER_DATE=ahead)
    amended = repo.head()
    repo.git("checkout", "-q", "-b", "side")
    found = rewrite.amended_from(open_repository(repo.git_dir), amended, gone=gone(repo))
    assert found == (first,)


def test_a_commit_made_again_after_a_reset_replaces_the_commit_reset_away(repo: Repo) -> None:
    """`git reset --soft HEAD~1 && git commit`, the amend by hand: the commit reset away is the
    one replaced, when the reset came just before the commit, took HEAD to the parent the two
    share, and no ref of the person's holds it any more (an audit: its finding read was told
    again)."""
    git_repo = open_repository(repo.git_dir)
    repo.land("base", hooks=False)
    first = repo.land("one", {"a.txt": "x  \n"}, hooks=False)
    repo.git("reset", "-q", "--soft", "HEAD~1")
    again = repo.land("one, again", {}, hooks=False)
    assert rewrite.amended_from(git_repo, again, gone=gone(repo)) == (first,)
    repo.git("branch", "kept", first)  # still the person's: not replaced
    assert rewrite.amended_from(git_repo, again, gone=gone(repo)) == ()
    repo.git("branch", "-q", "-D", "kept")
    # Reset further back and made again: a squash by hand, of every commit it went down past.
    base = repo.git("rev-parse", "HEAD~1")
    repo.git("reset", "-q", "--soft", "HEAD~2")
    lower = repo.land("one, lower", {}, hooks=False)
    assert rewrite.amended_from(git_repo, lower, gone=gone(repo)) == (base, again)
    # HEAD moved between the reset and the commit: not the amend by hand.
    repo.git("reset", "-q", "--soft", "HEAD~1")
    repo.git("checkout", "-q", "-b", "elsewhere")
    moved = repo.land("one, elsewhere", {}, hooks=False)
    assert rewrite.amended_from(git_repo, moved, gone=gone(repo)) == ()


SPLIT = (("a.txt", "x  \n"), ("b.txt", "y  \n"))


def test_each_part_of_a_commit_split_by_hand_replaces_it(repo: Repo) -> None:
    """`git reset HEAD~1`, then a commit of each part: every part replaces the commit reset
    away, not the first alone (an audit: the second part told again the finding read); parts
    made after HEAD moved elsewhere, or past MOST_PIECES, are new work."""
    git_repo = open_repository(repo.git_dir)
    repo.land("base", hooks=False)
    whole = repo.land("both", dict(SPLIT), hooks=False)
    repo.git("reset", "-q", "HEAD~1")
    parts = [repo.land(f"part {name}", {name: text}, hooks=False) for name, text in SPLIT]
    for part in parts:
        assert rewrite.amended_from(git_repo, part, gone=gone(repo)) == (whole,)
    repo.git("checkout", "-q", "-b", "elsewhere")
    repo.git("checkout", "-q", "main")
    after = repo.land("after a move", {"c.txt": "z\n"}, hooks=False)
    assert rewrite.amended_from(git_repo, after, gone=gone(repo)) == ()
    repo.git("branch", "-q", "-D", "elsewhere")
    repo.git("reset", "-q", "--hard", "HEAD~3")
    many = [repo.land(f"part {n}", hooks=False) for n in range(rewrite.MOST_PIECES + 2)]
    assert rewrite.amended_from(git_repo, many[rewrite.MOST_PIECES], gone=gone(repo)) != ()
    assert rewrite.amended_from(git_repo, many[-1], gone=gone(repo)) == ()


def test_a_reflog_entry_without_a_message_is_no_amend(repo: Repo) -> None:
    """What scripts and libgit2's tools write (`git update-ref` with no -m) has no message."""
    tree = repo.git("rev-parse", "HEAD^{tree}")
    made = repo.git("commit-tree", tree, "-p", "HEAD", "-m", "by a script")
    repo.git("update-ref", "refs/heads/main", made)
    assert "\t" not in (repo.git_dir / "logs" / "HEAD").read_text().splitlines()[-1]
    assert rewrite.amended_from(open_repository(repo.git_dir), made, gone=gone(repo)) == ()


def test_an_amend_or_autosquash_that_changed_only_white_space_is_reviewed_anew(repo: Repo) -> None:
    """git's patch id ignores white space, which is what P001, P003 and P006 read: an amend that
    fixed only that must not keep the review of the commit it replaced."""
    git_repo = open_repository(repo.git_dir)
    cases = {
        "trailing spaces": ("x = 1   \n", "x = 1\n"),
        "tabs to spaces": ("if x:\n\ty = 1\n", "if x:\n    y = 1\n"),
        "indentation": ("if x:\n  y = 1\n", "if x:\n    y = 1\n"),
        "line ends": ("x = 1\r\ny = 2\n", "x = 1\ny = 2\n"),
    }
    for name, (before, after) in cases.items():
        landed = repo.land(name, {f"{name}.py": before}, hooks=False)
        previous = review(repo, landed)
        repo.stage({f"{name}.py": after})
        repo.git("commit", "-q", "--amend", "--no-edit")
        assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None, name
    # A fixup! squashed in by `rebase -i --autosquash`, the same.
    landed = repo.land("spaces", {"s.py": "x = 1  \n"}, hooks=False)
    previous = review(repo, landed)
    repo.stage({"s.py": "x = 1\n"})
    repo.git("commit", "-q", "--fixup", landed)
    repo.git("rebase", "-q", "-i", "--autosquash", f"{landed}~", GIT_SEQUENCE_EDITOR="true")
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None
    # The same bytes amid the same lines, moved by a rebase: still carried (the test above).


def test_a_merge_rebased_onto_another_base_is_reviewed_anew(repo: Repo) -> None:
    """A rebase that changes only a merge's base (`--rebase-merges`): what the merge brings is
    another tree, though each side's patch may be the same; a merge's review is never carried."""
    repo.land("base", {"base.txt": BODY}, hooks=False)
    fork = repo.head()
    repo.git("checkout", "-q", "-b", "side")
    repo.land("side", {"side.txt": "x  \n"}, hooks=False)
    repo.git("checkout", "-q", "-b", "topic", fork)
    repo.land("topic", {"topic.txt": "y\n"}, hooks=False)
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merged = repo.head()
    previous = review(repo, merged)
    repo.git("checkout", "-q", "main")
    repo.land("upstream moves on", {"up.txt": "z\n"}, hooks=False)
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "-q", "--rebase-merges", "main")
    assert repo.head() != merged and len(repo.git("rev-parse", "HEAD^@").split()) == 2
    git_repo = open_repository(repo.git_dir)
    assert rewrite.carry_over(git_repo, repo.head(), previous, NO_LINTERS) is None
