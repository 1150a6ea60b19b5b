"""What the project's hooks said, as findings (review.project_hooks.results): a failing hook's
`path:line:` lines placed on the lines the change added and the rest left out with a note, its
output cut and redacted otherwise, the files a fixing hook changed; and the result joining the
commit's review."""

from __future__ import annotations

from landwatch.review.findings import MAX_PLACED, Finding, Severity
from landwatch.review.project_hooks.fixed import FileFix, Hunk
from landwatch.review.project_hooks.output import HookOutcome
from landwatch.review.project_hooks.results import (
    MAX_OUTPUT_CHARS,
    MAX_OUTPUT_LINES,
    HooksResult,
    Landed,
    findings_of,
    joined,
    shortened,
    told_once,
)
from landwatch.review.report import Report
from support.timing import cpu_seconds
from support.tokens import GITHUB_TOKEN

CONTENT = {"app.py": b"import os\nx = 1\ny = 2\n", "notes.txt": b"one\n"}
LANDED = Landed({"app.py": {2, 3}, "notes.txt": {1}}, CONTENT.get)


def failed(hook_id: str, *output: str, modified: bool = False) -> HookOutcome:
    return HookOutcome(hook_id, hook_id.title(), "failed", 1, modified, list(output))


def test_a_hook_s_places_are_kept_to_the_lines_the_change_added() -> None:
    outcome = failed("pyflakes", "app.py:1:1: 'os' imported but unused", "app.py:3:1: bad y")
    found, notes = findings_of([outcome], LANDED, [])
    assert [(f.rule, f.path, f.line, f.message, f.snippet) for f in found] == [
        ("hook:pyflakes", "app.py", 3, "bad y", "y = 2")
    ]
    assert found[0].severity is Severity.ERROR and notes == []
    declared = findings_of([outcome], LANDED, [], ".pre-commit-config.yaml")[0][0]
    assert str(declared.basis) == "declared: .pre-commit-config.yaml"  # the project's standard


def test_a_hook_naming_every_line_of_a_large_file_is_read_once_and_kept_bounded() -> None:
    """A generated file of 20,000 lines and a hook naming each (an attack on the reviewer's
    time: each finding read the file out of git and split it again, 8 s; the result ran to
    tens of MB): the file is read once, the first MAX_PLACED kept, the rest said in a note."""
    count = 20_000
    reads: list[str] = []

    def content(path: str) -> bytes:
        reads.append(path)
        return b"".join(b"x%d = %d  # TODO\n" % (n, n) for n in range(1, count + 1))

    landed = Landed({"gen.py": set(range(1, count + 1))}, content)
    outcome = failed("todo", *(f"gen.py:{n}: TODO" for n in range(1, count + 1)))
    found, notes = findings_of([outcome], landed, [])
    assert reads == ["gen.py"]
    assert len(found) == MAX_PLACED
    assert (found[0].line, found[0].snippet) == (1, "x1 = 1  # TODO")
    assert (found[-1].line, found[-1].snippet) == (
        MAX_PLACED,
        f"x{MAX_PLACED} = {MAX_PLACED}  # TODO",
    )
    assert notes == [
        f"hook todo named {count - MAX_PLACED:,} more lines this change added than the "
        f"{MAX_PLACED:,} kept: run the hooks yourself to see every one"
    ]


def test_the_findings_of_all_the_hooks_are_kept_to_a_thousand_with_a_note() -> None:
    """Three hooks each naming 600 added lines, and a fixer changing two files: 1,802 findings
    were kept, each hook's cap (MAX_PLACED) its own; the result keeps MAX_PLACED in all, each
    hook's first before any hook's second."""
    lines = set(range(1, 601))
    landed = Landed({"gen.py": lines, "a.py": {1}}, lambda path: b"x\n" * 600)
    hooks = [failed(f"check{n}", *(f"gen.py:{line}: no" for line in lines)) for n in range(3)]
    fixer = failed("fmt", modified=True)
    found, notes = findings_of([*hooks, fixer], landed, ["gen.py", "a.py"])
    rules = [f.rule for f in found]
    assert len(found) == MAX_PLACED and rules[599:601] == ["hook:check0", "hook:check1"]
    assert (rules.count("hook:check1"), rules[-2:]) == (398, ["hook:check2", "hook:fmt"])
    assert notes == [
        f"the project's hooks made 802 more findings than the {MAX_PLACED:,} kept: run the "
        "hooks yourself to see every one"
    ]


