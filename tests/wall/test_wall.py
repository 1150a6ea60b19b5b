"""The wall as a whole, tried as an attacker would (issue 37): a repository's hooks, trusted or
not, run behind bubblewrap with real pre-commit, prek and lefthook, and reach nothing of the
person; nothing outside the wall runs on what they could write; trust pins every file the
managers read as configuration, and what it cannot pin runs behind the wall.

What each attack must not reach is kept outside /tmp (support.sandbox.far_away): the sandbox
before the wall hid /tmp whole, and showed the rest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from landwatch.review.project_hooks.results import HooksResult
from landwatch.wall.project_hooks.checkout import REPLACED
from support.project_hooks import (
    CREDENTIALS,
    REACHING,
    committed,
    committed_and_trusted,
    drained,
    hooks_of,
    local_hooks,
    tools,
)
from support.repos import Repo
from support.sandbox import UNPACKED, far_away, needs_bwrap

PRIVATE = "the person's own words"


def walled_path(tmp_path: Path, *names: str) -> str:
    """A PATH with these hook managers, bubblewrap, and the system's commands."""
    return f"{tools(tmp_path, *names)}{os.pathsep}{UNPACKED}"


def told(hooks: HooksResult) -> str:
    """All the hooks' result says, as one text: what could have carried a secret out."""
    return "\n".join(
        [*hooks.notes, *(f"{f.message} {f.snippet}" for f in hooks.findings), hooks.patch]
    )


def script(body: str) -> str:
    return "#!/bin/sh\n" + textwrap.dedent(body)


@needs_bwrap
def test_a_hook_cannot_leave_through_the_checkout_s_git_dir(tmp_path: Path, repo: Repo) -> None:
    # Attack 2: the checkout's .git was writable behind the wall, and `git diff` ran there after
    # the hooks, outside it, honouring the core.fsmonitor a hook planted.
    with far_away("fsmonitor") as far:
        escape = far / "escape.sh"
        escape.write_text(script(f"touch {far}/escaped\n"))
        escape.chmod(0o755)
        plant = script(f"""\
            if printf '[core]\\n\\tfsmonitor = {escape}\\n' >> .git/config; then
                echo planted
            else
                echo refused
            fi
            exit 1
            """)
        fix = script("""\
            echo "changed by the hook" >> "$1"
            """)
        hooks = local_hooks(
            "id: plant\nname: plant\nlanguage: script\nentry: plant.sh\npass_filenames: false",
            "id: fix\nname: fix\nlanguage: script\nentry: fix.sh",
        )
        committed_and_trusted(
            repo, {".pre-commit-config.yaml": hooks, "plant.sh": plant, "fix.sh": fix}
        )
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a change", {"a.txt": "one\n"})
        drained(walled_path(tmp_path, "pre-commit"))
        result = hooks_of(repo, oid)
        assert "refused" in told(result) and "planted" not in told(result), result.findings
        assert result.patch.startswith("diff --git a/a.txt b/a.txt")  # its fix, read without git
        assert not (far / "escaped").exists()


@needs_bwrap
def test_a_hook_that_swaps_its_checkout_for_a_link_has_nothing_of_the_person_read(
    tmp_path: Path, repo: Repo
) -> None:
    # An audit: the scratch directory is writable behind the wall, so a hook renamed its
    # checkout and left a link in its place to a directory of the person's; outside the wall,
    # its file named as the landed one was read, whole, as the hooks' fix.
    with far_away("home") as far:
        (far / "diary.txt").write_text(PRIVATE + "\n")
        swap = script(f"""\
            cd .. && mv work work.moved && ln -s {far} work
            echo swapped
            """)
        hook = "id: swap\nname: swap\nlanguage: script\nentry: swap.sh\npass_filenames: false"
        committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook), "swap.sh": swap})
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a diary of the project", {"diary.txt": "nothing here\n"})
        drained(walled_path(tmp_path, "pre-commit"))
        hooks = hooks_of(repo, oid)
    assert PRIVATE not in told(hooks) and hooks.patch == "", hooks.notes
    assert REPLACED in hooks.notes


