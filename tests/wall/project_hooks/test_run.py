"""The project's hooks with each tool a person may have (prek for the same configuration, lefthook
for its own), `landwatch doctor` saying which runs them and where, environments that cannot be
built yet waited for rather than failed, and the run under bubblewrap where the machine has it."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from landwatch import report_store, work_item
from landwatch.daemon.loop import LEFT_WAITING
from landwatch.wall.door import Wall
from landwatch.wall.project_hooks import checkout
from landwatch.wall.project_hooks.checkout import Checkout
from landwatch.wall.project_hooks.run import (
    BuildStopped,
    Room,
    passed_to_build,
    prepare,
    run_hooks,
)
from landwatch.wall.project_hooks.tools import Tool
from support.daemon import wait_for
from support.project_hooks import (
    CREDENTIALS,
    REACHING,
    committed,
    committed_and_trusted,
    drained,
    hooks_of,
    local_hooks,
    settled,
    tools,
)
from support.queue import tmpfs
from support.repos import Repo, run_cli
from support.sandbox import (
    AS_YOU,
    WITH_BWRAP,
    account,
    far_away,
    needs_accounts,
    needs_bwrap,
    walled,
)

FAILING = """\
id: place
name: place
language: system
entry: sh -c 'for f; do echo "$f:1:placed here"; done; exit 1' --
"""
LEFTHOOK = """\
pre-commit:
  commands:
    place:
      glob: "*.py"
      run: 'for f in {staged_files}; do echo "$f:1: placed by lefthook"; done; exit 1'
    fine:
      run: "true"
  scripts:
    "guard.sh":
      runner: sh
