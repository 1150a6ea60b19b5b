"""What the fixing hooks did, line by line (review.project_hooks.fixed): a line of the fixed file
found in the committed one, which hook read a file as which, which hooks changed which file, and
what a fixer said it fixed (ruff's and pre-commit-hooks' own words)."""

from __future__ import annotations

from landwatch.review.project_hooks.fixed import (
    AT_END,
    COMMITTED,
    UNKNOWN,
    FileFix,
    Hunk,
    changed_lines,
    committed_line,
    fixers_of,
    lines_fixed,
    reach_of,
    said_fixed,
    sight,
)
from landwatch.review.project_hooks.output import Declared, HookOutcome, parse_pre_commit

# What pre-commit printed (`--verbose`) for ruff --fix --show-fixes, then debug-statements, then
# trailing-whitespace and end-of-file-fixer (pre-commit-hooks 6), on two files.
PRINTED = """\
ruff.....................................................................Failed
- hook id: ruff
- duration: 0.02s
- exit code: 1
- files were modified by this hook

T100 Trace found: `breakpoint` used
 --> m.py:5:5
  |
5 |     breakpoint()
  |     ^^^^^^^^^^^^
  |

Fixed 1 error:
- m.py:
    1 \u00d7 F401 (unused-import)

Found 2 errors (1 fixed, 1 remaining).

debug statements (python)................................................Failed
- hook id: debug-statements
- exit code: 1

m.py:5:4: breakpoint called

trim trailing whitespace.................................................Failed
- hook id: trailing-whitespace
- exit code: 1
- files were modified by this hook

Fixing notes.txt

fix end of files.........................................................Passed
- hook id: end-of-file-fixer
- duration: 0.01s
"""
HOOKS = ("ruff", "debug-statements", "trailing-whitespace", "end-of-file-fixer")
OUTCOMES = parse_pre_commit(PRINTED, Declared(("", hook, hook) for hook in HOOKS)).outcomes


def test_a_line_of_the_fixed_file_is_found_in_the_committed_one() -> None:
    # Line 1 removed; line 5 replaced by two; a line added after line 9.
    hunks = [Hunk(1, 1, 0, 0), Hunk(5, 1, 4, 2), Hunk(9, 0, 9, 1)]
    assert committed_line(hunks, 1) == (2, False)
    assert committed_line(hunks, 3) == (4, False)
    assert committed_line(hunks, 4) == (5, True) and committed_line(hunks, 5) == (5, True)
    assert committed_line(hunks, 6) == (6, False) and committed_line(hunks, 8) == (8, False)
    assert committed_line(hunks, 9) == (9, True)  # added: the line before it
    assert committed_line(hunks, 10) == (10, False)
    assert committed_line([], 7) == (7, False)
    assert changed_lines(hunks) == [1, 5, 9]


def test_a_hook_reads_a_file_as_the_fixers_before_it_left_it() -> None:
    ruff, debug, trim, eof = range(4)

    def seen(index: int, fixers: list[int]) -> str:
        return sight(reach_of(OUTCOMES, fixers), index)

    assert seen(debug, []) == UNKNOWN  # changed by a hook that did not say so
    assert seen(ruff, [trim]) == COMMITTED
    assert seen(debug, [ruff]) == AT_END
    assert seen(ruff, [ruff]) == AT_END  # ruff --fix says what is left of its fix
    # trailing-whitespace moves no line; a fixer that may move lines after it leaves it unknown.
    assert seen(debug, [ruff, trim]) == AT_END
    assert seen(ruff, [ruff, debug]) == UNKNOWN
    assert eof == 3


def test_a_fixer_that_names_the_files_it_fixed_changed_those_only() -> None:
    by_file = fixers_of(OUTCOMES, ["m.py", "notes.txt"])
    # ruff names m.py (its rules fixed there); trailing-whitespace names notes.txt alone.
    assert by_file == {"m.py": [0], "notes.txt": [2]}
    silent = HookOutcome("ruff-format", "ruff-format", "failed", 1, True, ["1 file reformatted"])
    assert fixers_of([silent], ["a.py", "b.py"]) == {"a.py": [0], "b.py": [0]}


def test_a_fixer_naming_a_file_by_its_absolute_path_names_each_it_ends_in() -> None:
    isort = HookOutcome("isort", "isort", "failed", 1, True, ["Fixing /tmp/hooks-x/work/src/a.py"])
    changed = ["src/a.py", "a.py", "b.py", "other/src/a.py"]
    assert fixers_of([isort], changed) == {
        "src/a.py": [0],
        "a.py": [0],
        "b.py": [],
        "other/src/a.py": [],
    }


def test_what_a_fixer_fixed_in_a_file_is_in_its_own_words() -> None:
    ruff = said_fixed(OUTCOMES[0])
    assert ruff.of("m.py", only_file=True) == "fixed F401 (unused-import)"
    assert ruff.of("other.py", only_file=False) == ""
    summary = ["Found 3 errors (2 fixed, 1 remaining)."]
    counted = said_fixed(HookOutcome("ruff", "ruff", "failed", 1, True, summary))
    assert counted.of("a.py", only_file=True) == "fixed 2 errors"
    assert counted.of("a.py", only_file=False) == ""  # whose 2 cannot be told
    assert said_fixed(OUTCOMES[2]).of("notes.txt", only_file=True) == ""  # `Fixing notes.txt`


def test_two_fixers_of_one_file_share_its_lines_by_what_they_change() -> None:
    # Line 1 removed (ruff); line 4 changed at its end only (trailing-whitespace).
    fix = FileFix((Hunk(1, 1, 0, 0),), (Hunk(1, 1, 0, 0), Hunk(4, 1, 3, 1)))
    assert lines_fixed(fix, "ruff", shared=False) == [1, 4]
    assert lines_fixed(fix, "ruff", shared=True) == [1]
    assert lines_fixed(fix, "trailing-whitespace", shared=True) == [4]
    assert lines_fixed(None, "ruff", shared=True) == []