@needs_bwrap
def test_what_a_trusted_hook_runs_beyond_the_pins_runs_behind_the_wall(
    tmp_path: Path, repo: Repo
) -> None:
    # Attack 4: a trusted `python -m tools.lint` whose module (never a closed list: imports,
    # Makefiles, sourced files) changed after trust ran, with the person's files in reach.
    hook = "id: lint\nname: lint\nlanguage: system\nentry: python3 -m tools.lint\n"
    hook += "pass_filenames: false"
    files = {
        ".pre-commit-config.yaml": local_hooks(hook),
        "tools/__init__.py": "",
        "tools/lint.py": "print('fine')\n",
    }
    with far_away("home") as far:
        (far / "id_rsa").write_text(PRIVATE + "\n")
        committed_and_trusted(repo, files)
        repo.git("config", "landwatch.sandbox", "true")
        changed = textwrap.dedent(f"""\
            import os, socket, sys
            for what in ({str(far / "id_rsa")!r}, os.path.expanduser("~/.gitconfig")):
                try:
                    print(open(what).read())
                except OSError as error:
                    print("refused:", error.strerror)
            sys.exit(1)
            """)
        oid = repo.land("the module changes", {"tools/lint.py": changed})
        drained(walled_path(tmp_path, "pre-commit"))
        hooks = hooks_of(repo, oid)
        assert hooks.status == "ran" and [f.rule for f in hooks.findings] == ["hook:lint"]
        assert "refused: No such file or directory" in told(hooks)
        assert PRIVATE not in told(hooks) and "sandbox = false" not in told(hooks)


@needs_bwrap
def test_a_file_of_the_person_s_a_hook_names_by_its_path_is_not_in_sight(
    tmp_path: Path, repo: Repo
) -> None:
    # Attack 12: every word of a hook's entry was taken for a program to keep in sight, a path
    # to any file included: `cat /home/you/.ssh/id_rsa` showed the key behind the wall.
    with far_away("home") as far:
        (far / "id_rsa").write_text(PRIVATE + "\n")
        (far / "id_rsa").chmod(0o600)
        hook = f"id: peek\nname: peek\nlanguage: system\nentry: cat {far / 'id_rsa'}\n"
        committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook)})
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a change", {"a.py": "x = 1\n"})
        drained(walled_path(tmp_path, "pre-commit"))
        hooks = hooks_of(repo, oid)
        assert hooks.status == "ran" and [f.rule for f in hooks.findings] == ["hook:peek"]
        assert "No such file or directory" in told(hooks) and PRIVATE not in told(hooks)


@needs_bwrap
def test_the_person_s_own_store_of_environments_is_never_the_hooks(
    tmp_path: Path, repo: Repo
) -> None:
    # Attack 5: the store the hooks ran from was the person's ~/.cache/pre-commit, writable from
    # inside: a poisoned cached hook ran at their next own commit in another project.
    theirs = Path(os.environ["XDG_CACHE_HOME"]) / "pre-commit"
    theirs.mkdir(parents=True)
    poison = script("""\
        for store in "$PRE_COMMIT_HOME" "$XDG_CACHE_HOME/pre-commit" "$0.store"; do
            echo poisoned > "$store/poisoned" 2>/dev/null && echo "wrote $store"
        done
        exit 1
        """).replace('"$0.store"', str(theirs))
    hook = "id: poison\nname: poison\nlanguage: script\nentry: poison.sh\npass_filenames: false"
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(hook), "poison.sh": poison})
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"a.txt": "one\n"})
    drained(walled_path(tmp_path, "pre-commit"))
    hooks = hooks_of(repo, oid)
    assert [f.rule for f in hooks.findings] == ["hook:poison"], hooks.notes
    assert "wrote" not in told(hooks)
    assert not (theirs / "poisoned").exists() and list(theirs.iterdir()) == []


