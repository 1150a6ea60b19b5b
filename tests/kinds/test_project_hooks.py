"""The `project_hooks` kind drained by the real reviewer with the real pre-commit: the project's own
hooks run after each landing on what landed, once trusted; what they say joins the commit's
review (one report, one line); `repo: local` hooks only (no network but pip's index)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from landwatch import layout, report_store, work_item
from landwatch.daemon.loop import LEFT_WAITING
from support.daemon import process_gone
from support.project_hooks import (
    TODO_CHECK,
    committed,
    committed_and_trusted,
    drained,
    hooks_of,
    local_hooks,
    settled,
    tools,
)
from support.repos import Repo, bare_worktree, installed
from support.sandbox import WITH_BWRAP, needs_bwrap
from support.tokens import GITHUB_TOKEN, random_text

EOF_FIXER = """\
id: end-of-file
name: fix end of files
language: script
entry: scripts/eof.sh
"""
EOF_SCRIPT = """#!/bin/sh
status=0
for f; do
  if [ -s "$f" ] && [ -n "$(tail -c1 "$f")" ]; then echo >> "$f"; echo "Fixing $f"; status=1; fi
done
exit $status
"""


def test_a_shell_check_runs_after_the_commit_and_joins_its_review(
    tmp_path: Path, repo: Repo
) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    repo.land("old", {"app.py": "# TODO: old\n"}, hooks=False)
    oid = repo.land("new", {"app.py": "# TODO: old\nx = 1  # TODO: new\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert settled(repo) == [f"project_hooks-{oid}"]
    hooks = hooks_of(repo, oid)
    assert hooks.status == "ran" and hooks.tools[0].startswith("pre-commit 4.")
    assert [(f.rule, f.path, f.line, f.snippet) for f in hooks.findings] == [
        ("hook:no-todo", "app.py", 2, "x = 1  # TODO: new")  # the line the change added only
    ]
    joined = report_store.read(repo.git_dir, oid)
    assert joined is not None and "hook:no-todo" in [f.rule for f in joined.findings]
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    # One line for the commit: the hook's finding named, the review's counted with it.
    assert told == (
        f"landwatch: hook:no-todo x = 1  # TODO: new in app.py:2 · landwatch show {oid[:7]}\n"
    )
    shown = repo.landwatch("show", oid).stdout
    assert "2 error   hook:no-todo no TODO left: x = 1  # TODO: new" in shown
    assert (
        "project hooks: pre-commit 4." in shown and "ran 1 hook of .pre-commit-config.yaml" in shown
    )


def test_an_amend_tells_nothing_of_what_the_hooks_said_and_was_read(
    tmp_path: Path, repo: Repo
) -> None:
    """An audit: a commit's hooks' finding told and read, the commit amended (its message only),
    and the hooks' finding of the new commit told again: the review knew the commit the amend
    replaced (HEAD's reflog), the hooks' item did not (an amend's record names none)."""
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    first = repo.land("one", {"app.py": "x = 1  # TODO\n"})
    drained(tools(tmp_path, "pre-commit"))
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told.startswith("landwatch: hook:no-todo") and first[:7] in told
    repo.git("reset", "-q", "--hard", first)
    assert repo.run("commit", "-q", "--amend", "-m", "one, reworded").returncode == 0
    drained(tools(tmp_path, "pre-commit"))
    assert [f.rule for f in hooks_of(repo, repo.head()).findings] == ["hook:no-todo"]
    repo.land("then", {"b.txt": "clean\n"})
    assert repo.said == ""


def test_a_python_hook_s_environment_is_built_from_pip_s_index(tmp_path: Path, repo: Repo) -> None:
    pyflakes = "id: pyflakes\nname: pyflakes\nlanguage: python\nentry: pyflakes\n"
    pyflakes += "additional_dependencies: [pyflakes]\ntypes: [python]"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(pyflakes)})
    repo.land("old", {"m.py": "import os\n"}, hooks=False)
    oid = repo.land("new", {"m.py": "import os\nimport sys\n", "notes.txt": "not python\n"})
    drained(tools(tmp_path, "pre-commit"))
    hooks = hooks_of(repo, oid)
    assert [(f.rule, f.line, f.message) for f in hooks.findings] == [
        ("hook:pyflakes", 2, "'sys' imported but unused")
    ]
    # Built once, for this configuration: the next landing runs the hooks at once.
    prepared = layout.HOOKS_PREPARED.path(repo.git_dir).read_text()
    assert prepared.startswith("pre-commit ")
    again = repo.land("again", {"m.py": "import os\nimport sys\nimport re\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert [f.line for f in hooks_of(repo, again).findings] == [3]


def test_a_fixing_hook_s_change_is_kept_for_git_apply(tmp_path: Path, repo: Repo) -> None:
    config = local_hooks(EOF_FIXER)
    committed_and_trusted(repo, {".pre-commit-config.yaml": config, "scripts/eof.sh": EOF_SCRIPT})
    oid = repo.land("no final newline", {"a.txt": "one\ntwo", "b.txt": "fine\n"})
    drained(tools(tmp_path, "pre-commit"))
    hooks = hooks_of(repo, oid)
    assert [(f.rule, f.path, f.severity.name) for f in hooks.findings] == [
        ("hook:end-of-file", "a.txt", "WARNING")
    ]
    patch = repo.landwatch("show", oid, "--patch")
    assert patch.returncode == 0 and patch.stdout.startswith("diff --git a/a.txt b/a.txt")
    applied = subprocess.run(
        ["git", "apply"], input=patch.stdout, text=True, cwd=repo.path, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr
    assert (repo.path / "a.txt").read_text() == "one\ntwo\n"
    assert repo.landwatch("show", "HEAD~1", "--patch").returncode == 1  # not run there


def test_a_hook_runs_on_the_files_its_files_and_exclude_choose(tmp_path: Path, repo: Repo) -> None:
    lister = "id: lister\nname: lister\nlanguage: system\nentry: sh -c 'echo \"$@\"; exit 1' --\n"
    lister += "files: \\.py$\nexclude: ^vendor/"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(lister)})
    files = {"a.py": "1\n", "vendor/b.py": "2\n", "c.txt": "3\n", "--version.py": "4\n"}
    oid = repo.land("four", files)
    drained(tools(tmp_path, "pre-commit"))
    hooks = hooks_of(repo, oid)
    [finding] = hooks.findings
    assert finding.rule == "hook:lister" and finding.snippet == "a.py"
    # A name a command could read as an option is never given to one.
    assert hooks.notes[0].startswith("1 file not given to the project's hooks: a name starting")


def test_a_hook_past_its_budget_is_stopped_with_all_it_started(tmp_path: Path, repo: Repo) -> None:
    pid_file = tmp_path / "sleeper.pid"
    quick = "id: quick\nname: quick\nlanguage: system\nentry: sh -c 'echo quick failed; exit 1' --"
    hangs = "id: hangs\nname: hangs forever\nlanguage: system\n"
    hangs += f"entry: sh -c 'sleep 600 & echo $! > {pid_file}; wait' --"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(quick, hangs)})
    repo.git("config", "landwatch.projectHooks.budget", "3")
    oid = repo.land("a change", {"a.txt": "1\n"})
    drained(tools(tmp_path, "pre-commit"))
    hooks = hooks_of(repo, oid)
    assert hooks.status == "stopped"
    assert [f.rule for f in hooks.findings] == ["hook:quick"]  # what finished is kept
    assert (
        "the hooks of .pre-commit-config.yaml ran past their budget (3 s, "
        "landwatch.projectHooks.budget) and were stopped with every process they started: "
        "hangs forever did not finish"
    ) in hooks.notes
    assert process_gone(int(pid_file.read_text()))  # the hook's own child too
    assert settled(repo) == [f"project_hooks-{oid}"]  # stored, not tried again
    assert report_store.read_review(repo.git_dir, oid) is not None


