"""Where a project's pre-commit configuration scopes a hook a rule stands for
(review.precommit_scopes), read from the landed tree: a file every such hook leaves out gets no
finding of that rule; a hook the project does not run declares nothing; secrets are never
scoped out this way."""

from __future__ import annotations

from support.repos import Repo
from support.review import KEY_ID, found, review

CONFIG = """exclude: ^external/
repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: debug-statements
        exclude: ^src/click/(_termui_impl|testing)\\.py$
      - id: trailing-whitespace
        files: \\.py$
      - id: detect-private-key
        exclude: .*
"""


def test_a_hook_s_exclusions_are_the_rule_s(repo: Repo) -> None:
    repo.land("pre-commit", {".pre-commit-config.yaml": CONFIG}, hooks=False)
    debug = "import pdb; pdb.set_trace()\n"
    repo.land(
        "change",
        {
            "src/click/testing.py": debug,  # the project exempts exactly this file
            "src/click/core.py": debug,
            "external/x.py": "y = 1   \n",  # out of every hook (top-level exclude)
            "docs/notes.txt": "z   \n",  # trailing-whitespace runs only on .py files
            "src/click/util.py": "w = 1   \n",
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("P007", "src/click/core.py", 1), ("P001", "src/click/util.py", 1)]
    assert (
        "3 finding(s) not reported: .pre-commit-config.yaml leaves those files out of the hook "
        "that checks the same" in report.notes
    )


def test_a_hook_the_project_does_not_run_declares_nothing(repo: Repo) -> None:
    config = "repos:\n  - repo: local\n    hooks:\n      - id: ruff\n        exclude: .*\n"
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("change", {"a.py": "import pdb; pdb.set_trace()\n"}, hooks=False)
    assert found(review(repo)) == [("P007", "a.py", 1)]


def test_python_s_debug_statements_hook_scopes_no_other_language(repo: Repo) -> None:
    # pre-commit's debug-statements checks Python only: leaving web/ out of it, or out of every
    # hook, says nothing of the debuggers landwatch finds in JavaScript, Ruby or PHP there.
    config = (
        "exclude: ^web/legacy/\nrepos:\n  - repo: x\n    hooks:\n"
        "      - id: debug-statements\n        exclude: ^web/\n"
    )
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    debuggers = {
        "web/app.py": "breakpoint()\n",
        "web/app.js": "debugger;\n",
        "web/legacy/lib.js": "debugger;\n",
        "web/app.rb": "binding.pry\n",
        "web/index.php": "<?php\nxdebug_break();\n",
    }
    repo.land("change", debuggers, hooks=False)
    report = review(repo)
    assert sorted(found(report)) == [
        ("P007", "web/app.js", 1),
        ("P007", "web/app.rb", 1),
        ("P007", "web/index.php", 2),
        ("P007", "web/legacy/lib.js", 1),
    ]
    assert any(note.startswith("1 finding(s) not reported") for note in report.notes)


def test_secrets_are_not_scoped_out_by_pre_commit(repo: Repo) -> None:
    repo.land("pre-commit", {".pre-commit-config.yaml": CONFIG}, hooks=False)
    repo.land("change", {"src/keys.py": f'KEY = "{KEY_ID}"\n'}, hooks=False)
    assert found(review(repo)) == [("S002", "src/keys.py", 1)]


def test_a_pattern_re2_cannot_run_or_a_broken_file_is_a_note(repo: Repo) -> None:
    config = (
        "repos:\n  - repo: x\n    hooks:\n      - id: trailing-whitespace\n        exclude: (?=a)\n"
    )
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("change", {"a.py": "x   \n"}, hooks=False)
    report = review(repo)
    assert found(report) == [("P001", "a.py", 1)]
    assert any("hook trailing-whitespace exclude" in note for note in report.notes)
    # Where that hook runs is not known: it is not the project's word on this file (an audit:
    # read as everywhere, a finding on a file it excludes was told as the project's standard).
    [finding] = report.findings
    assert finding.basis is not None and finding.basis.standard != "declared"
    repo.land("broken", {".pre-commit-config.yaml": "repos: [\n", "b.py": "y   \n"}, hooks=False)
    report = review(repo)
    assert found(report) == [("P006", ".pre-commit-config.yaml", 2), ("P001", "b.py", 1)]
    assert ".pre-commit-config.yaml cannot be read (ParserError)" in report.notes


def test_a_hook_s_types_scope_the_rule_as_they_scope_the_hook(repo: Repo) -> None:
    config = """repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: trailing-whitespace
        types_or: [python, shell]
        exclude_types: [executable]
"""
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land(
        "change",
        {"app.py": "x = 1  \n", "notes.md": "y  z  \n", "run.sh": "echo  \n"},
        hooks=False,
    )
    repo.git("update-index", "--chmod=+x", "run.sh")
    repo.git("commit", "-q", "--amend", "--no-edit")
    report = review(repo)
    # notes.md is neither Python nor shell; run.sh is executable: only app.py is the hook's.
    assert found(report, "P001") == [("P001", "app.py", 1)]
    assert any("leaves those files out of the hook" in note for note in report.notes)


def test_a_hook_of_one_language_says_nothing_of_another_s_files(repo: Repo) -> None:
    config = """repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: check-ast
        exclude: ^legacy/
      - id: check-json
"""
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("broken", {"legacy/old.py": "def f(:\n", "legacy/data.json": "{,}\n"}, hooks=False)
    # check-ast leaves legacy/ out: its Python is the project's affair, not its JSON.
    assert found(review(repo), "P006") == [("P006", "legacy/data.json", 1)]


def test_a_configuration_read_as_pre_commit_reads_it_tabs_and_all(repo: Repo) -> None:
    # libyaml (pre-commit's loader) takes a tab inside a flow sequence; PyYAML's own refuses it.
    config = """repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: trailing-whitespace
        args: [\t"--markdown-linebreak-ext=md"]
        exclude: ^docs/
"""
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("change", {"docs/a.txt": "x  \n", "b.txt": "y  \n"}, hooks=False)
    report = review(repo)
    assert found(report, "P001") == [("P001", "b.txt", 1)]
    assert not any("cannot be read" in note for note in report.notes)


def test_a_verbose_pattern_is_read_as_pre_commit_reads_it(repo: Repo) -> None:
    """pre-commit's documentation writes a long `exclude` verbose (`(?x)`), which RE2 cannot
    read: the hook's exclusions were dropped (an audit), and a fixture it leaves alone was told
    trailing whitespace as the project's own standard."""
    config = (
        "repos:\n  - repo: x\n    hooks:\n      - id: trailing-whitespace\n"
        "        exclude: |\n"
        "            (?x)^(\n"
        "                tests/fixtures/.*|   # byte-exact\n"
        "                docs/[ ]x\\.md\n"
        "            )$\n"
    )
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    files = {"tests/fixtures/case.txt": "a  \n", "docs/ x.md": "b  \n", "app.txt": "c  \n"}
    repo.land("change", files, hooks=False)
    report = review(repo)
    assert found(report) == [("P001", "app.txt", 1)]
    [finding] = report.findings
    assert finding.basis is not None and finding.basis.standard == "declared"


def test_a_hook_s_own_arguments_set_what_the_rule_checks(repo: Repo) -> None:
    """An audit: check-added-large-files with `args: ['--maxkb=2048']` passes an 800 KB file,
    yet P005 told it past landwatch's own 500 KB limit as the project's declared standard.
    The hook's argument is the rule's limit; landwatch's own configuration outranks it."""
    config = (
        "repos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n"
        "    hooks:\n      - id: check-added-large-files\n        args: [--maxkb, '2048']\n"
    )
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("data", {"data.txt": "x" * 800 * 1024 + "\n"}, hooks=False)
    report = review(repo)
    assert found(report) == []
    assert any("declares max_kb 2048 for P005" in note for note in report.notes)
    repo.land("big", {"big.txt": "y" * 3000 * 1024 + "\n"}, hooks=False)
    [finding] = review(repo).findings
    assert finding.rule == "P005" and "limit 2048 KB" in finding.message
    own = {
        ".landwatch.toml": "[rules]\nP005 = { max_kb = 500 }\n",
        "more.txt": "z" * 800 * 1024 + "\n",
    }
    repo.land("own limit", own, hooks=False)
    assert [f[:2] for f in found(review(repo))] == [("P005", "more.txt")]


def test_a_limit_its_instances_disagree_on_is_none_and_its_value_is_read_as_argparse_does(
    repo: Repo,
) -> None:
    """Audits of the above: with one instance for assets/ at --maxkb=5000 and one for the rest
    at the hook's default, the largest held everywhere (a 1.5 MB source file the hook refuses
    was not told), then the strictest (icons/ at 50: every file past 50 KB told). A limit holds
    for every file, so one the instances disagree on is none. And the value is read as argparse
    reads it: ` 1024`, `+2048`, `0002048`, `--maxk 2048`."""
    config = (
        "repos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n"
        "    hooks:\n      - id: check-added-large-files\n        files: ^assets/\n"
        "        args: ['--maxkb=5000']\n      - id: check-added-large-files\n"
        "        exclude: ^assets/\n"
    )
    repo.land("pre-commit", {".pre-commit-config.yaml": config}, hooks=False)
    repo.land("data", {"src/data.txt": "x" * 1500 * 1024 + "\n"}, hooks=False)
    report = review(repo)
    assert [f[:2] for f in found(report)] == [("P005", "src/data.txt")]
    assert not any("declares max_kb" in note for note in report.notes)
    spelled = config.replace("'--maxkb=5000']", "'--maxk', '+2048']").replace(
        "        exclude: ^assets/\n",
        "        exclude: ^assets/\n        args: [--maxkb=0002048]\n",
    )
    repo.land("spelled", {".pre-commit-config.yaml": spelled, "b.txt": "y" * 1900 * 1024 + "\n"})
    report = review(repo)
    assert found(report) == []
    assert any("declares max_kb 2048 for P005" in note for note in report.notes)