@needs_bwrap
def test_the_environment_build_reaches_nothing_of_the_person(tmp_path: Path, repo: Repo) -> None:
    # Attack 7: `repo: .` made pre-commit install the project itself, running its setup.py with
    # the network and all of ~/.cache writable (where a swapped secret rule set then waited).
    cache = Path(os.environ["XDG_CACHE_HOME"])
    setup = textwrap.dedent(f"""\
        import os
        from setuptools import setup
        for place in ({str(cache / "planted")!r}, os.path.expanduser("~/.cache/planted-too")):
            try:
                open(place, "w").write("planted")
            except OSError:
                pass
        setup(name="selfhook", version="1", py_modules=["selfhook"],
              entry_points={{"console_scripts": ["selfhook=selfhook:main"]}})
        """)
    manifest = "- id: self\n  name: self\n  entry: selfhook\n  language: python\n"
    config = "repos:\n- repo: .\n  rev: HEAD\n  hooks:\n  - id: self\n"
    module = "import sys\ndef main():\n    print('self ran')\n    sys.exit(1)\n"
    files = {
        ".pre-commit-config.yaml": config,
        ".pre-commit-hooks.yaml": manifest,
        "setup.py": setup,
        "selfhook.py": module,
    }
    committed(repo, files)
    shown = repo.landwatch("trust", "--show").stdout
    assert ".: local code, as each landing has it" in shown  # never `[. at HEAD]`
    assert "runs as each landing has it, behind the wall" in shown
    assert repo.landwatch("trust", "--yes").returncode == 0
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    # setup.py runs with the environment's setuptools, from no index: pip reads "false" as
    # --no-build-isolation ("1" keeps the isolation, which fetched setuptools from PyPI).
    env = {"PIP_NO_BUILD_ISOLATION": "false"}
    drained(walled_path(tmp_path, "pre-commit"), **env)
    hooks = hooks_of(repo, oid)
    assert [f.rule for f in hooks.findings] == ["hook:self"], hooks.notes
    assert not (cache / "planted").exists() and not (cache / "planted-too").exists()


@needs_bwrap
def test_a_hook_repository_is_shown_to_the_build_only_from_what_the_tool_reads(
    tmp_path: Path, repo: Repo
) -> None:
    # An audit: every `repo:` path outside the home, of every file of pre-commit's format, was
    # shown to the environment build, which has the network: a `.pre-commit-config.yml` that
    # pre-commit never reads, beside the trusted .yaml, named /var/tmp, /tmp and /proc, and the
    # build read a Kerberos ticket there and the machine's every command line.
    with tempfile.TemporaryDirectory(prefix="landwatch-test-", dir="/var/tmp") as var_tmp:
        tickets = [Path(var_tmp) / "krb5cc_1000", tmp_path / "krb5" / "krb5cc_1000"]
        for ticket in tickets:
            ticket.parent.mkdir(exist_ok=True)
            ticket.write_text(PRIVATE)
        places = [*map(str, tickets), "/proc/1/cmdline"]
        setup = textwrap.dedent(f"""\
            import json, os
            from setuptools import setup
            seen = {{}}
            for place in {places!r}:
                try:
                    seen[place] = open(place, "rb").read().decode("utf-8", "replace")
                except OSError:
                    seen[place] = None
            with open(os.path.join(os.environ["PRE_COMMIT_HOME"], "seen.json"), "w") as file:
                json.dump(seen, file)
            setup(name="selfhook", version="1", py_modules=["selfhook"],
                  entry_points={{"console_scripts": ["selfhook=selfhook:main"]}})
            """)
        manifest = "- id: self\n  name: self\n  entry: selfhook\n  language: python\n"
        config = "repos:\n- repo: .\n  rev: HEAD\n  hooks:\n  - id: self\n"
        named = "".join(
            f"- repo: {place}\n  rev: HEAD\n  hooks: [{{id: z}}]\n"
            for place in (var_tmp, tickets[1].parent)
        )
        files = {
            ".pre-commit-config.yaml": config,
            ".pre-commit-config.yml": f"repos:\n{named}- repo: /proc\n  rev: HEAD\n  hooks: []\n",
            ".pre-commit-hooks.yaml": manifest,
            "setup.py": setup,
            "selfhook.py": "import sys\ndef main():\n    sys.exit(1)\n",
        }
        committed_and_trusted(repo, files)
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a change", {"a.py": "x = 1\n"})
        path = walled_path(tmp_path, "pre-commit")
        drained(path, PIP_NO_BUILD_ISOLATION="false")  # setuptools from the environment
        hooks = hooks_of(repo, oid)
        assert [f.rule for f in hooks.findings] == ["hook:self"], hooks.notes
        [seen] = Path(os.environ["XDG_CACHE_HOME"]).rglob("seen.json")
        built = json.loads(seen.read_text())
        assert [built[str(ticket)] for ticket in tickets] == [None, None]
        assert built["/proc/1/cmdline"] != Path("/proc/1/cmdline").read_text(errors="replace")
        # Named where pre-commit reads it, such a place is refused in a line, and nothing runs.
        committed_and_trusted(repo, {".pre-commit-config.yaml": config + named})
        oid = repo.land("another change", {"a.py": "x = 2\n"})
        drained(path)
        hooks = hooks_of(repo, oid)
        assert hooks.status == "failed" and hooks.findings == [], hooks.notes
        why = f"the hook repository {var_tmp} is not shown to the environment build: it is in"
        assert why in told(hooks)