"""


def test_prek_runs_the_same_configuration(tmp_path: Path, repo: Repo) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(FAILING)})
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    drained(tools(tmp_path, "prek"))
    hooks = hooks_of(repo, oid)
    assert hooks.tools and hooks.tools[0].startswith("prek "), hooks.notes
    assert [(f.rule, f.path, f.line, f.message) for f in hooks.findings] == [
        ("hook:place", "a.py", 1, "placed here")
    ]


def test_lefthook_runs_its_pre_commit_commands_and_scripts(tmp_path: Path, repo: Repo) -> None:
    guard = "#!/bin/sh\necho 'guard says no'\nexit 1\n"
    files = {"lefthook.yml": LEFTHOOK, ".lefthook/pre-commit/guard.sh": guard}
    committed_and_trusted(repo, files)
    oid = repo.land("a change", {"a.py": "x = 1\n", "b.txt": "2\n"})
    drained(tools(tmp_path, "lefthook"))
    hooks = hooks_of(repo, oid)
    assert hooks.tools[0].startswith("lefthook 2.")
    found = sorted((f.rule, f.path, f.line, f.snippet) for f in hooks.findings)
    assert found == [
        ("hook:guard.sh", None, None, "guard says no"),
        ("hook:place", "a.py", 1, "x = 1"),
    ]
    assert {hook["id"]: hook["status"] for hook in hooks.hooks}["fine"] == "passed"
    assert not (repo.path / ".git" / "hooks" / "pre-commit").exists()  # nothing installed


def test_doctor_says_which_tool_runs_the_hooks_and_where(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(FAILING)})
    monkeypatch.setenv("PATH", tools(tmp_path, "pre-commit"))
    _, said = run_cli(repo, "doctor", capsys=capsys)
    line = said.splitlines()[-1]
    assert line.startswith("landwatch doctor: the project's hooks (.pre-commit-config.yaml) run ")
    assert line.endswith(f"({tmp_path}/bin-pre-commit/pre-commit) (trusted)")
    monkeypatch.setenv("PATH", tools(tmp_path, "lefthook"))
    _, said = run_cli(repo, "doctor", capsys=capsys)
    assert said.splitlines()[-1] == (
        "landwatch doctor: the project's hooks (.pre-commit-config.yaml) cannot run: pre-commit "
        "or prek is not installed on this PATH, nor in ~/.local/bin or ~/.cargo/bin"
    )


def test_environments_that_cannot_be_built_yet_are_waited_for(tmp_path: Path, repo: Repo) -> None:
    missing = "id: missing\nname: missing\nlanguage: python\nentry: missing\n"
    missing += "additional_dependencies: [landwatch-no-such-package]"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(missing)})
    oid = repo.land("a change", {"a.py": "x = 1  \n"})
    # The network's wait (5 min) is past what `--once` waits: it leaves the item, and says so.
    ran = drained(tools(tmp_path, "pre-commit"), LEFT_WAITING)
    assert "left for the next run: 1 project_hooks item(s)" in ran.stderr
    hooks = hooks_of(repo, oid)
    assert hooks.status == "waiting"
    assert "could not build their environments" in hooks.notes[0]
    assert "the first time, that needs the network: tried again later" in hooks.notes[0]
    # Not a failure: the item waits, no try counted, and the review stands.
    assert settled(repo) == [] and settled(repo, work_item.FAILED) == []
    work_item.publish_ready(repo.git_dir)
    [waiting] = [
        name
        for name in work_item.entries(repo.git_dir, work_item.PENDING)
        if "project_hooks" in name
    ]
    item = work_item.read_entry(repo.git_dir, work_item.PENDING, waiting)
    assert item is not None and item.tries == 0
    review = report_store.read(repo.git_dir, oid)
    assert review is not None and "P001" in [f.rule for f in review.findings]
    status = repo.landwatch("status").stdout
    assert "building the project hooks' environments has failed for" in status, status


@needs_bwrap
@pytest.mark.parametrize("tool", ["pre-commit", "prek"])
def test_behind_the_wall_hooks_run_and_build_their_environments(
    tmp_path: Path, repo: Repo, tool: str
) -> None:
    canary = tmp_path / "escaped"
    escape = "id: escape\nname: escape\nlanguage: system\n"
    escape += f"entry: sh -c 'touch {canary}; echo \"$1:1:tried\"; exit 1' --"
    pyflakes = "id: pyflakes\nname: pyflakes\nlanguage: python\nentry: pyflakes\n"
    pyflakes += "additional_dependencies: [pyflakes]\ntypes: [python]"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(escape, pyflakes)})
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"m.py": "import os\n"})
    drained(f"{tools(tmp_path, tool)}{os.pathsep}{WITH_BWRAP}")
    hooks = hooks_of(repo, oid)
    assert hooks.tools and hooks.tools[0].startswith(f"{tool} "), hooks.notes
    found = sorted((f.rule, f.line, f.message) for f in hooks.findings)
    assert found == [
        ("hook:escape", 1, "tried"),
        ("hook:pyflakes", 1, "'os' imported but unused"),
    ], hooks.notes
    assert not canary.exists()  # /tmp is the sandbox's own


UNPUSHED = "the person's unpushed work, never to leave"
MANIFEST = "- id: self\n  name: self\n  entry: selfhook\n  language: python\n"


@needs_bwrap
def test_a_build_that_clones_the_checkout_reads_none_of_the_repository_s_own_objects(
    tmp_path: Path, repo: Repo
) -> None:
    """An audit: the environment build (`repo: .`'s setup.py, with the network) was shown the
    repository's whole objects directory, which the checkout borrows: a branch never pushed,
    a stash, a commit amended away, all readable there, and sendable anywhere."""
    repo.git("checkout", "-q", "-b", "private")
    repo.land("private work", {"notes.txt": UNPUSHED + "\n"}, hooks=False)
    repo.git("checkout", "-q", "-")
    setup = textwrap.dedent(f"""\
        import json, os, zlib
        from setuptools import setup
        checkout = os.path.join(os.path.dirname(os.environ["TMPDIR"]), "work", ".git", "objects")
        places = [{str(repo.git_dir / "objects")!r}, checkout]
        try:
            places += open(os.path.join(checkout, "info", "alternates")).read().split()
        except OSError:
            pass
        read = []
        for place in places:
            for directory, _, names in os.walk(place):
                for name in names:
                    try:
                        data = open(os.path.join(directory, name), "rb").read()
                        read.append(zlib.decompress(data).decode("utf-8", "replace"))
                    except (OSError, zlib.error):
                        continue
        with open(os.path.join(os.environ["PRE_COMMIT_HOME"], "read.json"), "w") as file:
            json.dump(read, file)
        setup(name="selfhook", version="1", py_modules=["selfhook"],
              entry_points={{"console_scripts": ["selfhook=selfhook:main"]}})
        """)
    files = {
        ".pre-commit-config.yaml": "repos:\n- repo: .\n  rev: HEAD\n  hooks:\n  - id: self\n",
        ".pre-commit-hooks.yaml": MANIFEST,
        "setup.py": setup,
        "selfhook.py": "import sys\ndef main():\n    print('self ran')\n    sys.exit(1)\n",
    }
    committed_and_trusted(repo, files)
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    # setup.py runs with the environment's setuptools, from no index ("false": no isolation).
    drained(
        f"{tools(tmp_path, 'pre-commit')}{os.pathsep}{WITH_BWRAP}", PIP_NO_BUILD_ISOLATION="false"
    )
    hooks = hooks_of(repo, oid)
    # Built from the checkout, which holds the landed commit's own objects.
    assert [f.rule for f in hooks.findings] == ["hook:self"], hooks.notes
    [seen] = Path(os.environ["XDG_CACHE_HOME"]).rglob("read.json")
    read = json.loads(seen.read_text())
    assert not [text for text in read if UNPUSHED in text]


def test_a_hook_that_says_too_much_is_stopped_with_all_it_started(
    tmp_path: Path, repo: Repo
) -> None:
    """A hook writing straight to its manager's output (the managers keep what a hook says
    until it ends) at a gigabyte a second: the reviewer's memory grew until the budget. Past
    16 MB the hooks are stopped, with the commands lefthook puts in groups of their own."""
    run = "sleep 600.25 & exec yes flood > /proc/$PPID/fd/1"
    floods = f"pre-commit:\n  commands:\n    floods:\n      run: '{run}'\n"
    committed_and_trusted(repo, {"lefthook.yml": floods})
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    drained(tools(tmp_path, "lefthook"))
    hooks = hooks_of(repo, oid)
    assert hooks.status == "stopped", hooks.notes
    assert (
        "the hooks of lefthook.yml said more than 16 MB and were stopped with every process "
        "they started"
    ) in hooks.notes
    # What it started is gone too (behind the wall its pid is another namespace's).
    sleeping = ["pgrep", "-f", "sleep 600.25"]
    wait_for(lambda: subprocess.run(sleeping).returncode == 1, "what it started to be killed")
    assert settled(repo) == [f"project_hooks-{oid}"]


def test_a_build_is_told_how_to_reach_an_index_and_given_no_credential() -> None:
    # An audit: every PIP_*, UV_* and npm_config_* went to the build (which runs what the
    # repository names, with the network) and to every hook: publish tokens, npm's _auth.
    assert (
        passed_to_build({**CREDENTIALS, **REACHING, "GITHUB_TOKEN": "x", "VIRTUALENV_X": "y"})
        == REACHING
    )


@needs_bwrap
@needs_accounts
def test_a_hook_manager_in_another_user_s_home_is_not_run_and_the_result_says_why(
    tmp_path: Path,
) -> None:
    """The person's hook manager found in bob's home (a PATH holding /home/bob/.local/bin): the
    wall shows nothing of bob's home, so it does not run, and the hooks' notes say why, once."""
    with far_away("homes") as far, account(far / "bob") as bob:
        manager = bob / ".local" / "bin" / "lefthook"
        manager.parent.mkdir(parents=True)
        manager.write_text("#!/bin/sh\necho ran\n")
        manager.chmod(0o755)
        checkout = Checkout(tmp_path / "scratch" / "checkout")
        checkout.git_dir.mkdir(parents=True)
        (tmp_path / "objects").mkdir()
        notes: list[str] = []
        room = Room(checkout, walled(), tmp_path / "objects", tmp_path / "store", said=notes)
        for _ in range(2):
            ran = run_hooks(Tool("lefthook", (str(manager),), "lefthook 1"), ["a.py"], room, 30, ())
            assert ran.returncode != 0 and "ran" not in ran.text, ran.text
        assert notes == [
            f"{manager} is not shown behind the wall ({manager}): it is in {bob}, another "
            "user's home"
        ]


def test_the_files_prek_is_given_are_never_written_through_a_link_the_build_left(
    tmp_path: Path,
) -> None:
    """prek's build runs behind the wall with the scratch directory writable, then landwatch,
    outside it, wrote the list of files prek reads there: through a link the build left at
    that name, over a file of the person's the wall kept out of its reach."""
    victim = tmp_path / "victim"
    victim.write_text("the person's own\n")
    checkout = Checkout(tmp_path / "scratch" / "work")
    checkout.git_dir.mkdir(parents=True)
    (tmp_path / "scratch" / "files").symlink_to(victim)
    (tmp_path / "objects").mkdir()
    manager = tmp_path / "bin" / "prek"  # says the files given: --files0-from is its 7th word
    manager.parent.mkdir()
    manager.write_text("#!/bin/sh\ntr '\\0' '\\n' < \"$7\"\n")
    manager.chmod(0o755)
    room = Room(
        checkout, Wall(None, "not behind the wall"), tmp_path / "objects", tmp_path / "store"
    )
    ran = run_hooks(Tool("prek", (str(manager),), "prek 1"), ["a.py", "b.py"], room, 30, ())
    assert ran.returncode == 0 and ran.text.split() == ["a.py", "b.py"], ran.text
    assert victim.read_text() == "the person's own\n"
    assert not (tmp_path / "scratch" / "files").is_symlink()


