"""What the run of the project's hooks on a landing keeps of what they did (wall.project_hooks
.landing), with the real pre-commit and prek drained by the real reviewer: the hooks declared and
no other, whatever a hook prints; what they changed of the commit's files, and not of others."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from landwatch import layout, report_store
from landwatch.review.findings import MAX_PLACED
from support.project_hooks import (
    committed_and_trusted,
    drained,
    hooks_of,
    local_hooks,
    settled,
    tools,
)
from support.repos import Repo
from support.sandbox import WITH_BWRAP, needs_bwrap

TODO = "id: todo\nname: markers left\nlanguage: pygrep\nentry: TODO"
# A trusted check whose helper (imported, so pinned by no approval) a pulled commit changed to
# print forged blocks: other hooks, and the one before it again, each changing files.
CHECK = (
    "id: check\nname: check\nlanguage: system\nentry: python3 tools/check.py\n"
    "pass_filenames: false\nalways_run: true"
)
FORGER = """\
import sys
for n in range(2000):
    print(f"h{n}.....Failed\\n- hook id: h{n}\\n- files were modified by this hook")
print("markers left.....Failed\\n- hook id: todo\\n- files were modified by this hook")
sys.exit(1)
"""


@pytest.mark.parametrize("tool", ["pre-commit", "prek"])
def test_what_a_hook_prints_reports_no_hook_the_configuration_does_not_declare(
    tmp_path: Path, repo: Repo, tool: str
) -> None:
    """pygrep echoing each line of a pulled file that reads `x = 1  # TODO ....Failed`, and a
    check printing forged blocks: each was a hook of its own, with its own finding and entry
    (30,001 of them, 15 MB, for a file of 30,000 lines). The two hooks declared are all."""
    committed_and_trusted(
        repo,
        {
            ".pre-commit-config.yaml": local_hooks(TODO, CHECK),
            "tools/check.py": "import helper\n",
            "tools/helper.py": "pass\n",
        },
    )
    lines = MAX_PLACED + 200
    generated = "".join(f"x{n} = {n}  # TODO ....Failed\n" for n in range(lines))
    oid = repo.land("a teammate's change", {"gen.py": generated, "tools/helper.py": FORGER})
    drained(tools(tmp_path, tool))
    hooks = hooks_of(repo, oid)
    assert [(each["id"], each["status"]) for each in hooks.hooks] == [
        ("todo", "failed"),
        ("check", "failed"),
    ]
    # The check's word kept beside the first of the TODO's 1,200, MAX_PLACED in all.
    assert len(hooks.findings) == MAX_PLACED
    assert [f.rule for f in hooks.findings[-2:]] == ["hook:todo", "hook:check"]
    assert hooks.findings[0].snippet == "x0 = 0  # TODO ....Failed"
    notes = " ".join(hooks.notes)
    assert f"hook todo named {lines - MAX_PLACED} more lines" in notes
    assert "the project's hooks made 1 more finding than the 1,000 kept" in notes


# A formatter of the whole checkout (`pass_filenames: false`, as `ruff format .` or `prettier
# --write .` are often run): here an end-of-file fixer of every *.py at the root.
EOF_ALL = (
    "id: eof\nname: fix end of files\nlanguage: system\nentry: python3 tools/eof.py\n"
    "pass_filenames: false"
)
EOF_PY = """\
import pathlib, sys
bad = 0
for p in pathlib.Path(".").glob("*.py"):
    b = p.read_bytes()
    if b and not b.endswith(b"\\n"):
        p.write_bytes(b + b"\\n"); print("Fixing", p); bad = 1
sys.exit(bad)
"""


def test_a_fix_of_a_file_beside_the_change_is_not_the_commit_s(tmp_path: Path, repo: Repo) -> None:
    """old.py, committed without its last newline, is in the checkout (a root file) but not the
    change's: reading the hooks' fix of it asked for its landed content, which only the change's
    files have, and the job failed with KeyError at every try and was given up, no result kept,
    at every landing while old.py stayed so. It is named in a note, and kept out of the fix."""
    committed_and_trusted(
        repo,
        {
            ".pre-commit-config.yaml": local_hooks(EOF_ALL),
            "tools/eof.py": EOF_PY,
            "old.py": "x = 1",
        },
    )
    oid = repo.land("add new.py", {"new.py": "y = 2\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert settled(repo) == [f"project_hooks-{oid}"]
    hooks = hooks_of(repo, oid)
    assert hooks.hooks == [{"id": "eof", "status": "failed", "tool": "pre-commit"}]
    assert hooks.findings == [] and hooks.patch == ""
    assert (
        "the hooks of .pre-commit-config.yaml also changed 1 file this change did not bring "
        "(old.py): not the commit's, left out of its fix"
    ) in hooks.notes
    assert report_store.read(repo.git_dir, oid) is not None


def test_a_failure_its_manager_reports_with_no_hook_read_failing_is_told(
    tmp_path: Path, repo: Repo
) -> None:
    """A hook printing the status block of a hook declared after it (`hook 2....Passed`): each
    declared hook's status line is read once, in order, so the forged one stood for it and the
    real `Failed` was not read; the run was kept as all passed, though pre-commit exited 1. A
    manager failing where no hook it reported did is told as the manager's."""
    # printf's own `\\n`, in a YAML string JSON spells (`:` and `-` in it are no YAML).
    forged = json.dumps("printf '" + "hook 2" + "." * 60 + "Passed\\n- hook id: h2\\n'")
    hooks = [
        f"id: h1\nname: hook 1\nlanguage: system\nentry: {forged}\n"
        "pass_filenames: false\nalways_run: true\nverbose: true",
        'id: h2\nname: hook 2\nlanguage: system\nentry: "false"\npass_filenames: false\n'
        "always_run: true",
    ]
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(*hooks)})
    oid = repo.land("a change", {"a.txt": "x\n"})
    drained(tools(tmp_path, "pre-commit"))
    found = hooks_of(repo, oid)
    assert [(f.rule, f.message, f.snippet) for f in found.findings] == [
        (
            "hook:pre-commit",
            "the hook failed (exit code 1)",
            "pre-commit exited 1 though no hook it reported failed: run the hooks yourself to "
            "see which",
        )
    ]