# A remote's repository and rev written in its own entry, and given through a YAML merge key
# (pre-commit and landwatch's reading both resolve it; the revs were written only where they
# stand, and a configuration with nothing written was not checked: the moved tag ran).
SPELLINGS = {
    "written-plainly": "repos:\n- repo: {url}\n  rev: v1\n  hooks:\n  - id: say\n",
    "through-a-merge-key": (
        "remote: &hooks\n  repo: {url}\n  rev: v1\nrepos:\n- <<: *hooks\n  hooks:\n  - id: say\n"
    ),
}


@needs_bwrap
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_tag_moved_after_trust_runs_nothing_new(
    tmp_path: Path, repo: Repo, spelling: str
) -> None:
    # Attack 11: a remote hook's `rev: v1` was trusted by its name; the tag moved upstream
    # before the environment was built, and its new code ran.
    with far_away("hooks") as hooks_place, far_away("tag") as far:
        hooks_repo = Repo(hooks_place / "hooks-repo")
        manifest = "- id: say\n  name: say\n  entry: say.sh\n  language: script\n"
        say = script("""\
            echo "version one"
            exit 1
            """)
        first = committed(hooks_repo, {".pre-commit-hooks.yaml": manifest, "say.sh": say})
        hooks_repo.git("tag", "v1")
        url = f"file://{hooks_repo.path}"
        committed(repo, {".pre-commit-config.yaml": SPELLINGS[spelling].format(url=url)})
        whole = repo.landwatch("trust", "--show").stdout
        assert f"{url} at v1: {first[:12]}, a tag: held to the commit it names now" in whole
        shown = repo.landwatch("trust", "--yes").stdout
        assert f" at v1 = {first[:12]}: say\n" in shown  # the first screen's row of that remote
        moved = script(f"""\
            touch {far}/moved
            echo "version two"
            exit 1
            """)
        committed(hooks_repo, {"say.sh": moved}, "v1, again")
        hooks_repo.git("tag", "-f", "v1")
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a change", {"a.txt": "one\n"})
        drained(walled_path(tmp_path, "pre-commit"))
        hooks = hooks_of(repo, oid)
        log = next(Path(os.environ["XDG_CACHE_HOME"]).rglob("pre-commit.log"), None)
        assert "version two" not in told(hooks), (hooks.notes, log.read_text() if log else None)
        assert not (far / "moved").exists()
    if spelling == "written-plainly":
        assert "version one" in told(hooks)
    else:  # not written where it stands: refused in a line, never run by its name
        assert hooks.status == "failed" and hooks.findings == []
        assert f"the rev of {url} (v1) could not be written as the commit trusted" in told(hooks)
    assert hooks.patch == ""  # the configuration written with the commit id is not a fix


def test_a_program_a_copied_repository_s_hook_names_is_not_run_by_doctor(
    tmp_path: Path, repo: Repo
) -> None:
    # Attack 1: pre-commit off PATH, `landwatch doctor` in an untrusted repository ran the
    # program its installed hook names as `python -mpre_commit --version` in the worktree,
    # importing the committed pre_commit.py, with no sandbox at all.
    ran = tmp_path / "ran"
    committed(
        repo,
        {
            ".pre-commit-config.yaml": local_hooks("id: x\nname: x\nlanguage: system\nentry: true"),
            "pre_commit.py": f"open({str(ran)!r}, 'w')\n",
        },
    )
    hook = repo.git_dir / "hooks" / "pre-commit"
    hook.write_text(
        "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"
        f"INSTALL_PYTHON={sys.executable}\n"
    )
    doctor = subprocess.run(
        [sys.executable, "-m", "landwatch", "doctor"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"/usr/bin{os.pathsep}/bin"},
    )
    assert "cannot run: pre-commit or prek is not installed" in doctor.stdout, doctor.stdout
    assert not ran.exists()