def test_a_script_changed_after_trust_does_not_run_and_is_asked_about(
    tmp_path: Path, repo: Repo
) -> None:
    canary = tmp_path / "ran"
    check = "id: check\nname: check\nlanguage: script\nentry: scripts/check.sh"
    files = {".pre-commit-config.yaml": local_hooks(check), "scripts/check.sh": "#!/bin/sh\n"}
    committed_and_trusted(repo, files)
    changed = committed(repo, {"scripts/check.sh": f"#!/bin/sh\ntouch {canary}\n"}, "changed")
    oid = repo.land("a change", {"a.txt": "1\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert not canary.exists()
    hooks = hooks_of(repo, oid)
    assert hooks.status == "untrusted" and "`landwatch trust` shows them" in hooks.notes[0]
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert "the project's hooks in repo did not run" in told and "landwatch trust" in told
    shown = repo.landwatch("trust", "--show").stdout
    assert "--- scripts/check.sh (trusted)" in shown and f"+touch {canary}" in shown
    assert changed != oid


def test_the_hooks_see_the_landed_content_not_the_worktree(tmp_path: Path, repo: Repo) -> None:
    show = "id: show\nname: show\nlanguage: system\nentry: sh -c 'cat \"$@\"; exit 1' --"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(show)})
    oid = repo.land("landed", {"a.txt": "as it landed\n"})
    repo.land("moved on", {"a.txt": "as it is later\n"}, hooks=False)
    (repo.path / "a.txt").write_text("dirty, not committed\n")
    drained(tools(tmp_path, "pre-commit"))
    assert [f.snippet for f in hooks_of(repo, oid).findings] == ["as it landed"]
    assert (repo.path / "a.txt").read_text() == "dirty, not committed\n"
    assert repo.git("status", "--porcelain") == "M a.txt"


