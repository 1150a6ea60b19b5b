"""What the run of the project's hooks on a landing keeps of what they did (wall.project_hooks
.landing), with the real pre-commit and prek drained by the real reviewer: the hooks declared and
no other, whatever a hook prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch.review.findings import MAX_PLACED
from support.project_hooks import committed_and_trusted, drained, hooks_of, local_hooks, tools
from support.repos import Repo

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