@needs_bwrap
def test_a_configuration_file_added_after_trust_runs_nothing(tmp_path: Path, repo: Repo) -> None:
    # Attack 3: prek's nested configuration and lefthook's local files, added under an unchanged
    # trusted digest, ran their commands. prek and lefthook themselves, behind the wall.
    fine = "id: fine\nname: fine\nlanguage: system\nentry: 'true'"
    lefthook = "pre-commit:\n  commands:\n    fine:\n      run: 'true'\n"
    committed_and_trusted(
        repo, {".pre-commit-config.yaml": local_hooks(fine), "lefthook.yml": lefthook}
    )
    repo.git("config", "landwatch.sandbox", "true")
    path = walled_path(tmp_path, "prek", "lefthook")
    oid = repo.land("trusted as it is", {"sub/a.txt": "one\n"})
    drained(path)
    ran = hooks_of(repo, oid)
    assert ran.status == "ran", [note[-300:] for note in ran.notes]
    assert [tool.split()[0] for tool in sorted(ran.tools)] == ["lefthook", "prek"]
    with far_away("added") as far:
        touch = f"id: added\nname: added\nlanguage: system\nentry: touch {far}/ran\n"
        touch += "pass_filenames: false"
        added = {
            "sub/.pre-commit-config.yaml": local_hooks(touch),
            "lefthook-local.json": '{"pre-commit": {"commands": {"added": '
            f'{{"run": "touch {far}/ran"}}}}}}}}\n',
        }
        oid = repo.land("one more configuration", {**added, "sub/a.txt": "two\n"})
        drained(path)
        held = hooks_of(repo, oid)
        assert held.status == "untrusted" and not (far / "ran").exists()


@needs_bwrap
def test_a_linked_worktree_s_hooks_run_behind_the_wall_on_its_repository_s_objects(
    tmp_path: Path, repo: Repo
) -> None:
    # Issue 39: in a linked worktree the checkout borrowed the worktree's own git dir, which has
    # no objects. Borrowed from the common git dir now, they are in sight and read-only.
    probe = script("""\
        git cat-file -t HEAD
        objects=$(cat .git/objects/info/alternates)
        touch "$objects/planted" 2>/dev/null && echo "wrote the objects" || echo "objects refused"
        printf '[core]\\n\\tbare = true\\n' >> .git/config 2>/dev/null && echo "wrote .git"
        exit 1
        """)
    hook = "id: probe\nname: probe\nlanguage: script\nentry: probe.sh\npass_filenames: false"
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    linked = Repo.existing(tmp_path / "linked")
    committed_and_trusted(linked, {".pre-commit-config.yaml": local_hooks(hook), "probe.sh": probe})
    linked.git("config", "landwatch.sandbox", "true")
    oid = linked.land("a change", {"a.txt": "one\n"})
    drained(walled_path(tmp_path, "pre-commit"))
    hooks = hooks_of(linked, oid)
    assert hooks.status == "ran" and [f.rule for f in hooks.findings] == ["hook:probe"], hooks
    assert "commit" in told(hooks) and "objects refused" in told(hooks)
    assert "wrote" not in told(hooks)
    assert not list((repo.git_dir / "objects").glob("planted"))
    assert len(repo.git("worktree", "list").splitlines()) == 2


@needs_bwrap
def test_a_repository_whose_objects_are_a_link_shows_its_hooks_nothing_it_leads_to(
    tmp_path: Path, repo: Repo
) -> None:
    # An archive's `.git/objects` linked to a directory of the person's (landwatch's state): git
    # keeps the objects there, and the bind of the objects the checkout borrows followed the
    # link, showing the hooks all of it.
    with far_away("state") as far:
        probe = script(f"""\
            echo "the hook ran"
            cat {repo.git_dir / "objects" / "work-key"}
            exit 1
            """)
        hook = "id: probe\nname: probe\nlanguage: script\nentry: probe.sh\npass_filenames: false"
        files = {".pre-commit-config.yaml": local_hooks(hook), "probe.sh": probe}
        committed_and_trusted(repo, files)
        repo.git("config", "landwatch.sandbox", "true")
        objects = repo.git_dir / "objects"
        for entry in objects.iterdir():
            shutil.move(entry, far / entry.name)  # /home may be another file system
        objects.rmdir()
        objects.symlink_to(far)
        (far / "work-key").write_text(PRIVATE + "\n")
        oid = repo.land("a change", {"a.txt": "one\n"})
        drained(walled_path(tmp_path, "pre-commit"))
        hooks = hooks_of(repo, oid)
        assert PRIVATE not in told(hooks) and "the hook ran" not in told(hooks)
        assert hooks.status == "failed", hooks
        assert "the repository's objects directory is a link" in told(hooks)