def test_what_a_hook_prints_is_escaped_and_its_secrets_redacted(tmp_path: Path, repo: Repo) -> None:
    leak = "id: leak\nname: leak\nlanguage: script\nentry: scripts/leak.sh"
    script = (
        "#!/bin/sh\nprintf '\\033]0;pwned\\007\\033[2J token %s\\n' \"$(cat token.txt)\"\nexit 1\n"
    )
    files = {".pre-commit-config.yaml": local_hooks(leak), "scripts/leak.sh": script}
    committed_and_trusted(repo, files)
    oid = repo.land("a token", {"token.txt": GITHUB_TOKEN + "\n"})
    drained(tools(tmp_path, "pre-commit"))
    stored = layout.hooks_report_file(repo.git_dir, oid).read_text()
    shown = repo.landwatch("show", oid).stdout
    as_json = repo.landwatch("show", oid, "--json").stdout
    for text in (stored, shown, as_json):
        assert GITHUB_TOKEN not in text
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;pwned\\x07\\x1b[2J token " in shown


def test_turned_off_no_hooks_are_asked_for(tmp_path: Path, repo: Repo) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    repo.git("config", "landwatch.projectHooks", "false")
    oid = repo.land("a change", {"a.py": "# TODO\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert report_store.read_review(repo.git_dir, oid) is not None
    assert report_store.read_hooks(repo.git_dir, oid) is None
    assert not work_item.is_known(repo.git_dir, f"project_hooks-{oid}")


def test_without_a_wall_the_hooks_do_not_run_and_the_result_says_what_to_do(
    tmp_path: Path, repo: Repo
) -> None:
    ran = tmp_path / "ran"
    hook = f"id: touch\nname: touch\nlanguage: system\nentry: touch {ran}\npass_filenames: false"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook)})
    repo.git("config", "landwatch.sandbox", "true")  # the default
    path = tools(tmp_path, "pre-commit")
    if shutil.which("bwrap", path=path):
        pytest.skip("this machine's own bubblewrap is on the system's PATH")
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    drained(path)
    result = hooks_of(repo, oid)
    assert result.status == "no-wall" and not ran.exists()
    [note] = result.notes
    assert note.startswith("the project's hooks did not run: there is no wall here: bubblewrap")
    assert "`git config --global landwatch.sandbox false`" in note


