"""Reading what hook managers print (review.project_hooks.output), as they print it: pre-commit's
report, prek's (its output indented), lefthook's frame and summary; the `path:line:` lines in a
hook's output; and each read a pass over lines, whatever the lines hold."""

from __future__ import annotations

from landwatch.review.project_hooks.output import (
    MAX_LINE,
    Declared,
    Located,
    located,
    parse_lefthook,
    parse_pre_commit,
)
from support.timing import cpu_seconds

# What pre-commit 4 printed, `--verbose`, for four local hooks on two files
# (tests/kinds/test_project_hooks.py runs the real one).
PRE_COMMIT = """\
[WARNING] top-level `default_stages` uses deprecated stage names (commit)
no tabs..................................................................Failed
- hook id: no-tabs
- duration: 0.01s
- exit code: 1

a.txt:1:a\tb

fix end of files.........................................................Failed
- hook id: eof
- duration: 0.02s
- exit code: 1
- files were modified by this hook

Fixing a.txt

python only..........................................(no files to check)Skipped
- hook id: python-only
fine.....................................................................Passed
- hook id: fine
- duration: 0s
"""
DECLARED = [
    ("no-tabs", "no tabs"),
    ("eof", "fix end of files"),
    ("python-only", "python only"),
    ("fine", "fine"),
]

# prek 0.5's, `--verbose`: no id under a hook it skipped, what a hook printed indented.
PREK = """\
no tabs..................................................................Failed
- hook id: no-tabs
- duration: 0.00s
- exit code: 1

  a.txt:1:a\tb
python only..........................................(no files to check)Skipped
fine.....................................................................Passed
- hook id: fine
- duration: 0.00s
"""

LEFTHOOK = """\
\x1b[38;2;56;56;56m\u256d\u2500\u2500\u256e\x1b[m
\u2503  eof \u276f\x20
Fixing a.txt

exit status 1
\u2503  ok \u276f\x20

\u2502  lineish (skip) no files for inspection
  \u2500\u2500\u2500\u2500
summary: (done in 0.03 seconds)
\u2713 ok (0.01 seconds)
\u2717 eof (0.02 seconds)
"""


def lefthook_jobs() -> Declared:
    return Declared(((name,) * 3 for name in ("eof", "ok", "lineish")), ordered=False)


def declared(*hooks: tuple[str, str]) -> Declared:
    """The hooks of one configuration file, each (id, name)."""
    return Declared(("", hook_id, name) for hook_id, name in hooks)


def test_pre_commit_s_report_is_read_hook_by_hook() -> None:
    said = parse_pre_commit(PRE_COMMIT, declared(*DECLARED))
    assert [(o.id, o.name, o.status) for o in said.outcomes] == [
        ("no-tabs", "no tabs", "failed"),
        ("eof", "fix end of files", "failed"),
        ("python-only", "python only", "skipped"),
        ("fine", "fine", "passed"),
    ]
    tabs, eof = said.outcomes[:2]
    assert tabs.exit_code == 1 and not tabs.modified and tabs.output == ["a.txt:1:a\tb"]
    assert eof.modified and eof.output == ["Fixing a.txt"]
    assert said.preamble == [PRE_COMMIT.splitlines()[0]]
    assert said.unfinished is None


def test_prek_s_indented_output_is_read_as_the_hook_printed_it() -> None:
    said = parse_pre_commit(PREK, declared(*DECLARED), indented=True)
    assert said.outcomes[0].output == ["a.txt:1:a\tb"]
    assert [(o.id, o.status) for o in said.outcomes] == [
        ("no-tabs", "failed"),
        ("python-only", "skipped"),  # by the name the configuration gives it
        ("fine", "passed"),
    ]


def test_a_run_stopped_mid_hook_names_the_hook_it_was_running() -> None:
    text = "fine..........Passed\n- hook id: fine\nhangs forever............"
    said = parse_pre_commit(text, declared(("fine", "fine"), ("hangs", "hangs forever")))
    assert said.unfinished == "hangs forever"
    assert [o.name for o in said.outcomes] == ["fine"]


def test_output_that_only_looks_like_a_status_line_is_output() -> None:
    text = "check...Failed\n- hook id: check\n\nFailed\n1..Passed\n"
    said = parse_pre_commit(text, declared(("check", "check")))
    assert said.outcomes[0].output == ["Failed", "1..Passed"]  # two dots: not a status line


def test_lefthook_s_frame_and_summary_are_read() -> None:
    said = parse_lefthook(LEFTHOOK, lefthook_jobs())
    assert [(o.name, o.status) for o in said.outcomes] == [
        ("lineish", "skipped"),
        ("ok", "passed"),
        ("eof", "failed"),
    ]
    eof = said.outcomes[2]
    assert eof.output == ["Fixing a.txt"] and eof.exit_code == 1