@needs_bwrap
def test_no_credential_of_a_package_manager_reaches_a_build_or_a_hook(
    tmp_path: Path, repo: Repo
) -> None:
    # Attack 13 (an audit): every PIP_*, UV_* and npm_config_* of the person's environment went
    # to the environment build, which runs what the repository names with the network, and to
    # every hook: a publish token, npm's _auth, an index URL with its password.
    setup = textwrap.dedent("""\
        import json, os
        from setuptools import setup
        seen = os.path.join(os.environ["PRE_COMMIT_HOME"], "seen-by-the-build.json")
        with open(seen, "w") as file:
            json.dump(dict(os.environ), file)
        setup(name="selfhook", version="1", py_modules=["selfhook"],
              entry_points={"console_scripts": ["selfhook=selfhook:main"]})
        """)
    module = textwrap.dedent("""\
        import os, sys
        def main():
            for name, value in sorted(os.environ.items()):  # a finding each
                print(f"a.py:1:{name}={value}")
            sys.exit(1)
        """)
    manifest = "- id: self\n  name: self\n  entry: selfhook\n  language: python\n"
    config = "repos:\n- repo: .\n  rev: HEAD\n  hooks:\n  - id: self\n"
    files = {
        ".pre-commit-config.yaml": config,
        ".pre-commit-hooks.yaml": manifest,
        "setup.py": setup,
        "selfhook.py": module,
    }
    committed_and_trusted(repo, files)
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"a.py": "x = 1\n"})
    # setup.py runs with the environment's setuptools, from no index (pip reads "false" as
    # --no-build-isolation; "1" keeps the isolation, which fetches setuptools).
    env = {"PIP_NO_BUILD_ISOLATION": "false", **CREDENTIALS, **REACHING}
    drained(walled_path(tmp_path, "pre-commit"), **env)
    hooks = hooks_of(repo, oid)
    assert {f.rule for f in hooks.findings} == {"hook:self"}, hooks.notes
    [seen] = Path(os.environ["XDG_CACHE_HOME"]).rglob("seen-by-the-build.json")
    built = json.loads(seen.read_text())
    assert {key: built.get(key) for key in REACHING} == REACHING  # how to reach an index
    ran = told(hooks)
    assert "PRE_COMMIT_HOME" in ran  # what the hook was given is there to see
    # What the build was not given is said by name, once, never by value.
    [left] = [line for line in hooks.notes if "the environment build was not given" in line]
    ran = ran.replace(left, "")
    assert "PIP_EXTRA_INDEX_URL" in left and "UV_EXTRA_INDEX_URL" in left
    for name, value in CREDENTIALS.items():
        assert name not in built and name not in ran
        assert value not in seen.read_text() and value not in ran and value not in left
    assert not [name for name in REACHING if name in ran]  # the hooks run without the network


LEFTHOOK_SCRIPT = 'pre-commit:\n  scripts:\n    "check.sh":\n      runner: sh\n'
NEW_CODE = 'echo "NEW CODE, NEVER TRUSTED: $(id -un)"\nexit 1\n'
# The audit's repository: two scripts, one of them a link into tools/.
BESIDE_A_LINK = {
    "lefthook.yml": LEFTHOOK_SCRIPT + '    "format.sh":\n      runner: sh\n',
    ".lefthook/pre-commit/format.sh": "echo formatted\n",
    "tools/check.sh": "echo fine\n",
}
LINKED = {".lefthook/pre-commit/check.sh": "../../tools/check.sh"}
THROUGH_A_LINK = (
    "id: check\nname: check\nlanguage: script\nentry: bin/check.sh\npass_filenames: false"
)
# What a hook manager runs of the tree, through a link or where trust did not look, changed
# after trust: (the manager, the files and links trusted, the files and links then landed).
SWAPPED = {
    "a lefthook script's link re-pointed": (
        "lefthook",
        (BESIDE_A_LINK, LINKED),
        ({"tools/other.sh": NEW_CODE}, {".lefthook/pre-commit/check.sh": "../../tools/other.sh"}),
    ),
    "what a lefthook script's link leads to changed": (
        "lefthook",
        (BESIDE_A_LINK, LINKED),
        ({"tools/check.sh": NEW_CODE}, {}),
    ),
    "lefthook's source directory a link": (
        "lefthook",
        (
            {"lefthook.yml": LEFTHOOK_SCRIPT, "hooks/pre-commit/check.sh": "echo fine\n"},
            {".lefthook": "hooks"},
        ),
        ({"hooks/pre-commit/check.sh": NEW_CODE}, {}),
    ),
    "a lefthook script added in .config/lefthook": (
        "lefthook",
        ({"lefthook.yml": LEFTHOOK_SCRIPT, ".lefthook/pre-commit/check.sh": "echo fine\n"}, {}),
        ({".config/lefthook/pre-commit/check.sh": NEW_CODE}, {}),
    ),
    "a pre-commit entry through a linked directory": (
        "pre-commit",
        (
            {
                ".pre-commit-config.yaml": local_hooks(THROUGH_A_LINK),
                "tools/check.sh": script("echo fine\n"),
            },
            {"bin": "tools"},
        ),
        ({"tools/check.sh": script(NEW_CODE)}, {}),
    ),
}


