"""P007 reads each line once: a line's strings and comments are found in time linear in it,
whatever it holds (docs/security.md, "Every review is bounded"). Adversarial lines of 10 KB,
100 KB and 1 MB, each naming a debugger so that it is scanned; ten times the line may take about
ten times as long, never a hundred. Only ratios of one run's CPU times are compared."""

from __future__ import annotations

import pytest

from landwatch.review.diffs import Line
from landwatch.review.rules.debuggers import debugger_lines
from support.timing import cpu_seconds

SIZES = (10_000, 100_000, 1_000_000)
MOST_GROWTH = 30.0

# (the file, how the line starts, what it repeats)
FAMILIES = {
    "escaped quotes": ("a.js", 'debugger; x = "', '\\"'),
    "escapes before a quote": ("a.js", "debugger; '", "\\a"),
    "empty strings": ("a.py", "import pdb; ", "''"),
    "unclosed strings": ("a.rb", "binding.pry ", "'\\"),
    "unclosed block comments": ("a.php", "xdebug_break(); ", "/* "),
    "closed block comments": ("a.js", "debugger; ", "/**/"),
    "a debugger's name again": ("a.rb", "", "debugger "),
    "statements": ("a.py", "", "breakpoint(); "),
}


def line_of(start: str, unit: str, size: int) -> list[Line]:
    text = start + unit * ((size - len(start)) // len(unit) + 1)
    return [Line(1, text[:size].encode(), b"\n")]


def seconds(path: str, lines: list[Line]) -> float:
    assert list(debugger_lines(path, lines)) == lines
    return cpu_seconds(lambda: list(debugger_lines(path, lines)))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_line_is_read_in_time_linear_in_it(family: str) -> None:
    path, start, unit = FAMILIES[family]
    times: list[float] = []
    for size in SIZES:
        times.append(seconds(path, line_of(start, unit, size)))
        if len(times) > 1:
            growth = times[-1] / max(times[-2], 1e-4)
            assert growth < MOST_GROWTH, (
                f"{family}: {size:,} characters took {growth:.0f} times as long as a tenth of "
                f"them ({times})"
            )
