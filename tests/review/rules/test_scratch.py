"""P017: a file added under tools' working state the project never held is told once per commit,
and nothing else in it but a secret; what the project held, or keeps by its .gitignore, and
what the tools' templates say is shared, are not."""

from __future__ import annotations

import subprocess
from pathlib import Path

from landwatch.review.findings import Severity
from landwatch.review.generated import LONGEST_LINE
from landwatch.review.regexes import MOST_PATTERNS
from landwatch.review.rules.scratch import KINDS, MAX_ANCESTORS, scratch_places
from support.changes import Changes
from support.repos import Repo
from support.review import KEY_ID, found, review, reviewed

PLAN = "# Plan\n\nStep one   \nStep two\n"


def test_the_places_of_tools_working_state_among_paths() -> None:
    places = scratch_places(
        [
            ".sisyphus/plans/a.md",
            ".sisyphus/notepads/b.md",
            "pkg/.sisyphus/x.json",
            "src/app.py.orig",
            "assets/.DS_Store",
            ".claude/settings.local.json",
            ".claude/worktrees/w/app.py",
            "app/.idea/workspace.xml",
            "src/.main.c.swp",
            "notes.txt~",
            ".aider.chat.history.md",
            "src/app_BACKUP_1234.py",
        ]
    )
    assert {place: paths for place, (_, paths) in places.items()} == {
        ".sisyphus": [".sisyphus/plans/a.md", ".sisyphus/notepads/b.md"],
        "pkg/.sisyphus": ["pkg/.sisyphus/x.json"],
        "src/app.py.orig": ["src/app.py.orig"],
        "assets/.DS_Store": ["assets/.DS_Store"],
        ".claude/settings.local.json": [".claude/settings.local.json"],
        ".claude/worktrees": [".claude/worktrees/w/app.py"],
        "app/.idea/workspace.xml": ["app/.idea/workspace.xml"],
        "src/.main.c.swp": ["src/.main.c.swp"],
        "notes.txt~": ["notes.txt~"],
        ".aider.chat.history.md": [".aider.chat.history.md"],
        "src/app_BACKUP_1234.py": ["src/app_BACKUP_1234.py"],
    }


def test_what_the_tools_templates_say_is_shared_is_no_scratch() -> None:
    shared = [
        ".claude/settings.json",
        ".claude/commands/review.md",
        ".claude/agents/tester.md",
        ".cursor/rules/style.mdc",
        ".aiderignore",
        ".aider.conf.yml",
        ".idea/codeStyles/Project.xml",
        "CLAUDE.md",
        "src/_schema.sql",
        "docs/icon.svg",
    ]
    assert scratch_places(shared) == {}
    assert all(kind.what for kind in KINDS)


def test_an_agents_plans_are_told_once_and_nothing_else_in_them(changes: Changes) -> None:
    change = changes.change(
        {
            ".sisyphus/plans/refactor.md": PLAN,
            ".sisyphus/notepads/notes.md": "one  \ntwo",
            "src/app.py": "x = 1  \n",
        }
    )
    report = reviewed(change)
    told = [f for f in report.findings if f.rule == "P017"]
    assert [(f.path, f.severity) for f in told] == [
        (".sisyphus/notepads/notes.md", Severity.WARNING)
    ]
    assert told[0].message == (
        "tools' working state added, which the project never held: an agent's working files "
        "(.sisyphus/ (2 files))"
    )
    assert found(report, ignore=("C002", "P017")) == [("P001", "src/app.py", 1)]
    assert "2 finding(s) not reported in 2 file(s) that do not belong in the commit" in report.notes


def test_a_secret_in_a_scratch_file_is_still_told(changes: Changes) -> None:
    change = changes.change({".claude/settings.local.json": f'{{"key": "{KEY_ID}"}}  \n'})
    rules = {f.rule for f in reviewed(change).findings}
    assert "P017" in rules and "S002" in rules and "P001" not in rules


def test_several_kinds_in_one_commit_are_one_finding(changes: Changes) -> None:
    change = changes.change(
        {"src/app.py.orig": "x = 1\n", "src/.DS_Store": b"\0\0\0\1Bud1", "a.rej": "--- a\n"}
    )
    told = [f for f in reviewed(change).findings if f.rule == "P017"]
    assert len(told) == 1
    assert told[0].message.endswith(
        ": a merge's leftovers (a.rej, src/app.py.orig); "
        "an operating system's folder metadata (src/.DS_Store)"
    )


def test_a_place_the_history_held_is_the_projects(changes: Changes) -> None:
    branch = changes.branch({"README.md": "hello\n"})
    first = branch.land({".sisyphus/plans/a.md": "plan\n"})
    assert found(reviewed(first), "P017") == [("P017", ".sisyphus/plans/a.md", None)]
    branch.land({".sisyphus/plans/a.md": None})
    again = branch.land({".sisyphus/plans/b.md": "plan\n"})
    assert found(reviewed(again), "P017") == []