def swapped_after_trust(
    tmp_path: Path,
    repo: Repo,
    tool: str,
    trusted: tuple[dict[str, str], dict[str, str]],
    landed: tuple[dict[str, str], dict[str, str]],
) -> tuple[HooksResult, HooksResult]:
    """The files and links `trusted` committed and trusted, a landing run by the real manager
    behind the wall, then `landed` and a landing: the two landings' results."""
    files, links = trusted
    repo.link(links)
    committed_and_trusted(repo, files)
    repo.git("config", "landwatch.sandbox", "true")
    path = walled_path(tmp_path, tool)
    oid = repo.land("trusted as it is", {"a.txt": "one\n"})
    drained(path)
    ran = hooks_of(repo, oid)
    files, links = landed
    repo.link(links)
    oid = repo.land("the code swapped", {**files, "a.txt": "two\n"})
    drained(path)
    return ran, hooks_of(repo, oid)


@needs_bwrap
@pytest.mark.parametrize(("tool", "trusted", "landed"), SWAPPED.values(), ids=list(SWAPPED))
def test_what_a_hook_manager_runs_through_a_link_is_pinned(
    tmp_path: Path,
    repo: Repo,
    tool: str,
    trusted: tuple[dict[str, str], dict[str, str]],
    landed: tuple[dict[str, str], dict[str, str]],
) -> None:
    # The audit's: lefthook's `.lefthook/pre-commit/check.sh`, a link into tools/, re-pointed at
    # new code (or its target changed) ran as `NEW CODE, NEVER TRUSTED: you` under the old
    # approval; so did a script where lefthook looks and trust did not, and a pre-commit entry
    # through a linked directory. The real managers, behind the wall.
    ran, held = swapped_after_trust(tmp_path, repo, tool, trusted, landed)
    assert held.status == "untrusted" and "NEVER TRUSTED" not in told(held), held
    # What was trusted ran: the checkout held the link and what it leads to (before, the
    # file a link leads to was there only when the landing changed it).
    assert ran.status == "ran" and not ran.findings, ran.findings


# What lefthook runs that trust did not read, changed after trust: (the configuration, the file
# it runs, that file as trusted, then as landed).
UNREAD = {
    "a template in run:": (
        "templates:\n  checker: tools/check.sh\n"
        "pre-commit:\n  commands:\n    check:\n      run: sh {checker}\n",
        "tools/check.sh",
        "echo fine\n",
        NEW_CODE,
    ),
    # The check fails unless the condition, run from the checkout, skips it; what a condition
    # prints is not shown, so the new code writes it into the landed file (the hooks' patch).
    "a skip: condition's run:": (
        "pre-commit:\n  commands:\n    check:\n      run: 'exit 1'\n"
        "      skip:\n        - run: sh tools/skip.sh\n",
        "tools/skip.sh",
        "exit 0\n",
        'echo "NEW CODE, NEVER TRUSTED: $(id -un)" >> a.txt\nexit 1\n',
    ),
    "the hook's setup:": (
        "pre-commit:\n  setup:\n    - run: sh tools/setup.sh\n"
        "  commands:\n    check:\n      run: 'true'\n",
        "tools/setup.sh",
        "exit 0\n",
        NEW_CODE,
    ),
}


