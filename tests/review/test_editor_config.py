"""What a project declared in its .editorconfig (review.editor_config), read from the landed
commit with EditorConfig's library: a section turning a check off turns its rule off for those
files, one turning it on keeps the finding whatever the history taught, and a glob runs in
time linear in the path."""

from __future__ import annotations

import time

from landwatch.review.editor_config import LONGEST_LINE, MOST_BYTES, EditorConfig, _matches
from landwatch.review.regexes import MOST_PATTERNS
from support.changes import Changes
from support.repos import Repo
from support.review import found, review
from support.timing import cpu_seconds

EDITORCONFIG = """root = true

[*]
trim_trailing_whitespace = true
insert_final_newline = true

[*.md]
trim_trailing_whitespace = false

[fixtures/**]
insert_final_newline = false

[*.snap]
insert_final_newline = false
"""


def test_a_section_that_turns_a_check_off_turns_its_rule_off(repo: Repo) -> None:
    repo.land("editorconfig", {".editorconfig": EDITORCONFIG}, hooks=False)
    repo.land(
        "change",
        {
            "README.md": "three spaces   \n",
            "app.py": "x = 1  \n",
            "fixtures/out.txt": "no newline",
            "ui/view.snap": "no newline",
            "src/main.py": "y = 2",
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("P001", "app.py", 1), ("P002", "src/main.py", 1)]
    assert "3 finding(s) not reported: the project's .editorconfig turns them off" in report.notes


def test_a_closer_file_wins_and_root_stops_the_walk(repo: Repo) -> None:
    repo.land(
        "editorconfig",
        {
            ".editorconfig": "[*]\ntrim_trailing_whitespace = false\n",
            "strict/.editorconfig": "root = true\n[*]\ntrim_trailing_whitespace = true\n",
            "loose/.editorconfig": "[*.py]\n",
        },
        hooks=False,
    )
    repo.land("change", {"strict/a.py": "x  \n", "loose/b.py": "y  \n"}, hooks=False)
    assert found(review(repo)) == [("P001", "strict/a.py", 1)]


def test_the_declaration_comes_from_the_landed_commit(repo: Repo) -> None:
    repo.land("change", {"app.py": "x = 1  \n"}, hooks=False)
    (repo.path / ".editorconfig").write_text("[*]\ntrim_trailing_whitespace = false\n")
    assert found(review(repo)) == [("P001", "app.py", 1)]  # the worktree's file is not read


def test_each_file_is_read_once_for_every_path_asked_about(changes: Changes) -> None:
    """A file was read again for each path with a finding: 7 s a path for a hostile tree's
    7 MB one. Fifty paths now take about what one takes."""
    filler = "".join(f"key{number} = value\n" for number in range(12_000))
    text = f"root = true\n[nothing/*]\n{filler}[*.py]\ntrim_trailing_whitespace = false\n"
    assert len(text) < MOST_BYTES
    change = changes.root({".editorconfig": text})

    def asked(paths: int) -> float:
        def ask() -> None:
            config = EditorConfig(change)  # afresh: nothing read yet
            for number in range(paths):
                assert config.settings(f"src/f{number}.py")["trim_trailing_whitespace"] == "false"

        return cpu_seconds(ask, tries=2)

    one, fifty = asked(1), asked(50)
    assert fifty / max(one, 1e-4) < 5, (one, fifty)


def test_what_is_past_the_bounds_is_not_read(repo: Repo) -> None:
    """A tree's .editorconfig files are read up to MOST_BYTES together, a note saying where the
    reading stopped, and no line longer than LONGEST_LINE (the library's own search of a long
    value is quadratic)."""
    comments = ("# " + "x" * 98 + "\n") * (MOST_BYTES // 100)
    off = "root = true\n[*]\ntrim_trailing_whitespace = false"
    for text in (f"{off}\n{comments}", off + " " * LONGEST_LINE + "\n"):
        repo.land("editorconfig", {".editorconfig": text}, hooks=False)
        repo.land("change", {"app.py": f"x = {len(text)}  \n"}, hooks=False)
        report = review(repo)
        assert found(report) == [("P001", "app.py", 1)]
        past = ".editorconfig: past 256 KB of the tree's .editorconfig files: not read"
        assert (past in report.notes) == (len(text) > MOST_BYTES)


def sections(count: int) -> str:
    return "root = true\n" + "".join(
        f"[dir{n}/**.py]\nindent_style = space\n" for n in range(count)
    )


def test_past_the_patterns_read_the_sections_are_not_read(repo: Repo) -> None:
    """Each section's glob is a search of every path asked about: 5,000 of them in 200 KB, and
    each one compiled again for each path (a cache of a thousand), took a 50-file review 12.6 s.
    Past MOST_PATTERNS sections of the tree's files together, no more is read, and a note says
    so."""
    off = "[*.py]\ntrim_trailing_whitespace = false\n"
    repo.land("editorconfig", {".editorconfig": sections(MOST_PATTERNS) + off}, hooks=False)
    repo.land("change", {"app.py": "x = 1  \n"}, hooks=False)
    report = review(repo)
    assert found(report) == [("P001", "app.py", 1)]
    past = f".editorconfig: past {MOST_PATTERNS:,} sections of the tree's .editorconfig files: "
    assert past + "the rest not read" in report.notes


def test_each_section_is_compiled_once_for_every_path(changes: Changes) -> None:
    def asked(count: int) -> float:
        change = changes.root({".editorconfig": sections(count)})

        def ask() -> None:
            config = EditorConfig(change)
            for number in range(20):
                config.settings(f"src/f{number}.py")

        return cpu_seconds(ask, tries=2)

    half, whole = asked(MOST_PATTERNS // 2), asked(MOST_PATTERNS)
    assert whole / max(half, 1e-4) < 6, (half, whole)  # twice the sections, not forty times


def test_a_section_glob_matches_in_time_linear_in_the_path() -> None:
    glob = "**/" + "*a" * 12 + "*b"  # exponential under a backtracking engine
    started = time.perf_counter()
    assert not _matches("/" + "a" * 200, glob, [])
    assert time.perf_counter() - started < 1.0
    assert _matches("/src/x.py", "**/*.{py,pyi}", [])
    assert _matches("/2.txt", "**/{1..3}.txt", []) and not _matches("/7.txt", "**/{1..3}.txt", [])


def test_a_section_that_cannot_be_used_is_a_note_in_every_review(repo: Repo) -> None:
    repo.land(
        "editorconfig",
        {".editorconfig": "[[z-a]]\ntrim_trailing_whitespace = false\n"},
        hooks=False,
    )
    for landed in ("one", "two"):  # the second review meets the glob a worker already compiled
        repo.land(landed, {f"{landed}.py": "x = 1  \n"}, hooks=False)
        report = review(repo)
        assert found(report) == [("P001", f"{landed}.py", 1)]
        assert any(note.startswith(".editorconfig: the section [") for note in report.notes)
