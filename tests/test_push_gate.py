"""The push gate's judgement (push_gate) with real git: git's pre-push lines read, the commits a
remote lacks (a remote oid never fetched, a URL, a new branch, a bound on whole histories), where
each review stands in the queues, and the verdict in commit order with what is allowed set apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch import allowances, layout, push_gate, push_heard, report_store
from landwatch.review import engine
from landwatch.review.allowed import Allowance
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from landwatch.review.rules.secrets import TokenFormat
from support.daemon import run_reviewer
from support.kinds import origin
from support.queue import oid
from support.repos import Repo
from support.tokens import GITHUB_TOKEN

ZERO = "0" * 40


@pytest.fixture
def remote(repo: Repo, tmp_path: Path) -> Path:
    return origin(repo, tmp_path / "remote.git")


def line(local: str, remote: str = ZERO, ref: str = "refs/heads/main") -> str:
    return f"{ref} {local} {ref} {remote}\n"


def test_git_s_lines_are_read_from_the_right_and_what_git_never_sends_is_an_error() -> None:
    sha256 = "a" * 64
    # The source as the person wrote it (`git push origin 'HEAD^{/fix it}:main'`) may hold
    # spaces; a ref name may hold U+2028 or U+0085, which are no line's end.
    spaced = f"HEAD^{{/fix 0 it}} {oid(4)} refs/heads/main {ZERO}\n"
    named = f"refs/heads/a\u2028b\x85c {oid(5)} refs/heads/a\u2028b\x85c {ZERO}\n"
    pushed = push_gate.parse(
        line(oid(1), oid(2)) + line(ZERO, oid(3)) + line(sha256) + spaced + named
    )
    assert [(p.local, p.remote) for p in pushed] == [
        (oid(1), oid(2)),
        (ZERO, oid(3)),
        (sha256, ZERO),
        (oid(4), ZERO),
        (oid(5), ZERO),
    ]
    assert [(p.deletion, p.new) for p in pushed] == [
        (False, False),
        (True, False),
        (False, True),
        (False, True),
        (False, True),
    ]
    assert [p.local_ref for p in pushed[3:]] == ["HEAD^{/fix 0 it}", "refs/heads/a\u2028b\x85c"]
    for garbage in ("garbage\n", "a b c d\n", f"{oid(1)} refs/heads/main {oid(2)}\n"):
        with pytest.raises(ValueError, match="not a line git writes"):
            push_gate.parse(line(oid(1)) + garbage)


def test_what_the_remote_lacks_and_nothing_it_holds(repo: Repo, remote: Path) -> None:
    held = repo.head()
    first, second = repo.land("one"), repo.land("two")
    found = push_gate.outgoing(
        repo.path, "origin", str(remote), push_gate.parse(line(second, held))
    )
    tracking = push_heard.Held([], ["--remotes=origin"], ("origin",))
    assert found == push_gate.Outgoing([second, first], held=tracking)
    # A remote oid this clone never fetched (a push forced over a teammate's) is passed by, not
    # an error; origin's tracking ref, which says otherwise, no longer stands for the remote.
    lines = line(second, oid(9))
    assert push_gate.outgoing(repo.path, "origin", str(remote), push_gate.parse(lines)).commits == [
        second,
        first,
        held,
    ]
    # A new branch: what the remote says it holds is not sent.
    topic = line(second, ref="refs/heads/topic")
    assert push_gate.outgoing(repo.path, "origin", str(remote), push_gate.parse(topic)).commits == [
        second,
        first,
    ]
    repo.git("push", "-q", "origin", "main")
    assert (
        push_gate.outgoing(repo.path, "origin", str(remote), push_gate.parse(topic)).commits == []
    )
    # Given a URL, the remotes at that URL say what it holds.
    assert (
        push_gate.outgoing(repo.path, str(remote), str(remote), push_gate.parse(topic)).commits
        == []
    )
    # A deletion sends nothing.
    assert push_gate.outgoing(
        repo.path, "origin", str(remote), push_gate.parse(line(ZERO, held))
    ) == (push_gate.Outgoing([]))


def test_only_a_remote_s_own_tracking_refs_say_what_it_holds(repo: Repo, tmp_path: Path) -> None:
    held, private = repo.head(), repo.land("private")
    for name in ("pub", "pub/internal", "pubs"):
        repo.git("remote", "add", name, str(tmp_path / f"{name}.git"))
    repo.git("update-ref", "refs/remotes/pub/main", held)
    # pub/internal's main, or pub's branch internal/main: git writes both there.
    repo.git("update-ref", "refs/remotes/pub/internal/main", private)

    def outgoing(remote: str) -> list[str]:
        lines = line(private, ref="refs/heads/topic")
        url = str(tmp_path / f"{remote}.git")
        return push_gate.outgoing(repo.path, remote, url, push_gate.parse(lines)).commits

    assert outgoing("pub") == [private]  # pub holds the first commit alone
    assert outgoing("pub/internal") == [private, held]  # none of them can be told its own


def test_a_marked_commit_only_tracking_refs_hold_is_taken_as_the_remote_says(
    repo: Repo, remote: Path
) -> None:
    """A push updating main sends past what the remote holds there a commit with a blocking
    marker that origin/feature holds: the remote is asked, and it is held only while the remote
    names feature (a branch deleted there stays here until a pruning fetch)."""
    repo.git("switch", "-q", "-c", "feature")
    leaked = repo.land("add a token", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    assert run_reviewer("--once").returncode == 0
    repo.git("push", "-q", "--no-verify", "origin", "feature")
    repo.git("switch", "-q", "main")
    held = repo.head()
    repo.git("merge", "-q", "--no-ff", "--no-edit", "feature")
    sent = push_gate.parse(line(repo.head(), held))
    found = push_gate.outgoing(repo.git_dir, "origin", str(remote), sent)
    assert found.commits == [repo.head()] and found.held.tips == sorted([held, leaked])
    repo.git("--git-dir", str(remote), "branch", "-qD", "feature")
    found = push_gate.outgoing(repo.git_dir, "origin", str(remote), sent)
    assert found.commits == [repo.head(), leaked] and found.held.tips == [held]


def test_a_whole_history_is_read_up_to_the_bound(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_gate, "MOST", 3)
    landed = [repo.land(f"c{n}", hooks=False) for n in range(5)]
    found = push_gate.outgoing(
        repo.path, "elsewhere", "elsewhere", push_gate.parse(line(landed[-1]))
    )
    assert found.commits == landed[:-4:-1] and found.more


def test_past_the_bound_a_commit_a_review_flagged_is_judged_too(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_gate, "MOST", 3)
    leaked = repo.land("add a token", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'})
    assert run_reviewer("--once").returncode == 0
    landed = [repo.land(f"c{n}", hooks=False) for n in range(5)]
    sent = push_gate.parse(line(landed[-1]))
    found = push_gate.outgoing(repo.git_dir, "origin", str(remote), sent)
    assert found.commits == [*landed[:-4:-1], leaked] and found.more


def test_past_the_bound_a_flagged_pull_is_judged_with_every_commit_of_its_range(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 1 of the fix above: a pull is one range review, its marker on the range's tip; past
    the bound the refusal named the tip alone, and the rebase it said to run, from the tip's
    parent, left the commit that added the key, which the next push sent."""
    monkeypatch.setattr(push_gate, "MOST", 3)
    repo.git("switch", "-q", "-c", "topic")
    leaked = repo.land("add a token", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'}, hooks=False)
    tip = repo.land("more", {"b.py": "x = 1\n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "topic")  # landed as one range, as a pull lands
    assert run_reviewer("--once").returncode == 0
    assert (layout.BLOCKING.path(repo.git_dir) / tip).exists()
    assert not (layout.BLOCKING.path(repo.git_dir) / leaked).exists()
    landed = [repo.land(f"c{n}", hooks=False) for n in range(5)]
    sent = push_gate.parse(line(landed[-1]))
    found = push_gate.outgoing(repo.git_dir, "origin", str(remote), sent)
    assert found.commits == [*landed[:-4:-1], tip, leaked] and found.more


def test_a_flagged_pull_among_the_newest_is_judged_with_its_range_past_them(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 2: a pull's tip among the newest commits read, its range reaching past them: the
    refusal named the tip alone, said to amend it, and the key went out with the next push."""
    monkeypatch.setattr(push_gate, "MOST", 3)
    repo.git("switch", "-q", "-c", "topic")
    leaked = repo.land("add a token", {"settings.py": f'token = "{GITHUB_TOKEN}"\n'}, hooks=False)
    topic = [repo.land(f"t{n}", {f"t{n}.py": "x = 1\n"}, hooks=False) for n in range(4)]
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "topic")
    assert run_reviewer("--once").returncode == 0
    on_top = repo.land("on top", hooks=False)
    sent = push_gate.parse(line(on_top))
    found = push_gate.outgoing(repo.git_dir, "origin", str(remote), sent)
    assert found.commits == [on_top, *topic[::-1], leaked] and found.more


def test_a_review_waits_while_its_item_is_in_a_queue(repo: Repo) -> None:
    landed = repo.land("reviewed soon")
    assert push_gate.waiting(repo.git_dir, [landed, oid(5)]) == {landed}
    repo.clear()
    assert push_gate.waiting(repo.git_dir, [landed]) == set()
    # A linked worktree's queue counts too.
    repo.git("worktree", "add", "-q", "-b", "side", str(repo.path.parent / "side"))
    side = Repo.existing(repo.path.parent / "side")
    there = side.land("in the other worktree")
    assert push_gate.waiting(repo.git_dir, [there]) == {there}


def finding(rule: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(rule, "a-rule", severity, "m", "a.py", 1, fingerprint=f"{rule}-print")


def test_the_verdict_follows_the_commits_and_sets_apart_what_is_allowed() -> None:
    reports = {
        oid(1): Report(oid(1), None, "commit", "", findings=[finding("S002"), finding("P010")]),
        oid(2): Report(oid(2), None, "commit", "", findings=[finding("P004")]),
    }

    tests = Allowance("used-in-tests", "me", 1.0, None, oid(2))

    def allowing(commit: str, found: Finding) -> Allowance | None:
        return tests if found.rule == "P004" else None

    verdict = push_gate.judge(reports, "secrets", allowing, order=[oid(1), oid(3), oid(2)])
    assert [(c, f.rule) for c, f in verdict.refused] == [(oid(1), "S002")]
    assert [(c, f.rule, a) for c, f, a in verdict.allowed] == [(oid(2), "P004", tests)]
    assert verdict.unjudged == [oid(3)]
    errors = push_gate.judge(reports, "errors", order=[oid(2), oid(1)])
    assert [f.rule for _, f in errors.refused] == ["P004", "S002", "P010"]
    assert push_gate.judge(reports, "off").refused == []


def test_the_hook_s_scan_runs_only_the_rules_a_push_is_refused_for(repo: Repo) -> None:
    landed = repo.land("trailing  ", {"a.py": 'x = 1   \nkey = "AKIAQX7ZR4M2QX7ZR4M2"\n'})
    scanned, unread, failed = push_gate.scan(repo.git_dir, [landed], 60)
    assert unread == [] and failed == {}
    assert {f.rule for f in scanned[landed].findings} == {"S002"}  # no P001, no M001

    ticks = iter(range(0, 1000, 100))
    scanned, unread, _ = push_gate.scan(repo.git_dir, [landed, landed], 50, lambda: next(ticks))
    assert scanned == {} and unread == [landed, landed]  # the time ran out before the first


@pytest.mark.parametrize("shape", ["merge", "range"])
def test_a_merge_is_judged_for_what_none_of_its_parents_has(repo: Repo, shape: str) -> None:
    """A merge's review read against its first parent (the default; a range from it, as `git
    merge` lands one) holds all the merge brought in, whose commits are judged on their own, or
    the remote holds them: the gate judges the merge's own places alone, under either policy,
    and scans a merge not reviewed for those alone."""
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"a.py": "a = 1\n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("main", {"b.py": "b = 1\n", "k.py": f'k = "{GITHUB_TOKEN}"\n'}, hooks=False)
    repo.git("switch", "-q", "topic")
    repo.git("merge", "-q", "--no-commit", "main", LANDWATCH="0")
    repo.stage({"c.py": "c = 1\n"})
    repo.git("commit", "-q", "--no-edit", LANDWATCH="0")
    merge = repo.head()
    found = [finding("P010"), finding("S002"), finding("P010"), finding("S002")]
    for each, path in zip(found, ["b.py", "k.py", "c.py", None], strict=True):
        each.path, each.fingerprint = path, f"{each.rule}-{path}"
    base = repo.git("rev-parse", "HEAD^") if shape == "range" else None
    kept = Report(merge, base, shape, "", findings=found)
    verdict = push_gate.verdict_of(repo.git_dir, [merge], {merge: kept}, "errors", 60)
    assert [(f.rule, f.path) for _, f in verdict.refused] == [("P010", "c.py"), ("S002", None)]
    scanned = push_gate.verdict_of(repo.git_dir, [merge], {}, "secrets", 60)
    assert scanned.refused == [] and scanned.unjudged == []


def test_notes_pushed_are_no_work_to_judge(repo: Repo, remote: Path) -> None:
    repo.git(
        "notes",
        "--ref=landwatch",
        "add",
        "-m",
        '{"snippet": "-----BEGIN OPENSSH PRIVATE KEY-----"}',
    )
    notes = repo.git("rev-parse", "refs/notes/landwatch")
    sent = push_gate.parse(line(notes, ref="refs/notes/landwatch"))
    assert sent[0].notes
    assert push_gate.outgoing(repo.path, "origin", str(remote), sent).commits == []


def test_the_gate_obeys_what_was_allowed_here_and_not_what_a_note_claims(repo: Repo) -> None:
    key = finding("S002")
    key.fingerprint = "0123456789abcdef0123"  # as findings' fingerprints are
    allowances.record(repo.git_dir, Allowance("fix-later", "me", 1.0, key.fingerprint, None))
    assert push_gate.allowing_in(repo.git_dir)(oid(1), key) is not None
    theirs = Allowance("false-positive", "mallory", 1.0, None, oid(2))
    carried = Report(oid(2), None, "commit", "", findings=[finding("P004")], allowed=[theirs])
    verdict = push_gate.judge({oid(2): carried}, "secrets", push_gate.allowing_in(repo.git_dir))
    assert [f.rule for _, f in verdict.refused] == ["P004"]


def test_a_review_cut_at_its_line_cap_is_read_on_by_the_gate(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = "".join(f"{n}\n" for n in range(30))
    landed = repo.land(
        "data, then a token",
        {
            ".landwatch.toml": "max_added_lines = 10\n",
            "data.csv": data,
            "z.py": f'k = "{GITHUB_TOKEN}"\n',
        },
    )
    kept = Report(landed, None, "commit", "", findings=[finding("P010")], truncated=True)
    verdict = push_gate.verdict_of(repo.git_dir, [landed], {landed: kept}, "errors", 60)
    # The scan read past the review's cap; what the review found stands beside it.
    assert [f.rule for _, f in verdict.refused] == ["P010", "S002"]
    assert verdict.unjudged == [] and verdict.cut == []
    # Past the gate's own bound, the commit is named as read only in part.
    monkeypatch.setattr(push_gate, "LINES", 20)
    verdict = push_gate.verdict_of(repo.git_dir, [landed], {landed: kept}, "secrets", 60)
    assert verdict.refused == [] and verdict.cut == [landed]
    # A review that read its whole change is its commit's verdict, nothing scanned.
    whole = Report(landed, None, "commit", "", findings=[])
    assert push_gate.verdict_of(repo.git_dir, [landed], {landed: whole}, "secrets", 60) == (
        push_gate.Verdict()
    )


def test_a_rule_a_push_is_refused_for_that_could_not_finish_leaves_the_commit_unchecked(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 92: a secret rule raising on what a file holds (a RecursionError, no memory) cost
    its findings there with a note, and the review was kept as read whole: no blocking marker,
    the gate trusted it, and the push went out unread and unsaid. Now that review is cut (its
    marker says unchecked), and the gate, whose own scan fails the same way, names the commit as
    not read (auto-push holds it back; the hook says so)."""
    scan = TokenFormat.check_lines

    def failing(rule: TokenFormat, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        if file.path == "hostile.txt":
            raise RecursionError("maximum recursion depth exceeded")
        return scan(rule, file, lines)

    monkeypatch.setattr(TokenFormat, "check_lines", failing)
    landed = repo.land("data", {"hostile.txt": f"{GITHUB_TOKEN}\n", "a.py": "a = 1\n"}, hooks=False)
    kept = engine.review(repo.git_dir, landed)
    assert kept.truncated and not kept.findings
    report_store.write(repo.git_dir, kept)
    assert (layout.BLOCKING.path(repo.git_dir) / landed).read_text() == "unchecked\n"
    verdict = push_gate.verdict_of(repo.git_dir, [landed], {landed: kept}, "secrets", 60)
    assert verdict.refused == [] and verdict.cut == [] and list(verdict.failed) == [landed]
    assert "S002 token-format could not finish on hostile.txt" in verdict.partly_read()


def test_only_a_notes_ref_pushed_to_a_notes_ref_is_notes(repo: Repo, remote: Path) -> None:
    landed = repo.land("a commit, not notes", {"a.py": "x = 1\n"})
    for source in ("HEAD", "refs/heads/main", landed):
        [sent] = push_gate.parse(f"{source} {landed} refs/notes/wip {ZERO}\n")
        assert not sent.notes
        assert push_gate.outgoing(repo.path, "origin", str(remote), [sent]).commits == [landed]


def test_the_annotated_tags_a_push_sends_are_found_with_the_tags_they_name(repo: Repo) -> None:
    head = repo.head()
    repo.git("tag", "light")
    repo.git("tag", "-a", "inner", "-m", "inner")
    repo.git("tag", "-a", "outer", "-m", "outer", "inner")
    inner, outer = repo.git("rev-parse", "inner"), repo.git("rev-parse", "outer")
    lines = (
        line(outer, ref="refs/tags/outer")
        + line(head, ref="refs/tags/light")
        + line(inner, inner, ref="refs/tags/inner")  # the remote holds it already
        + line(ZERO, oid(3), ref="refs/tags/gone")
    )
    assert push_gate.beside_commits(repo.git_dir, push_gate.parse(lines)) == (
        {outer: "refs/tags/outer", inner: "refs/tags/outer"},
        {},
    )
    assert push_gate.beside_commits(repo.git_dir, push_gate.parse(line(head))) == ({}, {})


def test_a_tag_s_message_is_judged_by_the_message_secret_rules(repo: Repo) -> None:
    repo.git("tag", "-a", "v1", "-m", f"release\n\nCI token {GITHUB_TOKEN}")
    repo.git("tag", "-a", "v2", "-m", "release two")
    sent, _ = push_gate.beside_commits(
        repo.git_dir, push_gate.parse(line(repo.git("rev-parse", "v1"), ref="refs/tags/v1"))
    )
    reports, failed = push_gate.tag_reports(repo.git_dir, sent)
    [(tag, report)] = reports.items()
    assert failed == {}
    verdict = push_gate.verdict_of(repo.git_dir, [tag], {tag: report}, "secrets", 60)
    [(refused_in, found)] = verdict.refused
    assert refused_in == tag and (found.rule, found.path, found.line) == ("S002", None, 3)
    assert GITHUB_TOKEN not in (found.snippet or "") + found.message
    v2 = repo.git("rev-parse", "v2")
    assert push_gate.tag_reports(repo.git_dir, {v2: "refs/tags/v2"})[0][v2].findings == []


def blob_and_tree(repo: Repo, files: dict[str, str]) -> tuple[str, str]:
    """A blob of the first of `files`, and a tree of them all, that no commit holds."""
    blobs = {
        name: repo.run("hash-object", "-w", "--stdin", stdin=text).stdout.strip()
        for name, text in files.items()
    }
    listing = "".join(f"100644 blob {blob}\t{name}\n" for name, blob in blobs.items())
    return next(iter(blobs.values())), repo.run("mktree", stdin=listing).stdout.strip()


def test_the_blobs_and_trees_a_push_sends_are_found_however_a_tag_names_them(repo: Repo) -> None:
    blob, tree = blob_and_tree(repo, {"a.txt": "a\n"})
    repo.git("tag", "-a", "inner", "-m", "a tree", tree)
    repo.git("tag", "-a", "outer", "-m", "the tag of a tag of a tree", "inner")
    outer, inner = repo.git("rev-parse", "outer"), repo.git("rev-parse", "inner")
    lines = (
        line(blob, ref="refs/tags/light")
        + line(outer, ref="refs/tags/outer")
        + line(repo.head(), ref="refs/tags/commit")
    )
    tags, contents = push_gate.beside_commits(repo.git_dir, push_gate.parse(lines))
    assert contents == {blob: ("blob", "refs/tags/light"), tree: ("tree", "refs/tags/outer")}
    assert tags == {outer: "refs/tags/outer", inner: "refs/tags/outer"}


def test_a_blob_or_tree_sent_is_scanned_as_a_commit_of_it_within_the_bounds(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = "".join(f"{n},{n * n}\n" for n in range(30))
    token = f'k = "{GITHUB_TOKEN}"\n'
    blob, _ = blob_and_tree(repo, {"k.py": token})
    _, tree = blob_and_tree(repo, {"data.csv": data, "z.py": token})
    verdict = push_gate.verdict_of(repo.git_dir, [blob, tree], {}, "secrets", 60)
    found = [(oid, f.rule, f.path, f.line) for oid, f in verdict.refused]
    assert found == [(blob, "S002", "(blob)", 1), (tree, "S002", "z.py", 1)]
    assert verdict.unjudged == [] and verdict.cut == []
    assert GITHUB_TOKEN not in str([(f.snippet, f.message) for _, f in verdict.refused])
    # Past the lines the gate reads, or out of time: named, not judged.
    monkeypatch.setattr(push_gate, "LINES", 20)
    verdict = push_gate.verdict_of(repo.git_dir, [tree], {}, "secrets", 60)
    assert verdict.refused == [] and verdict.cut == [tree]
    ticks = iter(range(0, 1000, 100))
    verdict = push_gate.verdict_of(repo.git_dir, [blob], {}, "secrets", 50, lambda: next(ticks))
    assert verdict.refused == [] and verdict.unjudged == [blob]


def test_what_attributes_keep_from_diffs_is_scanned_for_its_secrets(repo: Repo) -> None:
    """Attack 81: git's attributes (`-diff`, `binary`: the person's own here) made libgit2 call a
    file binary whatever it held, and the gate's scan read none of its lines, of a commit, a blob
    or a tree alike; its text is read by the secret rules, and binary content stays unread."""
    (repo.git_dir / "info").mkdir(exist_ok=True)
    (repo.git_dir / "info" / "attributes").write_text("* -diff\n")
    token = f'k = "{GITHUB_TOKEN}"\n'
    landed = repo.land("notebook", {"nb.ipynb": token, "a.png": "\x89PNG\0\n" + token})
    blob, tree = blob_and_tree(repo, {"k.json": token})
    verdict = push_gate.verdict_of(repo.git_dir, [landed, blob, tree], {}, "secrets", 60)
    found = [(oid, f.rule, f.path, f.line) for oid, f in verdict.refused]
    assert found == [
        (landed, "S002", "nb.ipynb", 1),
        (blob, "S002", "(blob)", 1),
        (tree, "S002", "k.json", 1),
    ]
    assert GITHUB_TOKEN not in str([(f.snippet, f.message) for _, f in verdict.refused])


def test_a_merge_s_own_lines_of_a_utf16_file_are_scanned_decoded(repo: Repo) -> None:
    """Attack 82: the lines a merge adds to a UTF-16 file both its parents hold, told apart from
    what it brought in by diffing it against its other parent as the first (diffs.lines_beyond,
    decoded as the review reads it; git's diff of the two calls them binary, and none was its
    own)."""
    lines = [f"$line{n} = {n}\r\n" for n in range(6)]
    repo.land("script", {"run.ps1": "".join(lines).encode("utf-16")}, hooks=False)
    repo.git("switch", "-q", "-c", "topic")
    repo.land(
        "topic", {"run.ps1": "".join([*lines, "$topic = 1\r\n"]).encode("utf-16")}, hooks=False
    )
    repo.git("switch", "-q", "main")
    repo.land("main", {"run.ps1": "".join(["$main = 1\r\n", *lines]).encode("utf-16")}, hooks=False)
    repo.git("merge", "-q", "--no-commit", "-s", "ours", "topic", LANDWATCH="0")
    token = f'$token = "{GITHUB_TOKEN}"\r\n'
    both = ["$main = 1\r\n", *lines[:3], token, *lines[3:], "$topic = 1\r\n"]
    repo.stage({"run.ps1": "".join(both).encode("utf-16")})
    repo.git("commit", "-q", "--no-edit", LANDWATCH="0")
    merge = repo.head()
    verdict = push_gate.verdict_of(repo.git_dir, [merge], {}, "secrets", 60)
    assert [(f.rule, f.path, f.line) for _, f in verdict.refused] == [("S002", "run.ps1", 5)]