@needs_bwrap
@pytest.mark.parametrize(("config", "run", "trusted", "landed"), UNREAD.values(), ids=list(UNREAD))
def test_what_lefthook_makes_of_a_command_is_pinned(
    tmp_path: Path, repo: Repo, config: str, run: str, trusted: str, landed: str
) -> None:
    # The audit's: `run: sh {checker}` (a template) and a `skip:` condition's `run:` ran files
    # trust had not read: changed after trust, they ran under the old approval (NEW CODE, NEVER
    # TRUSTED: you), and the first run failed, the script not in the checkout. lefthook 2.2.2,
    # behind the wall.
    ran, held = swapped_after_trust(
        tmp_path,
        repo,
        "lefthook",
        ({"lefthook.yml": config, run: trusted}, {}),
        ({run: landed}, {}),
    )
    assert held.status == "untrusted" and "NEVER TRUSTED" not in told(held), held
    assert ran.status == "ran" and not ran.findings, (ran.findings, ran.notes)


# Paths that lead back into the checkout the hooks run in (behind the wall /proc/self/cwd is
# the checkout, and so is ../work from its root), changed after trust: (the manager, the files
# trusted, the file then changed and how, the one line said).
LEADING_BACK = {
    "a pre-commit entry through /proc/self/cwd": (
        "pre-commit",
        {
            ".pre-commit-config.yaml": local_hooks(
                "id: check\nname: check\nlanguage: system\n"
                "entry: /proc/self/cwd/tools/check.sh\npass_filenames: false"
            ),
            "tools/check.sh": script("echo fine\n"),
        },
        {"tools/check.sh": script(NEW_CODE)},
        "/proc/self/cwd/tools/check.sh leads through /proc",
    ),
    "lefthook's extends: through /proc/self/cwd": (
        "lefthook",
        {
            "lefthook.yml": "extends:\n  - /proc/self/cwd/shared/hooks.yml\n"
            "pre-commit:\n  commands:\n    fine:\n      run: 'true'\n",
            "shared/hooks.yml": "pre-commit:\n  commands:\n    shared:\n      run: 'true'\n",
        },
        {
            "shared/hooks.yml": "pre-commit:\n  commands:\n    shared:\n      run: |\n"
            + "".join(f"        {line}\n" for line in NEW_CODE.splitlines())
        },
        "/proc/self/cwd/shared/hooks.yml leads through /proc",
    ),
    "a lefthook command out of the tree into the checkout's own directory": (
        "lefthook",
        {
            "lefthook.yml": "pre-commit:\n  commands:\n    check:\n"
            "      run: sh ../work/tools/check.sh\n",
            "tools/check.sh": "echo fine\n",
        },
        {"tools/check.sh": NEW_CODE},
        "../work/tools/check.sh leads out of the tree",
    ),
}


@needs_bwrap
@pytest.mark.parametrize(
    ("tool", "trusted", "landed", "said"), LEADING_BACK.values(), ids=list(LEADING_BACK)
)
def test_a_path_leading_back_into_the_checkout_runs_nothing_and_says_why(
    tmp_path: Path,
    repo: Repo,
    tool: str,
    trusted: dict[str, str],
    landed: dict[str, str],
    said: str,
) -> None:
    # The audit's: the file such a path names was pinned by nothing, so once changed it ran
    # under the old approval (NEW CODE, NEVER TRUSTED: you, behind the wall). Now nothing of
    # that configuration runs, before the change or after, and one line says why.
    ran, held = swapped_after_trust(tmp_path, repo, tool, (trusted, {}), (landed, {}))
    for result in (ran, held):
        assert result.status == "failed" and "NEVER TRUSTED" not in told(result), result
        [note] = result.notes
        assert note.startswith(f"the project's hooks did not run: {said}"), note


@needs_bwrap
def test_a_lefthook_script_linked_outside_the_tree_runs_nothing_and_says_why(
    tmp_path: Path, repo: Repo
) -> None:
    # No approval can pin what is outside the landed tree (here a program of the system, which
    # lefthook ran behind the wall): the link is pinned by its text, and its hooks do not run.
    repo.link({".lefthook/pre-commit/check.sh": "/usr/bin/id"})
    committed_and_trusted(repo, {"lefthook.yml": 'pre-commit:\n  scripts:\n    "check.sh": {}\n'})
    repo.git("config", "landwatch.sandbox", "true")
    oid = repo.land("a change", {"a.txt": "one\n"})
    drained(walled_path(tmp_path, "lefthook"))
    result = hooks_of(repo, oid)
    assert result.status == "failed" and result.notes == [
        "the project's hooks did not run: .lefthook/pre-commit/check.sh is a link to "
        "/usr/bin/id, outside the tree, where nothing is pinned"
    ]