def test_fixing_hooks_and_the_files_they_changed_are_read_in_time_linear_in_them() -> None:
    """Hooks that each said they changed files (a hook's output forging such blocks made one
    each) on four files: each hook's sight of each file looked through every fixer of it, and
    each fix counted its hook's files in every file's list: 16,000 took 32 s. Twenty times the
    hooks take about twenty times as long; what is kept stays MAX_PLACED."""
    changed = ["a.py", "b.py", "c.py", "d.py"]
    landed = Landed({path: {1} for path in changed}, lambda path: b"x\n")

    def outcomes(count: int) -> list[HookOutcome]:
        return [failed(f"h{n}", modified=True) for n in range(count)]

    small, large = outcomes(200), outcomes(4000)
    few = cpu_seconds(lambda: findings_of(small, landed, changed))
    many = cpu_seconds(lambda: findings_of(large, landed, changed))
    assert many < 60 * max(few, 0.001)  # twenty times the hooks: not 400 times the time
    found, notes = findings_of(large, landed, changed)
    assert len(found) == MAX_PLACED and notes[-1].startswith("the project's hooks made 15,000 more")


def test_a_place_under_its_message_takes_that_message() -> None:
    full = [
        "F401 [*] `os` imported but unused",
        " --> app.py:1:8",
        "",
        "E225 bad",
        " --> app.py:2:2",
    ]
    found, notes = findings_of([failed("ruff", *full)], LANDED, [])
    assert [(f.line, f.message) for f in found] == [(2, "E225 bad")]
    assert notes == []


def test_a_hook_failing_only_on_lines_the_change_did_not_add_is_a_note() -> None:
    found, notes = findings_of([failed("mypy", "app.py:1: error: old")], LANDED, [])
    assert found == []
    assert notes == ["hook mypy failed on lines this change did not add only (1 left out)"]


def test_a_hook_that_names_no_place_is_a_finding_with_its_output() -> None:
    found, _ = findings_of([failed("shellcheck", "something is wrong", "  twice")], LANDED, [])
    [finding] = found
    assert finding.path is None and finding.line is None
    assert finding.message == "the hook failed (exit code 1)"
    assert finding.snippet == "something is wrong\n  twice"
    quiet = HookOutcome("quiet", "Quiet", "failed", 3)
    assert (
        findings_of([quiet], LANDED, [])[0][0].message
        == "the hook failed (exit code 3), saying nothing"
    )


def test_passed_and_skipped_hooks_say_nothing() -> None:
    outcomes = [HookOutcome("a", "A", "passed", output=["x"]), HookOutcome("b", "B", "skipped")]
    assert findings_of(outcomes, LANDED, []) == ([], [])


def test_each_file_a_fixing_hook_changed_is_a_finding_in_its_name() -> None:
    fixer = failed("end-of-file-fixer", "Fixing notes.txt", modified=True)
    found, _ = findings_of([fixer, failed("other", "also failed")], LANDED, ["notes.txt"])
    fixes = [f for f in found if f.path == "notes.txt"]
    assert [(f.rule, f.name, f.severity) for f in fixes] == [
        ("hook:end-of-file-fixer", "End-Of-File-Fixer", Severity.WARNING)
    ]
    assert fixes[0].message == "the hook changes this file (`landwatch show COMMIT --patch`)"
    # The fixer's own failure is the change it made; another hook's failure is its own.
    assert [f.rule for f in found if f.path is None] == ["hook:other"]


def test_a_fixer_that_changed_only_files_beside_the_change_is_a_finding_of_none() -> None:
    """A formatter of the whole checkout fixing a file the change did not bring: not the
    commit's, so neither a fix of it nor the hook's failure (the change it made) is a finding;
    a hook naming only such a file changed none of the change's."""
    eof = failed("eof", "Fixing old.py", modified=True)
    assert findings_of([eof], LANDED, [], beside=["old.py"]) == ([], [])
    fmt = failed("fmt", modified=True)
    found, _ = findings_of([eof, fmt], LANDED, ["app.py"], beside=["old.py"])
    assert [(f.rule, f.path) for f in found] == [("hook:fmt", "app.py")]


def test_a_hook_after_a_fixer_is_read_on_the_committed_file() -> None:
    # The fixer took line 1 (`import os`) away: the checker's line 1 is the committed line 2.
    fix = FileFix((Hunk(1, 1, 0, 0),), (Hunk(1, 1, 0, 0),))
    landed = Landed({"app.py": {1, 2, 3}}, CONTENT.get, "c" * 40, {"app.py": fix})
    fixer = failed("ruff", "Found 1 error (1 fixed, 0 remaining).", modified=True)
    checker = failed("check", "app.py:1: x is set", "app.py:2: y is set")
    found, _ = findings_of([fixer, checker], landed, ["app.py"])
    assert [(f.rule, f.line, f.snippet, f.message) for f in found] == [
        ("hook:check", 2, "x = 1", "x is set"),
        ("hook:check", 3, "y = 2", "y is set"),
        (
            "hook:ruff",
            1,
            "import os",
            "fixed 1 error: line 1 changed (`landwatch show ccccccc --patch`)",
        ),
    ]
    # A checker before the fixer read the committed file.
    found, _ = findings_of([checker, fixer], landed, ["app.py"])
    assert [(f.line, f.snippet) for f in found[:2]] == [(1, "import os"), (2, "x = 1")]