def test_a_second_accidental_commit_before_a_push_is_told_again(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", str(upstream)], check=True)
    repo = Repo(tmp_path / "clone", clone_of=upstream)
    repo.land("start", {"src/app.py": "x = 1\n"}, hooks=False)
    repo.git("push", "-q", "origin", "HEAD")
    repo.land("oops", {".sisyphus/plans/a.md": PLAN}, hooks=False)
    assert found(review(repo), "P017") == [("P017", ".sisyphus/plans/a.md", None)]
    # Still not pushed: the first is the author's own slip, not the project's history.
    repo.land("oops again", {".sisyphus/plans/b.md": PLAN}, hooks=False)
    assert found(review(repo), "P017") == [("P017", ".sisyphus/plans/b.md", None)]
    # Once pushed, the place is the project's: what is added there later is not told.
    repo.git("push", "-q", "origin", "HEAD")
    repo.land("more", {".sisyphus/plans/c.md": PLAN}, hooks=False)
    assert found(review(repo), "P017") == []


def test_a_kind_of_file_the_tree_holds_elsewhere_is_the_projects(changes: Changes) -> None:
    before = {"tests/patches/one.orig": "a\n", "tests/patches/one.rej": "b\n"}
    change = changes.change({"tests/patches2/two.orig": "c\n"}, before=before)
    assert found(reviewed(change), "P017") == []


def test_a_place_the_gitignore_keeps_is_the_projects(changes: Changes) -> None:
    before = {".gitignore": ".sisyphus/*\n!.sisyphus/plans/\n*.orig\n"}
    change = changes.change(
        {".sisyphus/plans/a.md": "plan\n", "fixtures/input.orig": "x\n"}, before=before
    )
    assert found(reviewed(change), "P017") == [("P017", "fixtures/input.orig", None)]


def test_the_gitignore_is_read_no_further_than_its_bound(changes: Changes) -> None:
    """A hostile tree's .gitignore of 8 MB of `!` lines: each was a search of every path the
    rule asked of. Past MOST_PATTERNS, or on a line longer than git reads, nothing is kept."""
    many = "".join(f"!kept{number}/\n" for number in range(MOST_PATTERNS))
    long = "!.sisyphus/plans/" + " " * LONGEST_LINE + "\n"
    for ignored in (many + "!.sisyphus/plans/\n", long):
        change = changes.change({".sisyphus/plans/a.md": "plan\n"}, before={".gitignore": ignored})
        assert found(reviewed(change), "P017") == [("P017", ".sisyphus/plans/a.md", None)]


def test_history_is_read_no_further_than_its_bound(changes: Changes) -> None:
    branch = changes.branch({".sisyphus/a.md": "plan\n"})
    branch.land({".sisyphus/a.md": None})
    for number in range(MAX_ANCESTORS):
        branch.land({"counter.txt": f"{number}\n"})
    change = branch.land({".sisyphus/b.md": "plan\n"})
    assert found(reviewed(change), "P017") == [("P017", ".sisyphus/b.md", None)]


def test_through_git_a_ds_store_and_a_plan_are_told(repo: Repo) -> None:
    repo.land("start", {"src/app.py": "x = 1\n"}, hooks=False)
    repo.land("oops", {".sisyphus/plans/p.md": PLAN, "src/.DS_Store": "Bud1"}, hooks=False)
    report = review(repo)
    assert [
        f.rule for f in report.findings if f.path and f.path.startswith((".sis", "src/.D"))
    ] == ["P017"]
    repo.land("keep them", {".gitignore": "!.DS_Store\n", "lib/.DS_Store": "Bud1"}, hooks=False)
    assert found(review(repo), "P017") == []


def test_one_file_of_a_directory_is_counted_as_one(changes: Changes) -> None:
    report = reviewed(changes.change({".sisyphus/plans/p.md": PLAN, "a.py": "x = 1\n"}))
    (told,) = [f for f in report.findings if f.rule == "P017"]
    assert told.message.endswith("an agent's working files (.sisyphus/ (1 file))")


def test_every_kind_is_matched_at_any_depth_by_the_one_pattern_for_all() -> None:
    """`_any` factors out the prefix every kind's pattern starts with; a kind without it
    would be matched only at the root."""
    from landwatch.review.rules.scratch import _ANY_DEPTH, _any

    assert all(kind.under_regex.startswith(_ANY_DEPTH) for kind in KINDS)
    assert _any().match("deep/in/a/tree/.DS_Store") and _any().match(".sisyphus/plans/a.md")
    assert not _any().match("src/main.py")
