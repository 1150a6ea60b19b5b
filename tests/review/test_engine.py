"""The review as a whole: configuration, suppressions, linters, plug-ins, outputs, commands, and
the review kind drained by the real reviewer."""

from __future__ import annotations

from support.repos import Repo
from support.review import found, review

# --- configuration ---------------------------------------------------------------------------


# --- suppressions and excludes ---------------------------------------------------------------


def test_inline_trailer_and_path_suppressions(repo: Repo) -> None:
    repo.land(
        "change",
        {
            "a.py": "x = 1  # landwatch: ignore[P001]  \ny = 2  # landwatch: ignore  \n"
            "z = 3  # landwatch: ignore[P007]  \n",
            "vendor/lib.js": "var a = 1;  \n",
            "app.min.js": "var b;  \n",
            "package-lock.json": '{"a": 1}  \n',
        },
        hooks=False,
    )
    assert found(review(repo)) == [("P001", "a.py", 3)]
    repo.land(
        "change",
        {
            ".landwatch.toml": 'exclude = ["generated/**"]\n',
            "generated/x.txt": "g  \n",
            "kept.txt": "k  \n",
        },
        hooks=False,
    )
    assert found(review(repo)) == [("P001", "kept.txt", 1)]
    repo.stage({"b.txt": "b  \n", "c.py": "import pdb\n"})
    repo.git(
        "commit",
        "-q",
        "-m",
        "subject\n\nbody\n\nLandwatch-Ignore: P001, debug-statement",
        LANDWATCH="0",
    )
    assert found(review(repo)) == []


# --- linters ---------------------------------------------------------------------------------


# --- plug-ins --------------------------------------------------------------------------------


# --- outputs ---------------------------------------------------------------------------------


def test_a_huge_file_gets_no_line_work_but_is_reported_large(repo: Repo) -> None:
    repo.land(
        "change", {"dump.sql": b"INSERT INTO t VALUES (1);  \n" * 400_000}, hooks=False
    )  # ~11 MB
    report_ = review(repo)
    assert found(report_) == [("P005", "dump.sql", None)]
    assert report_.lines_checked == 0
    assert any("dump.sql: larger than 8 MB" in note for note in report_.notes)


def test_secret_rules_read_the_commit_message_too(repo: Repo) -> None:
    token = "ghp_" + "Q7w2" * 9
    repo.land(f"Fix the deploy\n\nUse {token} until Monday.\n", {"a.txt": "a\n"}, hooks=False)
    report_ = review(repo)
    [finding] = [f for f in report_.findings if f.rule == "S002"]
    assert (finding.path, finding.line) == (None, 3)
    assert finding.snippet == "Use ghp_… until Monday." and token not in finding.message


# --- what the history shows is the project's practice ---------------------------------------

KEY_ID = "AKIA" + "QX7ZR4M2" * 2
OTHER_ID = "AKIA" + "LM3NP5QR" * 2


def test_a_secret_in_a_file_that_already_held_them_is_a_fixture(repo: Repo) -> None:
    first = repo.land("fixtures", {"tests/data/keys.txt": f"key = {KEY_ID}\n"}, hooks=False)
    told = review(repo, first)
    assert found(told, "S002") == [("S002", "tests/data/keys.txt", 1)]  # the first is told
    repo.land("more", {"tests/data/keys.txt": f"key = {KEY_ID}\nkey2 = {OTHER_ID}\n"}, hooks=False)
    quiet = review(repo)
    assert found(quiet, "S002") == []
    assert any("already held such values" in note for note in quiet.notes)
    # A test file beside them is a fixture too; a source file elsewhere is not.
    repo.land(
        "beside",
        {"tests/data/more.txt": f"k = {OTHER_ID}\n", "src/settings.py": f'K = "{OTHER_ID}"\n'},
        hooks=False,
    )
    assert found(review(repo), "S002") == [("S002", "src/settings.py", 1)]


def test_secrets_of_a_new_fixture_directory_land_together(repo: Repo) -> None:
    files = {f"testdata/leaks/{n}.env": f"AWS_KEY={KEY_ID[:-1]}{n}\n" for n in "ABC"}
    assert found(review(repo, repo.land("fixtures", files, hooks=False)), "S002") == []
    alone = repo.land("one", {"testdata/other/only.env": f"AWS_KEY={OTHER_ID}\n"}, hooks=False)
    assert len(found(review(repo, alone), "S002")) == 1


def test_fixtures_that_end_without_a_newline_keep_their_bytes(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("one more", {"tests/golden/3.out": "expected 3"}, hooks=False)
    report = review(repo)
    assert found(report, "P002") == []
    assert any("test fixtures whose files end that way" in note for note in report.notes)
    repo.land("elsewhere", {"src/config.ini": "a = 1"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "src/config.ini", 1)]


def test_a_burst_of_findings_is_one_finding_with_its_lines(repo: Repo) -> None:
    art = "".join(f"| cell {n} |   \n" for n in range(40)) + "ok\n" + "| end |  \n"
    repo.land("art", {"README.txt": art}, hooks=False)
    (burst,) = [f for f in review(repo).findings if f.rule == "P001"]
    assert burst.message == "trailing whitespace on 41 lines: 1-40, 42"
    assert (burst.line, burst.end_line) == (1, 42)
    repo.land("three", {"few.txt": "a \nb \nc \n"}, hooks=False)
    assert len([f for f in review(repo).findings if f.rule == "P001"]) == 3


def test_two_findings_of_one_rule_on_one_line_are_one(repo: Repo) -> None:
    repo.land("pair", {"ids.py": f'IDS = ("{KEY_ID}", "{OTHER_ID}")\n'}, hooks=False)
    (finding,) = [f for f in review(repo).findings if f.rule == "S002"]
    assert finding.message == "AWS access key ID (2 on this line)"


def test_message_findings_are_shown_under_the_message(repo: Repo) -> None:
    from rich.console import Console

    from landwatch.review import output

    repo.land(
        "A subject line that goes on and on, well past what anyone reads in a one-line log",
        hooks=False,
    )
    console = Console(record=True, width=200)
    output.render(review(repo), console)
    shown = console.export_text()
    assert "(the commit message, by its line numbers)" in shown
    assert "(the change as a whole)" not in shown.split("(the commit message")[0].split("\n", 1)[1]