def test_a_linked_worktree_s_landing_runs_the_hooks_it_trusted_there(
    tmp_path: Path, repo: Repo
) -> None:
    # Issue 39: a linked worktree's git dir (.git/worktrees/NAME) has no objects of its own, and
    # the checkout borrowed them from there: `git read-tree` could not find the landed tree.
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    linked = Repo.existing(tmp_path / "linked")
    committed_and_trusted(linked, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    oid = linked.land("in the linked worktree", {"app.py": "x = 1  # TODO: here\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert settled(repo) == [] and settled(linked) == [f"project_hooks-{oid}"]
    hooks = hooks_of(linked, oid)
    assert hooks.status == "ran", hooks.notes
    assert [(f.rule, f.path, f.line) for f in hooks.findings] == [("hook:no-todo", "app.py", 1)]
    shown = linked.landwatch("show", oid).stdout
    assert "1 error   hook:no-todo no TODO left: x = 1  # TODO: here" in shown
    # Nothing of the checkout was left in the person's repository.
    assert len(repo.git("worktree", "list").splitlines()) == 2
    assert linked.git("status", "--porcelain") == ""


def test_a_bare_repository_s_worktree_runs_the_hooks_it_trusted_there(tmp_path: Path) -> None:
    """A bare repository's work is done in its linked worktrees: a landing there is reviewed,
    and its hooks run, as in any repository (the bare repository has no worktree of its own)."""
    linked = bare_worktree(tmp_path)
    linked.install()
    committed_and_trusted(linked, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    oid = linked.land("in the worktree", {"app.py": "x = 1  # TODO: here\n"})
    drained(tools(tmp_path, "pre-commit"))
    assert settled(linked) == [f"project_hooks-{oid}"]
    hooks = hooks_of(linked, oid)
    assert hooks.status == "ran", hooks.notes
    assert [(f.rule, f.path, f.line) for f in hooks.findings] == [("hook:no-todo", "app.py", 1)]
    assert "hook:no-todo" in linked.landwatch("show", oid).stdout


@needs_bwrap
def test_a_repository_whose_path_is_not_utf8_runs_its_hooks_behind_the_wall(
    tmp_path: Path,
) -> None:
    """At `caf\\xe9` (no UTF-8): the store of its hook environments was named from its path
    encoded as UTF-8, which it cannot be, and the checkout's alternates written so: every run
    failed, five times, then given up."""
    repo = installed(tmp_path / os.fsdecode(b"caf\xe9"))
    repo.git("config", "landwatch.sandbox", "true")
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    oid = repo.land("new", {"app.py": "x = 1  # TODO: new\n"})
    drained(f"{tools(tmp_path, 'pre-commit')}{os.pathsep}{WITH_BWRAP}")
    assert settled(repo) == [f"project_hooks-{oid}"]
    hooks = hooks_of(repo, oid)
    assert hooks.status == "ran", hooks.notes
    assert [(f.rule, f.path, f.line) for f in hooks.findings] == [("hook:no-todo", "app.py", 1)]


def test_trusting_runs_the_hooks_held_back_and_asking_by_name_runs_them_again(
    tmp_path: Path, repo: Repo
) -> None:
    # Issue 39: the landings held back for want of trust kept their "untrusted" result after
    # `landwatch trust`, and `landwatch enqueue --kind project_hooks REV` answered "known".
    committed(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    older = repo.land("older", {"app.py": "x = 1  # TODO: older\n"})
    newest = repo.land("newest", {"app.py": "x = 1  # TODO: older\ny = 2  # TODO: newest\n"})
    drained(tools(tmp_path, "pre-commit"))
    held = [hooks_of(repo, oid) for oid in (older, newest)]
    assert [result.status for result in held] == ["untrusted", "untrusted"]
    trusted = repo.landwatch("trust", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    assert (
        f"landwatch: the project's hooks held back on 2 landings run now: {newest[:7]}, "
        f"{older[:7]}\n"
    ) in trusted.stdout
    drained(tools(tmp_path, "pre-commit"))
    ran = hooks_of(repo, newest)
    assert ran.status == "ran" and [(f.rule, f.line) for f in ran.findings] == [("hook:no-todo", 2)]
    assert hooks_of(repo, older).status == "ran"
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told.startswith("landwatch: hook:no-todo y = 2  # TODO: newest in app.py:2")
    assert f"landwatch show {newest[:7]}" in told and "to trust" not in told
    # Each landing's findings told once, the newest first.
    told = repo.run("commit", "-q", "--allow-empty", "-m", "then").stderr
    assert "# TODO: older in app.py:1" in told and f"landwatch show {older[:7]}" in told
    assert "hook:no-todo" not in repo.run("commit", "-q", "--allow-empty", "-m", "last").stderr
    # Asked for by name, the hooks of a landing run again; run by nobody else twice.
    again = repo.landwatch("enqueue", "--kind", "project_hooks", newest)
    assert again.stdout == f"again project_hooks-{newest}\n"
    drained(tools(tmp_path, "pre-commit"))
    assert hooks_of(repo, newest).started > ran.started
    assert settled(repo).count(f"project_hooks-{newest}") == 1


RUFF_FIX = """\
id: ruff
name: ruff
language: system
entry: ruff check --fix
types_or: [python, pyi]
"""


def test_a_check_after_a_fixing_hook_is_placed_on_the_committed_line(
    tmp_path: Path, repo: Repo
) -> None:
    # Issue 39: ruff --fix took line 1 away, and the check after it named line 3 of the fixed
    # file: the finding landed on the committed line 3 (blank) with its snippet.
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(RUFF_FIX, TODO_CHECK)})
    oid = repo.land("a todo", {"m.py": "import os\nimport sys\n\nx = sys.argv  # TODO: later\n"})
    drained(tools(tmp_path, "pre-commit", "ruff"))
    hooks = hooks_of(repo, oid)
    placed = [(f.rule, f.line, f.snippet) for f in hooks.findings if f.rule == "hook:no-todo"]
    assert placed == [("hook:no-todo", 4, "x = sys.argv  # TODO: later")]


def test_what_a_fixing_hook_fixed_is_named_on_the_line_it_changed(
    tmp_path: Path, repo: Repo
) -> None:
    # Issue 39: not only "the hook changes this file": ruff's own report of what it fixed.
    ruff = RUFF_FIX.replace("--fix", "--fix --show-fixes")
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(ruff)})
    oid = repo.land("unused", {"m.py": "import os\nimport sys\n\nprint(sys.argv)\n"})
    drained(tools(tmp_path, "pre-commit", "ruff"))
    [fix] = hooks_of(repo, oid).findings
    assert (fix.rule, fix.path, fix.line, fix.snippet) == ("hook:ruff", "m.py", 1, "import os")
    assert fix.message == (
        f"fixed F401 (unused-import): line 1 changed (`landwatch show {oid[:7]} --patch`)"
    )
    shown = repo.landwatch("show", oid).stdout
    assert "1 warning hook:ruff ruff: fixed F401 (unused-import): line 1 changed" in shown


def test_a_problem_landwatch_and_a_hook_both_find_is_told_once(tmp_path: Path, repo: Repo) -> None:
    # Issue 39's trial: ruff --fix takes line 1 away before debug-statements reads the file;
    # P001 and P007 find what trailing-whitespace and debug-statements find.
    fixer = "id: trailing-whitespace\nname: trim trailing whitespace\nlanguage: python\n"
    fixer += "entry: trailing-whitespace-fixer\nadditional_dependencies: [pre-commit-hooks]"
    debug = "id: debug-statements\nname: debug statements (python)\nlanguage: python\n"
    debug += "entry: debug-statement-hook\nadditional_dependencies: [pre-commit-hooks]\n"
    debug += "types: [python]"
    config = local_hooks(RUFF_FIX, debug, fixer)
    committed_and_trusted(repo, {".pre-commit-config.yaml": config})
    oid = repo.land("debugging", {"m.py": "import os\nx = 1   \nbreakpoint()\n"})
    drained(tools(tmp_path, "pre-commit", "ruff"))
    # The one line names the problem once too: the rule's finding, at the hook's severity.
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told.startswith("landwatch: P007 debug statement") and "hook:debug" not in told
    report = report_store.read(repo.git_dir, oid)
    assert report is not None
    found = [(f.rule, f.line, f.severity.name) for f in report.findings if f.path == "m.py"]
    # ruff's own T100 is its own: no rule of landwatch stands for that hook. Said of line 2 of
    # the file ruff fixed, it is the committed line 3.
    assert found == [
        ("P001", 2, "WARNING"),
        ("P007", 3, "ERROR"),
        ("hook:ruff", 3, "ERROR"),
        ("hook:ruff", 1, "WARNING"),
    ]
    shown = repo.landwatch("show", oid).stdout
    assert (
        "trailing whitespace (the project's hook trailing-whitespace reports it too: the hook "
        f"changes line 2 (`landwatch show {oid[:7]} --patch`))"
    ) in " ".join(shown.split())
    assert "(the project's hook debug-statements reports it too: breakpoint called)" in shown
    assert "fixed 1 error: line 1 changed" in shown


def test_a_build_failing_in_words_that_hold_a_token_is_kept_and_shown_redacted(
    tmp_path: Path, repo: Repo
) -> None:
    """An audit: the hooks' environments failed to build, prek's last line echoing a value of
    the configuration that held a token; it was kept whole in project-hooks-state.json (status
    redacted it when shown) and in the job's error in the reviewer's state file."""
    token = "glpat-" + random_text("hooks", 20)
    hook = f"id: tok\nname: tok\nlanguage: python\nentry: tok\nlanguage_version: {token}\n"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook)})
    repo.land("a change", {"a.py": "x = 1\n"})
    drained(tools(tmp_path, "prek"), LEFT_WAITING)
    waiting = layout.HOOKS_WAITING.path(repo.git_dir).read_text()
    assert "`glpa…`" in json.loads(waiting)["last_error"], waiting
    kept = layout.REVIEWER_STATE.path().read_text()
    [job] = [job for job in json.loads(kept)["lines"]["project_hooks"] if job["error"]]
    assert "`glpa…`" in job["error"], job
    status = repo.landwatch("status").stdout
    assert "building the project hooks' environments has failed for" in status, status
    log = layout.REVIEWER_LOG.path().read_text()
    assert token[6:] not in waiting + kept + status + log