# A build writing its environments into the store 4 MB at a time: a large toolchain, or a
# hook repository's setup that means to fill the disk; until it is stopped, or (given a count in
# a file `blobs` beside it) failing after that many.
FILLING_BUILD = """#!/bin/sh
most=$(cat "${0%/*}/blobs" 2>/dev/null)
mkdir -p "$PRE_COMMIT_HOME/env$$"
i=0
while [ "$i" != "$most" ] && head -c 4194304 /dev/zero > "$PRE_COMMIT_HOME/env$$/blob$i"; do
    i=$((i + 1))
done
echo "could not build the environment" >&2
exit 1
"""


def filling_build(tmp_path: Path, repo: Repo) -> tuple[str, Path]:
    """A commit declaring hooks, and a `pre-commit` whose build is FILLING_BUILD."""
    oid = committed(repo, {".pre-commit-config.yaml": local_hooks(FAILING)})
    manager = tmp_path / "pre-commit"
    manager.write_text(FILLING_BUILD)
    manager.chmod(0o755)
    return oid, manager


@pytest.mark.parametrize("behind", [True, False], ids=["behind the wall", "as you"])
def test_a_build_stopped_for_its_disk_keeps_nothing_in_the_store(
    tmp_path: Path, repo: Repo, behind: bool
) -> None:
    """An audit of attack 104's fix: a build stopped past half its disk's free space kept what it
    wrote in the store and was tried again as waiting for its environments, each try taking half
    of what was left, until the disk was full. Now what the tool keeps for the repository is
    removed, and the build is not tried again before the next landing."""
    oid, manager = filling_build(tmp_path, repo)
    disk = tmp_path / "disk"
    with tmpfs(disk, "64m"):
        objects = repo.git_dir / "objects"
        (disk / "scratch").mkdir()
        with checkout.landed(objects, oid, [".pre-commit-config.yaml"], disk / "scratch") as place:
            wall = walled() if behind else Wall(None, "not behind the wall")
            room = Room(place, wall, objects, disk / "store", programs=(str(manager), "sh", "head"))
            before = os.statvfs(disk).f_bavail
            with pytest.raises(BuildStopped, match=r"took half the 6\d MB free on its disk"):
                prepare(Tool("pre-commit", (str(manager),), "pre-commit 4"), room)
        assert not (disk / "store" / "pre-commit").exists()
        assert os.statvfs(disk).f_bavail >= before - 16  # what is left: a few directories