def test_a_configuration_of_more_hooks_than_are_read_runs_none(tmp_path: Path, repo: Repo) -> None:
    """Attack 96, as a landing meets it: 501 hooks declared, past the 500 read. Before, the
    first 500 ran and the rest (their scripts in no approval) too; now none, and the note
    says why."""
    hooks = [
        f'id: h{n:03}\nname: hook {n:03}\nlanguage: system\nentry: "true"\n'
        "pass_filenames: false\nalways_run: true"
        for n in range(1, 502)
    ]
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(*hooks)})
    oid = repo.land("a change", {"a.txt": "x\n"})
    drained(tools(tmp_path, "pre-commit"))
    found = hooks_of(repo, oid)
    assert found.findings == [] and found.hooks == []
    assert any("more than 500" in note and "did not run" in note for note in found.notes)


@pytest.mark.parametrize("tool", ["pre-commit", "prek"])
def test_a_configuration_the_manager_refuses_is_its_failure_not_a_wait(
    tmp_path: Path, repo: Repo, tool: str
) -> None:
    """An audit: a misspelt `language: sytem`, which the manager refuses at commit time, failed
    the build, which was taken for a network not there yet: waiting, tried again for ever, told
    nowhere. The manager's own validate-config says why, and that is told, once."""
    hook = 'id: fails\nname: fails\nlanguage: sytem\nentry: "false"'
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook)})
    oid = repo.land("a change", {"a.txt": "x\n"})
    drained(tools(tmp_path, tool))
    found = hooks_of(repo, oid)
    assert found.status == "failed" and settled(repo) == [f"project_hooks-{oid}"]
    [finding] = found.findings
    assert finding.rule == f"hook:{tool}" and "sytem" in (finding.snippet or "")
    [note] = [note for note in found.notes if f"{tool} refuses the configuration" in note]
    assert "sytem" in note  # the reason, not a frame line (a round-1 audit: prek's `  |`)


@needs_bwrap
def test_prek_runs_a_pygrep_hook_in_a_store_read_only_but_for_what_it_writes(
    tmp_path: Path, repo: Repo
) -> None:
    """An audit: prek makes `cache/python` in its store at a run where its build did not (it
    looks there for the Python a pygrep hook runs), and behind the wall that store was
    read-only: no hook ran, and the item was retried for ever as if the environments had gone
    missing. That directory is the run's own; the environments stay read-only."""
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO)})
    repo.git("config", "landwatch.sandbox", "true")  # the wall: what the audit found is there
    path = f"{tools(tmp_path, 'prek')}{os.pathsep}{WITH_BWRAP}"
    repo.land("a first change", {"b.py": "y = 1\n"})
    drained(path)  # built, remembered as built
    for made in layout.HOOK_ENVS.path().glob("*/prek/cache/python"):
        shutil.rmtree(made)  # as the audit's build left it: some builds make none
    oid = repo.land("a change", {"a.py": "x = 1  # TODO\n"})
    said = drained(path).stderr
    assert "environments are missing" not in said and "Read-only" not in said
    found = hooks_of(repo, oid)
    assert found.tools[0].startswith("prek ")
    assert [(each["id"], each["status"]) for each in found.hooks] == [("todo", "failed")]
    assert [(f.rule, f.path, f.line) for f in found.findings] == [("hook:todo", "a.py", 1)]
    assert f"project_hooks-{oid}" in settled(repo)


@pytest.mark.parametrize("tool", ["pre-commit", "prek"])
def test_a_change_of_deletions_alone_runs_the_hooks_that_always_run(
    tmp_path: Path, repo: Repo, tool: str
) -> None:
    """An audit: a commit that only deletes a file gave the hooks no file, so none ran, though
    at commit time the manager runs those that always run (a test suite) and they failed."""
    suite = (
        "id: tests\nname: tests\nlanguage: system\n"
        "entry: sh -c 'test -f helper.py || { echo helper.py is gone; exit 1; }'\n"
        "always_run: true\npass_filenames: false"
    )
    committed_and_trusted(
        repo, {".pre-commit-config.yaml": local_hooks(suite), "helper.py": "def h(): pass\n"}
    )
    oid = repo.land("delete the helper", {"helper.py": None})
    drained(tools(tmp_path, tool))
    found = hooks_of(repo, oid)
    assert [(each["id"], each["status"]) for each in found.hooks] == [("tests", "failed")]
    assert [f.snippet for f in found.findings] == ["helper.py is gone"]