def test_a_repository_cloned_where_another_was_removed_gets_a_store_of_its_own(
    tmp_path: Path,
) -> None:
    """Wall audit: the store was named by the repository's path alone. A repository whose trusted
    build planted code in its environments, removed (`rm -rf`), and another project cloned at
    its path: that project's hooks ran in the planted environments."""
    from landwatch.kinds.project_hooks import hook_store

    first = installed(tmp_path / "project")
    planted = hook_store(first.git_dir) / "py_env-default" / "zz_planted.pth"
    planted.parent.mkdir()
    planted.write_text("import os\n")
    shutil.rmtree(first.path)
    second = installed(tmp_path / "project")
    store = hook_store(second.git_dir)
    assert store != planted.parent.parent and list(store.iterdir()) == []
    assert hook_store(second.git_dir) == store  # its own, from now on
    assert (layout.HOOK_STORE.path(second.git_dir).stat().st_mode & 0o777) == 0o600


def test_a_store_named_by_the_path_alone_is_removed_once_the_repository_names_its_own(
    repo: Repo,
) -> None:
    from landwatch import trust
    from landwatch.kinds.project_hooks import hook_store

    key = hashlib.sha256(os.fsencode(trust.repository_key(repo.git_dir))).hexdigest()[:16]
    before = layout.HOOK_ENVS.path() / key  # what an earlier landwatch made
    (before / "repo-x").mkdir(parents=True)
    layout.HOOK_STORE.path(repo.git_dir).write_text("../../not-a-name\n")  # not one it gives
    store = hook_store(repo.git_dir)
    assert not before.exists() and store.parent == layout.HOOK_ENVS.path()
    assert len(store.name) == 32