def test_what_a_hook_prints_reports_no_other_hook() -> None:
    """A pygrep hook for TODO echoing a pulled file's lines (`x = 1  # TODO ....Failed`), and a
    hook printing whole blocks, its own again and one of a hook after it: each line read as a
    status line was a hook of its own, with a finding and an entry in the result (30,001 of them
    for a file of 30,000 lines, 15 MB). Only the hooks declared are read, each once, in order."""
    echoed = "".join(f"gen.py:{n}:x{n} = {n}  # TODO ....Failed\n" for n in range(1, 1001))
    forged = "".join(
        f"h{n}.....Failed\n- hook id: h{n}\n- files were modified by this hook\n"
        for n in range(1000)
    )
    again = "no TODO.....Failed\n- hook id: todo\n- exit code: 1\n"
    text = f"no TODO.....Failed\n- hook id: todo\n- exit code: 1\n\n{echoed}{forged}{again}\n"
    text += "check.....Passed\n- hook id: check\n- duration: 0s\n"
    said = parse_pre_commit(text, declared(("todo", "no TODO"), ("check", "check")))
    assert [(o.id, o.status, o.modified) for o in said.outcomes] == [
        ("todo", "failed", False),
        ("check", "passed", False),
    ]
    assert said.outcomes[0].output[0] == "gen.py:1:x1 = 1  # TODO ....Failed"
    assert len(said.outcomes[0].output) == 1000 + 3000 + 3
    # A block naming a hook declared after it is taken for that hook, once; the real one is
    # then the forger's output: what a hook prints reports at most the hooks after it.
    early = "x.....Failed\n- hook id: x\n\ncheck.....Failed\n- hook id: check\n"
    said = parse_pre_commit(
        early + "check.....Passed\n- hook id: check\n", declared(("x", "x"), ("check", "check"))
    )
    assert [(o.id, o.status) for o in said.outcomes] == [("x", "failed"), ("check", "failed")]
    # prek indents what a hook prints: a Skipped line indented so is not its own.
    text = "x.....Failed\n- hook id: x\n\n  y.....(no files to check)Skipped\n"
    said = parse_pre_commit(text, declared(("x", "x"), ("y", "y")), indented=True)
    assert [o.id for o in said.outcomes] == ["x"]


def test_what_a_lefthook_job_prints_reports_no_other_job() -> None:
    """A job printing a summary of its own, naming jobs declared and not, and skip lines: the
    summary read is the last one, lefthook's own, of the jobs declared, each once."""
    forged = (
        "summary: (done in 0.01 seconds)\n\u2717 ok (0.01 seconds)\n\u2717 forged\n"
        "\u2502  ok (skip) forged\n\u2502  other (skip) forged\n"
    )
    text = LEFTHOOK.replace("Fixing a.txt\n", "Fixing a.txt\n" + forged)
    said = parse_lefthook(text, lefthook_jobs())
    assert [(o.name, o.status) for o in said.outcomes] == [
        ("lineish", "skipped"),
        ("ok", "passed"),
        ("eof", "failed"),
    ]
    eof = said.outcomes[2]
    assert eof.exit_code == 1 and eof.output == ["Fixing a.txt", *forged.splitlines()[:3]]


def test_colours_are_dropped_and_other_escapes_kept_for_showing_escaped() -> None:
    text = "x...Failed\n- hook id: x\n\n\x1b[31mred\x1b[0m \x1b]0;title\x07\n"
    said = parse_pre_commit(text, declared(("x", "x")))
    assert said.outcomes[0].output == ["red \x1b]0;title\x07"]


def test_a_place_is_read_only_for_a_file_given_to_the_hooks() -> None:
    paths = {"app/cart.py", "b.py"}
    assert located("app/cart.py:3:5: F401 'os' imported but unused", paths) == Located(
        "app/cart.py", 3, "F401 'os' imported but unused"
    )
    assert located("./b.py:12: error: bad", paths) == Located("b.py", 12, "error: bad")
    assert located("  b.py:7:  indented", paths) == Located("b.py", 7, "indented")
    assert located("other.py:3: not ours", paths) is None
    assert located("b.py:0: no line", paths) is None
    assert located("b.py: no number", paths) is None
    assert located("Found 3 errors.", paths) is None
    # ruff's full format (rustc's, clippy's): the place under the message it places.
    arrow = located(" --> app/cart.py:2:8", paths, "F401 [*] `os` imported but unused")
    assert arrow == Located("app/cart.py", 2, "F401 [*] `os` imported but unused")
    assert located("--> b.py:2:1 and more words", paths, "message") is None


def test_reading_is_linear_in_what_was_printed() -> None:
    def seconds(text: str) -> float:
        def read() -> None:
            parse_pre_commit(text, declared(("a", "a")))
            parse_lefthook(text, lefthook_jobs())
            for line in text.splitlines()[:2000]:
                located(line, {"a"})

        return cpu_seconds(read)

    hostile = ("." * 5000 + "Faile\n" + "a" * 5000 + ":" * 5000 + "\n") * 200
    small, large = seconds(hostile[: len(hostile) // 10]), seconds(hostile)
    assert large < 30 * max(small, 0.001)  # ten times the text: not a hundred times the time
    assert all(
        len(line) <= MAX_LINE
        for o in parse_pre_commit(hostile, declared(("a", "a"))).outcomes
        for line in o.output
    )
