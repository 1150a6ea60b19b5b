"""Expected output is data (review.expected_output): trailing whitespace inside a string literal
a test compares byte for byte, or in a snapshot file, is not reported; the same whitespace in
the test's code, in a docstring or outside tests is, and the scan stays linear."""

from __future__ import annotations

from landwatch.review.expected_output import expected_output_lines
from support.repos import Repo
from support.review import found, review
from support.timing import cpu_seconds

GO_TEST = (
    "package cli\n"
    "\n"
    "// A comment with a ` backquote does not open a string.\n"
    "func TestHelp(t *testing.T) {\n"
    '\tquote := "a ` in a string"\n'
    "\texpected := `NAME:\n"
    "   app - a test   \n"
    "USAGE:   \n"
    "   app [options]`  \n"
    "\tcheck(t, quote, expected)\n"
    "}\n"
)


def test_a_go_raw_string_in_a_test_holds_expected_output() -> None:
    # Lines 6-8 end inside the raw string; line 9 ends after it closes.
    assert expected_output_lines("cli/help_test.go", GO_TEST.encode()) == {6, 7, 8}


def test_the_same_raw_string_outside_a_test_file_is_not_expected_output() -> None:
    assert expected_output_lines("cli/help.go", GO_TEST.encode()) == set()


def test_a_python_test_string_is_expected_output_and_a_docstring_is_not() -> None:
    source = (
        "def test_table():\n"
        '    """Prints the table.   \n'
        '    """\n'
        '    expected = """\\\n'
        "| a |   \n"
        '"""\n'
        "    # a comment with ''' does not open one\n"
        "    assert render() == dedent('''\n"
        "        x   \n"
        "        ''')\n"
    )
    assert expected_output_lines("tests/test_table.py", source.encode()) == {4, 5, 8, 9}
    assert expected_output_lines("src/table.py", source.encode()) == set()


def test_a_snapshot_file_is_expected_output_as_a_whole() -> None:
    for path in ("src/__snapshots__/view.test.js.snap", "tests/out.golden", "a.approved.txt"):
        assert expected_output_lines(path, b"x  \n") is None
    # snapbox's and insta's `snapshots/` directories, among the tests only.
    assert expected_output_lines("clap_mangen/tests/snapshots/help.roff", b"x  \n") is None
    assert expected_output_lines("src/snapshots/store.rs", b"x  \n") == set()


def test_a_snapshot_s_ending_is_the_output_it_recorded(repo: Repo) -> None:
    repo.land(
        "snapshots",
        {
            "tests/snapshots/usage.roff": ".TH my-app 1  \n\n\n",  # whitespace, blank lines
            "tests/snapshots/short.txt": "usage: app",  # no final newline
            "src/usage.txt": "usage: app",
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report, "P001") == found(report, "P013") == []
    assert found(report, "P002") == [("P002", "src/usage.txt", 1)]


def test_a_file_kept_byte_for_byte_keeps_its_whitespace_but_not_a_line_end_against_a_declaration(
    repo: Repo,
) -> None:
    # jekyll's test/source/.gitattributes says `* -text`; its .editorconfig `end_of_line = lf`.
    repo.land(
        "declarations",
        {
            ".gitattributes": "site/** -text\n",
            ".editorconfig": "root = true\n\n[*]\nend_of_line = lf\n",
            "site/plugin.rb": "module Site\nend\n",
        },
        hooks=False,
    )
    repo.land(
        "rewrite",
        {"site/plugin.rb": "module Site  \r\nend\r\n", "site/page.md": "title  \n"},
        hooks=False,
    )
    report = review(repo)
    # A person's file still, with the patch rules; its whitespace is its bytes to keep.
    assert found(report) == [("P014", "site/plugin.rb", 1)]
    assert not any(note.startswith("patch rules skipped") for note in report.notes)
    assert any("a file .gitattributes marks -text" in note for note in report.notes)


def test_the_review_spares_expected_output_and_says_so(repo: Repo) -> None:
    repo.land(
        "help output",
        {
            "cli/help_test.go": GO_TEST,
            "cli/help.go": "package cli\n\nvar x = 1  \n",
            "ui/__snapshots__/menu.test.js.snap": "exports[`menu 1`] = `\n  <ul>  \n`;\n",
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report, "P001") == [("P001", "cli/help.go", 3), ("P001", "cli/help_test.go", 9)]
    # Lines 7 and 8 of the Go test, line 2 of the snapshot.
    spared = "3 finding(s) not reported: lines of a test's expected output"
    assert any(note.startswith(spared) for note in report.notes)


def test_an_unterminated_literal_runs_to_the_end_in_linear_time() -> None:
    def seconds(size: int) -> float:
        go, python = b"`" + b"/* '\\\n" * size, b'"""' + b"\\'''\n" * size
        return cpu_seconds(
            lambda: (
                expected_output_lines("x_test.go", go),
                expected_output_lines("tests/test_x.py", python),
            )
        )

    # Ten times the input, about ten times the time; a quadratic scan would take a hundred. The
    # smaller input fits the processor's cache and the larger does not: on this machine that
    # alone made it 25 to 35 times (seen at 20,000 and 50,000 lines), so the bound is 50.
    assert seconds(200_000) < max(seconds(20_000), 0.001) * 50
