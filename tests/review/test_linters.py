"""The project's own linters: kept to the added lines, run outside the worktree, and every way a
linter can fail told, not raised."""

from __future__ import annotations

import base64
import json
import random
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from landwatch.review import engine
from landwatch.review.budget import Budget
from landwatch.review.findings import MAX_PLACED
from landwatch.review.linters import NOT_TRUSTED, LinterPolicy
from landwatch.wall.linters import runner
from support.repos import Repo
from support.review import found, regex_linter, review, reviewed_apart
from support.sandbox import AS_YOU
from support.tokens import github_token

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"


def ruff_config(filter_: str = "added") -> str:
    return textwrap.dedent(f"""\
        [[linters]]
        name = "ruff"
        command = [{json.dumps(RUFF)}, "check", "--no-cache", "--output-format=json",
                   "--stdin-filename", "{{path}}", "-"]
        files = ["*.py"]
        format = "ruff-json"
        filter = "{filter_}"
        """)


def python_linter(name: str, script: str, form: str, files: str, **more: str) -> str:
    """A `[[linters]]` entry running `script` with this Python, its output read as `form`;
    `more` its other keys, each value as TOML writes it."""
    entry = [
        "[[linters]]",
        f'name = "{name}"',
        f'command = [{json.dumps(sys.executable)}, "-c", {json.dumps(script)}]',
        f'format = "{form}"',
        f'files = ["{files}"]',
        *(f"{key} = {value}" for key, value in more.items()),
    ]
    return "\n".join(entry) + "\n"