def test_a_failed_build_that_wrote_much_is_tried_again_from_an_empty_store(
    tmp_path: Path, repo: Repo
) -> None:
    """Round two of that audit: a build failing having written just under half the free space
    kept it and was retried as waiting for its environments, so the disk filled in steps. Past
    64 MB left, what the tool keeps for the repository is removed before the next try; a build
    that failed having written little (the network down) keeps the store as it was."""
    oid, manager = filling_build(tmp_path, repo)
    disk = tmp_path / "disk"
    with tmpfs(disk, "256m"):
        (disk / "scratch").mkdir()
        objects = repo.git_dir / "objects"
        kept = disk / "store" / "pre-commit" / "built-before"
        kept.mkdir(parents=True)
        tool = Tool("pre-commit", (str(manager),), "pre-commit 4")
        for blobs, stays in (("1", True), ("20", False)):  # 4 MB, then 80 MB
            (tmp_path / "blobs").write_text(blobs)
            paths = [".pre-commit-config.yaml"]
            with checkout.landed(objects, oid, paths, disk / "scratch") as place:
                room = Room(place, AS_YOU, objects, disk / "store", programs=(str(manager),))
                said = prepare(tool, room)
            assert said == "pre-commit install-hooks: could not build the environment"
            assert kept.exists() == stays