def test_a_line_a_fixer_changed_or_that_no_one_file_holds_is_said_so() -> None:
    # Line 2 replaced: a check of it after the fix is on the line the fixer changed.
    replaced = FileFix((Hunk(2, 1, 2, 1),), (Hunk(2, 1, 2, 1),))
    landed = Landed({"app.py": {1, 2, 3}}, CONTENT.get, "c" * 40, {"app.py": replaced})
    fixer = failed("fmt", modified=True)
    checker = failed("check", "app.py:2: odd")
    [placed, _] = findings_of([fixer, checker], landed, ["app.py"])[0]
    assert (placed.line, placed.snippet) == (2, "x = 1")
    assert placed.message == "odd (said of line 2 as the hooks before it left it: they changed it)"
    # Fixers before and after the check moved lines: which file it read cannot be told.
    [unknown, *_] = findings_of([fixer, checker, fixer], landed, ["app.py"])[0]
    assert (unknown.path, unknown.line, unknown.snippet) == ("app.py", None, None)
    assert unknown.message.startswith("odd (said of line 2 as the hooks before it left the file;")


def test_a_problem_a_rule_and_its_hook_both_found_is_told_once() -> None:
    p001 = Finding(
        "P001", "trailing-whitespace", Severity.WARNING, "trailing whitespace", "a.py", 3
    )
    p007 = Finding("P007", "debug-statement", Severity.WARNING, "debug statement", "a.py", 5)
    fix = Finding("hook:trailing-whitespace", "trim", Severity.WARNING, "fixed", "a.py", 3, 4)
    check = Finding("hook:debug-statements", "debug", Severity.ERROR, "pdb imported", "a.py", 5)
    elsewhere = Finding("hook:debug-statements", "debug", Severity.ERROR, "x", "b.py", 5)
    other = Finding("hook:ruff", "ruff", Severity.ERROR, "F401", "a.py", 3)
    review, left = told_once([p001, p007], [fix, check, elsewhere, other])
    assert left == [elsewhere, other]  # another file, a hook no rule stands for
    assert [(f.rule, f.severity, f.message) for f in review] == [
        (
            "P001",
            Severity.WARNING,
            "trailing whitespace (the project's hook trailing-whitespace reports it too: fixed)",
        ),
        (
            "P007",
            Severity.ERROR,
            "debug statement (the project's hook debug-statements reports it too: pdb imported)",
        ),
    ]
    assert review[1].fingerprint == p007.fingerprint and p007.severity is Severity.WARNING


def test_output_is_cut_and_a_secret_in_it_is_redacted() -> None:
    text = shortened([f"line {n}" for n in range(100)])
    assert text.splitlines()[-2:] == [f"line {MAX_OUTPUT_LINES - 1}", "(80 more lines)"]
    wide = shortened([f"line {n} " + "x" * 500 for n in range(100)])
    assert all(len(line) <= 300 for line in wide.splitlines())
    assert len(wide) < MAX_OUTPUT_CHARS + 30 and wide.endswith("more lines)")
    found, _ = findings_of([failed("leaky", f"token={GITHUB_TOKEN}")], LANDED, [])
    assert GITHUB_TOKEN not in (found[0].snippet or "")
    placed, _ = findings_of([failed("leaky", f"app.py:2: {GITHUB_TOKEN}")], LANDED, [])
    assert GITHUB_TOKEN not in placed[0].message and placed[0].line == 2


def test_the_result_joins_the_review_of_its_commit_only() -> None:
    review = Report("c" * 40, None, "commit", "cccccccccccc", notes=["reviewed"])
    review.findings.append(Finding("P001", "trailing-whitespace", Severity.WARNING, "x"))
    hooks = HooksResult("c" * 40, "ran", notes=["hooks ran"])
    hooks.findings.append(Finding("hook:x", "x", Severity.ERROR, "failed"))
    both = joined(review, hooks)
    assert both.summary() == "1 error, 1 warning" and both.notes == ["reviewed", "hooks ran"]
    assert review.summary() == "1 warning"  # the review itself as it was
    assert joined(review, HooksResult("d" * 40, "ran", findings=hooks.findings)) is review
    assert joined(review, None) is review


def test_a_result_reads_back_as_it_was_written() -> None:
    hooks = HooksResult("c" * 40, "stopped", ["pre-commit 4.0.1"], notes=["n"], patch="diff")
    hooks.findings.append(Finding("hook:x", "x", Severity.ERROR, "failed", "a.py", 3))
    hooks.hooks.append({"id": "x", "status": "failed", "tool": "pre-commit"})
    assert HooksResult.from_dict(hooks.as_dict()) == hooks