def test_ruff_findings_are_kept_to_added_lines(repo: Repo) -> None:
    repo.land(
        "change",
        {
            "pyproject.toml": '[tool.ruff.lint]\nselect = ["F"]\n',
            ".landwatch.toml": ruff_config(),
            "m.py": "import os\n",
        },
        hooks=False,
    )
    repo.land("change", {"m.py": "import os\nimport sys\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert found(report_) == [("ruff:F401", "m.py", 2)]
    assert [f.snippet for f in report_.findings if f.rule == "ruff:F401"] == ["import sys"]
    assert report_.linters == [{"linter": "ruff", "path": "m.py", "status": "ok", "detail": ""}]
    repo.land("change", {".landwatch.toml": ruff_config("file")}, hooks=False)
    repo.land("change", {"m.py": "import os\nimport sys\nimport re\n"}, hooks=False)
    assert sorted(found(review(repo, linters=True))) == [
        ("ruff:F401", "m.py", 1),
        ("ruff:F401", "m.py", 2),
        ("ruff:F401", "m.py", 3),
    ]


def test_ruff_that_fixes_instead_of_reporting_is_named_with_the_cure(repo: Repo) -> None:
    # `fix = true` makes ruff print the fixed source on stdout and its JSON on stderr.
    repo.land(
        "change",
        {
            "pyproject.toml": '[tool.ruff]\nfix = true\n[tool.ruff.lint]\nselect = ["F"]\n',
            ".landwatch.toml": ruff_config(),
        },
        hooks=False,
    )
    repo.land("change", {"m.py": "import os\nx = y\n"}, hooks=False)
    (run,) = review(repo, linters=True).linters
    assert run["status"] == "unparsable" and "add --no-fix" in run["detail"]
    cured = ruff_config().replace('"check",', '"check", "--no-fix",')
    repo.land("change", {".landwatch.toml": cured}, hooks=False)
    repo.land("change", {"m.py": "import os\nx = z\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert found(report_) == [("ruff:F821", "m.py", 2)]


def test_by_default_no_linter_runs_and_the_report_says_why(repo: Repo) -> None:
    repo.land("change", {".landwatch.toml": ruff_config(), "m.py": "import os\n"}, hooks=False)
    report_ = review(repo, linters=False)
    assert found(report_) == [] and report_.linters == []
    assert [note for note in report_.notes if "landwatch trust" in note] == [NOT_TRUSTED]
    assert report_.linters_held_back is not None


def test_a_review_has_a_budget_for_its_linters(repo: Repo) -> None:
    slow = textwrap.dedent("""\
        [[linters]]
        name = "slow"
        command = ["sleep", "60"]
        format = "ruff-json"
        timeout = 60
        """)
    files = {f"f{n}.txt": "x\n" for n in range(5)}
    repo.land("slow linters", {".landwatch.toml": slow, **files}, hooks=False)
    policy = LinterPolicy(vet=lambda digest: None, runner=runner(AS_YOU))
    report_ = engine.review(repo.git_dir, "HEAD", linters=policy, budget=Budget(0.5))
    # The first run gets what is left of the budget, not its own minute; the others none.
    assert [run["status"] for run in report_.linters] == ["timeout"]
    stopped = [note for note in report_.notes if note.startswith("linters stopped before slow")]
    assert len(stopped) == 1 and stopped[0].endswith(": this review's 0.5 s ran out")


def test_a_linter_that_says_too_much_is_stopped_and_said(repo: Repo) -> None:
    flood = textwrap.dedent("""\
        [[linters]]
        name = "flood"
        command = ["sh", "-c", "cat > /dev/null; exec yes '[]'"]
        format = "ruff-json"
        files = ["*.txt"]
        """)
    repo.land("a linter that floods", {".landwatch.toml": flood, "a.txt": "x\n"}, hooks=False)
    policy = LinterPolicy(vet=lambda digest: None, runner=runner(AS_YOU))
    report_ = engine.review(repo.git_dir, "HEAD", linters=policy)
    assert report_.linters == [
        {
            "linter": "flood",
            "path": "a.txt",
            "status": "failed",
            "detail": "said more than 16 MB and was stopped",
        }
    ]


def test_a_linter_timeout_has_an_upper_bound(repo: Repo) -> None:
    long = ruff_config().replace('format = "ruff-json"', 'format = "ruff-json"\ntimeout = 900')
    repo.land("change", {".landwatch.toml": long, "m.py": "import os\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert found(report_, "CFG") == [("CFG", None, None)]
    assert "timeout must be a number of seconds from 0 to 120" in report_.findings[0].message


def test_regex_and_sarif_linters_a_timeout_and_a_missing_command(repo: Repo) -> None:
    sarif_script = (
        "import json,sys; sys.stdin.read(); print(json.dumps({'version':'2.1.0','runs':[{"
        "'results':[{'ruleId':'X1','level':'error','message':{'text':'from sarif'},"
        "'locations':[{'physicalLocation':{'region':{'startLine':2,'endLine':3}}}]}]}]}))"
    )
    grep = ["grep", "-n", "TODO", "-"]
    config = regex_linter("todo", grep, r"^(?P<line>\d+):(?P<message>.*)$", "*.txt")
    config += textwrap.dedent(f"""
        [[linters]]
        name = "sarifer"
        command = [{json.dumps(sys.executable)}, "-c", {json.dumps(sarif_script)}]
        format = "sarif"
        files = ["*.txt"]

        [[linters]]
        name = "stuck"
        command = ["tail", "-f", "/dev/null"]
        format = "regex"
        pattern = '(?P<line>\\d+)(?P<message>.*)'
        files = ["*.txt"]
        timeout = 0.5

        [[linters]]
        name = "absent"
        command = ["no-such-linter-anywhere"]
        format = "ruff-json"
        files = ["*.txt"]
        """)
    repo.land("change", {".landwatch.toml": config, "notes.txt": "one\n"}, hooks=False)
    repo.land("change", {"notes.txt": "one\nTODO two\nthree\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert sorted((f.rule, f.line, f.severity.name) for f in report_.findings) == [
        ("sarifer:X1", 2, "ERROR"),
        ("todo", 2, "WARNING"),
    ]
    statuses = {run["linter"]: run["status"] for run in report_.linters}
    assert statuses == {"todo": "ok", "sarifer": "ok", "stuck": "timeout", "absent": "missing"}


def test_baseline_reports_what_the_change_brought_wherever_it_shows(repo: Repo) -> None:
    """graylint's method: the linter on the file before and after; what it said before (moved
    lines included) is not news, what it says now on an untouched line is."""
    # A checker that flags every use of a name the file does not define (on any line).
    script = (
        "import re,sys\n"
        "lines = sys.stdin.read().split('\\n')\n"
        "defined = {m for l in lines for m in re.findall(r'^def (\\w+)', l)}\n"
        "for n, l in enumerate(lines, 1):\n"
        "    for name in re.findall(r'(\\w+)\\(\\)', l):\n"
        "        if name not in defined: print(f'{n}:undefined {name}')\n"
    )
    pattern = "'^(?P<line>\\d+):(?P<message>.*)$'"
    config = python_linter("names", script, "regex", "*.py", pattern=pattern, filter='"{filter_}"')
    before = "def helper():\n    pass\n\nlegacy()\nhelper()\n"
    after = "# a new first line moves everything\ndef other():\n    pass\n\nlegacy()\nhelper()\n"
    for filter_, expected in (
        ("added", []),  # the break is on an untouched line: `added` never sees it
        ("baseline", [("names", 6, "undefined helper")]),  # legacy() was broken before
        ("file", [("names", 5, "undefined legacy"), ("names", 6, "undefined helper")]),
    ):
        repo.land("config", {".landwatch.toml": config.replace("{filter_}", filter_)}, hooks=False)
        repo.land("before", {"m.py": before}, hooks=False)
        repo.land("after", {"m.py": after}, hooks=False)
        report_ = review(repo, linters=True)
        got = sorted((f.rule, f.line, f.message) for f in report_.findings if f.rule == "names")
        assert got == expected, filter_


def test_linters_are_given_the_configuration_and_the_file_they_lint_only(repo: Repo) -> None:
    listing = "cat > /dev/null; find . -type f | sort | awk '{print NR \":\" $0}'"
    pattern = r"^(?P<line>\d+):(?P<message>.*)$"
    config = regex_linter("sees", ["sh", "-c", listing], pattern, "m.py", 'filter = "file"\n')
    files = {
        ".landwatch.toml": config,
        "pyproject.toml": "[tool.ruff]\n",
        "ruff.py": "print('[]')\n",
        "conftest.py": "import os\n",
        "sub/.pylintrc": "[MAIN]\n",
        "sub/m.py": "x = 1\n",
    }
    repo.land("change", files, hooks=False)
    repo.land("change", {"sub/m.py": "x = 2\n", "ruff.py": "print('[ ]')\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert sorted(f.message for f in report_.findings if f.rule == "sees") == [
        "./pyproject.toml",
        "./sub/m.py",
    ]


def test_a_linter_s_paths_and_key_lines_go_through_the_one_redaction(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    body = base64.b64encode(random.Random(5).randbytes(200)).decode()
    marker = "PRIVATE " + "KEY-----"
    key = [f"-----BEGIN {marker}", body[:64], body[64:128], body[128:], f"-----END {marker}"]
    every_line = "grep -n '' | cut -d: -f1 | sed 's/$/: flagged/'"
    config = regex_linter(
        "every", ["sh", "-c", every_line], r"^(?P<line>\d+): (?P<message>.*)$", "*.key"
    )
    repo.land("change", {".landwatch.toml": config}, hooks=False)
    repo.land("change", {f"{token}.key": "\n".join(key) + "\n"}, hooks=False)
    report_ = review(repo, linters=True)
    linted = [(f.path, f.line, f.snippet) for f in report_.findings if f.rule == "every"]
    assert linted == [
        ("ghp_….key", 1, key[0]),
        *(("ghp_….key", n, "(private key material)") for n in range(2, 6)),
    ]
    assert [run["path"] for run in report_.linters] == ["ghp_….key"]
    assert token not in json.dumps(report_.as_dict())


def test_a_linter_s_pattern_cannot_hold_the_review_by_backtracking(repo: Repo) -> None:
    """Attack 83: the repository's pattern for its linter's lines is run by the reviewer, outside
    the wall, on what the linter says. `(a|aa)+` on 60 a's and a `!` backtracks about 10^12
    steps in Python's engine, holding the reviewer and every repository it drains; RE2's one
    pass ends at once, and a pattern RE2 cannot keep linear (a back-reference) is refused."""
    config = textwrap.dedent("""\
        [[linters]]
        name = "greedy"
        command = ["sh", "-c", "cat > /dev/null; printf '1:%060d!\\\\n' 0 | tr 0 a"]
        format = "regex"
        pattern = '^(?P<line>\\d+):(?P<message>(a|aa)+)$'
        files = ["*.txt"]
        """)
    repo.land("a pattern", {".landwatch.toml": config, "a.txt": "x\n"}, hooks=False)
    report_ = reviewed_apart(repo, linters=True)
    assert [run["status"] for run in report_.linters] == ["ok"]
    assert found(report_) == []
    echoed = config.replace("(a|aa)+)$", "(a)\\3)$")
    repo.land("a back-reference", {".landwatch.toml": echoed}, hooks=False)
    [refused] = review(repo, linters=True).findings
    assert refused.rule == "CFG" and "is not a regular expression landwatch can read" in (
        refused.message
    )


def test_a_linter_s_line_range_is_read_in_time_of_the_lines_added(repo: Repo) -> None:
    """Attack 84: a finding's range from its first line to an end line of 10^15 was walked a
    line at a time to find an added one: a loop as long as the number, holding the review."""
    script = (
        "import json,sys; sys.stdin.read(); far = {'code':'E1','message':'far',"
        "'end_location':{'row':10**15}}; "
        "print(json.dumps([{**far, 'location':{'row':4}}, {**far, 'location':{'row':1}}]))"
    )
    config = python_linter("far", script, "ruff-json", "*.txt")
    repo.land("before", {"a.txt": "one\ntwo\n"}, hooks=False)
    repo.land("a range", {".landwatch.toml": config, "a.txt": "one\ntwo\nthree\n"}, hooks=False)
    assert found(reviewed_apart(repo, linters=True)) == [("far:E1", "a.txt", 1)]


def test_a_linter_s_findings_of_one_file_are_kept_to_a_thousand(repo: Repo) -> None:
    """Attack 84's second half: a linter naming each of a generated file's lines. The first
    MAX_PLACED are kept, as of a project hook's, and a note says how many more it named."""
    config = textwrap.dedent("""\
        [[linters]]
        name = "each"
        command = ["sh", "-c", "cat > /dev/null; seq 1 2500 | sed 's/$/:every line/'"]
        format = "regex"
        pattern = '^(?P<line>\\d+):(?P<message>.*)$'
        files = ["*.txt"]
        """)
    lines = "".join(f"line {number}\n" for number in range(1, 2501))
    repo.land("generated", {".landwatch.toml": config, "gen.txt": lines}, hooks=False)
    report_ = review(repo, linters=True)
    kept = [f.line for f in report_.findings if f.rule == "each"]
    assert kept == list(range(1, MAX_PLACED + 1))
    assert (
        f"linter each named 1,500 more lines of gen.txt than the {MAX_PLACED:,} kept: run it "
        "yourself to see every one"
    ) in report_.notes


# What linters printed that is JSON of another shape: a tool's `{"error": ...}` where ruff-json
# is a list, a list where SARIF is an object, nesting past Python's recursion limit, a line
# number written as a string, and a regex whose message group matched nothing.
ODD_OUTPUTS = {
    "an object for ruff-json": ("ruff-json", '{"error": "cannot read this file"}', "unparsable"),
    "a list for sarif": ("sarif", "[]", "unparsable"),
    "nesting 100,000 deep": ("sarif", "[" * 100_000, "unparsable"),
    "a line as a string": (
        "sarif",
        '{"runs": [{"results": [{"ruleId": "X", "level": 3, "message": {"text": "m"}, '
        '"locations": [{"physicalLocation": {"region": {"startLine": "1"}}}]}]}]}',
        "ok",
    ),
    "rows of null and true": (
        "ruff-json",
        '[{"code": "E1", "message": "m", "location": {"row": true}, "end_location": null}]',
        "ok",
    ),
}


@pytest.mark.parametrize("case", sorted(ODD_OUTPUTS))
def test_a_linter_s_output_of_another_shape_is_unparsable_and_the_review_stands(
    repo: Repo, case: str
) -> None:
    """The wall audit's: such output, read outside the wall, raised AttributeError,
    RecursionError or TypeError through the linter run and failed the whole review, its secret
    findings with it (the reviewer retried it, then gave it up). Now the run says what it was."""
    form, printed, status = ODD_OUTPUTS[case]
    script = f"import sys; sys.stdin.read(); sys.stdout.write({printed!r})"
    config = python_linter("odd", script, form, "*.py")
    token = github_token("R8kq")
    repo.land("odd", {".landwatch.toml": config, "a.py": f"GH = '{token}'\n"}, hooks=False)
    report_ = review(repo, linters=True)
    assert [run["status"] for run in report_.linters] == [status]
    assert [(f.rule, f.line) for f in report_.findings if f.rule.startswith("S")] == [("S002", 1)]
