"""What a walled program needs in sight besides the system (wall.installations): its own
installation when it is recognisably one (a virtual environment, a Python, Node.js's
node_modules), the interpreter its script names, the one a link leads to; never a directory that
merely holds it (a home, `~/.cargo`, a repository), nor all of a prefix that is also the
person's own (`~/.local`), however a path spells it (`..`, links); nothing in another person's
home, said once; a path a repository wrote only where it is a program."""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

import pytest

from landwatch.wall.door import kept_environment
from landwatch.wall.door import walled as walled_run
from landwatch.wall.installations import installations, people_s_homes, uid_min, under_system
from landwatch.wall.sandbox import Reach
from landwatch.wall.workspace import workspace
from support.sandbox import account, far_away, needs_accounts, needs_bwrap, walled


def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_a_virtual_environment_is_shown_whole_with_the_python_it_was_made_from(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "ci" / ".venv"
    executable(venv / "bin" / "ruff")
    base = Path(sys.base_prefix)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\n")
    (venv / "bin" / "python3").symlink_to(Path(sys.executable).resolve())
    found = installations(["ruff"], str(venv / "bin"))
    assert found[0] == venv
    assert all(under_system(place) or place in (venv, base) for place in found), found


def test_a_tool_in_a_personal_directory_is_shown_alone(tmp_path: Path) -> None:
    # ~/.cargo holds credentials.toml beside bin/, ~/.local landwatch's own state.
    cargo = tmp_path / "home" / ".cargo"
    (cargo / "credentials.toml").parent.mkdir(parents=True)
    (cargo / "credentials.toml").write_text("token = 'x'\n")
    tool = executable(cargo / "bin" / "prek", "\x7fELF")
    assert installations(["prek"], str(cargo / "bin")) == [tool]


def test_a_link_on_path_shows_the_link_and_the_installation_it_leads_to(tmp_path: Path) -> None:
    venv = tmp_path / "pipx" / "venvs" / "pre-commit"
    (venv / "pyvenv.cfg").parent.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    real = executable(venv / "bin" / "pre-commit", "#!/usr/bin/python3\n")
    links = tmp_path / "home" / ".local" / "bin"
    links.mkdir(parents=True)
    (links / "pre-commit").symlink_to(real)
    assert installations(["pre-commit"], str(links)) == [links / "pre-commit", venv]
    # Through `..`, as the machine takes it: not the system's, where /usr/.. reads as /usr.
    dotted = installations([f"/usr/..{links / 'pre-commit'}"], "/usr/bin")
    assert dotted == [links / "pre-commit", venv]


def test_a_script_s_interpreter_is_followed_through_env(tmp_path: Path) -> None:
    node = tmp_path / "nvm" / "v20"
    executable(node / "bin" / "node", "\x7fELF")
    (node / "lib" / "node_modules").mkdir(parents=True)
    package = tmp_path / "repo-tools" / "node_modules" / "lefthook" / "bin"
    script = executable(package / "index.js", "#!/usr/bin/env node\n")
    path = os.pathsep.join([str(node / "bin"), str(package)])
    found = installations([str(script)], path)
    assert found == [tmp_path / "repo-tools" / "node_modules", node]


def test_nothing_of_the_system_nor_what_is_not_there(tmp_path: Path) -> None:
    assert installations(["sh", "git", "no-such-program-here"], "/usr/bin:/bin") == []
    assert installations(["relative/ruff"], str(tmp_path)) == []
    assert under_system(Path("/usr/local/bin/x")) and not under_system(Path("/usrx"))
    assert not under_system(Path(f"/usr/..{tmp_path}/x"))
    (tmp_path / "link").symlink_to("/usr/lib")
    assert under_system(tmp_path / "link" / ".." / "bin" / "x")  # /usr/lib/.. is /usr


def test_a_path_a_repository_wrote_is_in_sight_only_where_it_is_a_program() -> None:
    """A hook's `cat /home/you/.ssh/id_rsa` names no program: the key stays out of sight."""
    key = Path.home() / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("the person's key\n")
    key.chmod(0o600)
    tool = executable(Path.home() / "tools" / "lint")
    assert installations([str(key), str(key.parent)], "/usr/bin") == []
    assert installations([str(tool)], "/usr/bin") == [tool]


def npm_prefix_at_home(local: Path) -> tuple[Path, Path, Path]:
    """npm's prefix set to `local` (~/.local): its node, packages and a tool run by node; and
    landwatch's work key in the person's state beside them. The tool, node, the key."""
    node = executable(local / "bin" / "node", "\x7fELF")
    (local / "lib" / "node_modules").mkdir(parents=True)
    tool = executable(local / "bin" / "pre-commit", "#!/usr/bin/env node\n")
    key = Path(os.environ["XDG_STATE_HOME"]) / "landwatch" / "work-key"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("a key\n")
    return tool, node, key


def in_sight(path: Path, places: list[Path]) -> bool:
    """Whether one of `places` shows `path`, as the wall's bind follows links."""
    real = os.path.realpath(path)
    return any(Path(real).is_relative_to(os.path.realpath(place)) for place in places)


def test_a_prefix_that_is_also_the_person_s_own_shows_only_what_it_runs() -> None:
    """npm's prefix set to ~/.local: its node and packages, never the state beside them."""
    local = Path.home() / ".local"
    tool, node, key = npm_prefix_at_home(local)
    found = installations(["pre-commit"], str(local / "bin"))
    assert found == [tool, local / "lib" / "node_modules", node], found
    assert not in_sight(key, found)


def test_the_person_s_own_prefix_is_known_however_a_path_spells_it() -> None:
    """An entry's `~/.local/bin/../bin/pre-commit`, or PATH through a link to ~/.local: the
    prefix is judged where it is (bwrap's bind goes there), its state stays out of sight."""
    local = Path.home() / ".local"
    tool, node, key = npm_prefix_at_home(local)
    dotted = installations([f"{local}/bin/../bin/pre-commit"], "/usr/bin")
    assert dotted == [tool, local / "lib" / "node_modules", node], dotted
    linked = Path.home() / ".npm-global"
    linked.symlink_to(local)
    found = installations(["pre-commit"], str(linked / "bin"))
    assert linked / "bin" / "pre-commit" in found and tool in found, found
    assert not in_sight(key, found)


def test_the_person_s_own_directories_are_known_where_links_put_them(tmp_path: Path) -> None:
    """~/.local a link to another disk, npm's prefix set to where it leads: still the person's."""
    disk = tmp_path / "disk" / "local"
    disk.mkdir(parents=True)
    (Path.home() / ".local").symlink_to(disk)
    *_, key = npm_prefix_at_home(Path.home() / ".local")
    found = installations(["pre-commit"], str(disk / "bin"))
    assert found == [
        disk / "bin" / "pre-commit",
        disk / "lib" / "node_modules",
        disk / "bin" / "node",
    ]
    assert not in_sight(key, found)


def test_a_link_to_the_root_is_no_installation_however_it_is_named(tmp_path: Path) -> None:
    """A worktree's committed `node_modules` (or `tools`) linked to `/`, and an entry naming a
    program through it: only the program is shown, never the machine and its homes."""
    worktree = tmp_path / "project"
    worktree.mkdir()
    (worktree / "node_modules").symlink_to("/")
    (worktree / "tools").symlink_to("/")
    for program in (
        worktree / "node_modules" / "usr" / "bin" / "cat",
        worktree / "tools" / "bin" / "sh",
    ):
        found = installations([str(program)], "/usr/bin")
        assert found == [program], found
        assert not in_sight(Path.home(), found)


def test_no_place_shown_leads_to_the_person_s_own() -> None:
    """Whatever a tool's tree links to is shown whole by the bind: ~/.local's `lib/node_modules`
    linked back to ~/.local is left out, the state in it with it."""
    local = Path.home() / ".local"
    node = executable(local / "bin" / "node", "\x7fELF")
    tool = executable(local / "bin" / "pre-commit", "#!/usr/bin/env node\n")
    (local / "lib").mkdir()
    (local / "lib" / "node_modules").symlink_to(local)
    assert installations(["pre-commit"], str(local / "bin")) == [tool, node]


@needs_bwrap
def test_behind_the_wall_no_spelling_of_a_program_shows_the_person_s_files(tmp_path: Path) -> None:
    """A hook's entry naming its tool through `..`, or a program through a link to `/`: `cat`
    behind the wall finds neither landwatch's work key nor a key in the home."""
    local = Path.home() / ".local"
    *_, key = npm_prefix_at_home(local)
    ssh = Path.home() / ".ssh" / "id_rsa"
    ssh.parent.mkdir()
    ssh.write_text("the person's key\n")
    (tmp_path / "node_modules").symlink_to("/")
    through_root = tmp_path / "node_modules"
    run = tmp_path / "run"
    run.mkdir()
    env = {**kept_environment(), "PATH": f"/usr/bin:/bin:{local / 'bin'}"}
    for entry, read in (
        (f"{local}/bin/../bin/pre-commit", key),
        (f"{through_root}/usr/bin/cat", through_root / ssh.relative_to("/")),
    ):
        ran = walled_run(
            walled(),
            ["/bin/cat", str(read)],
            Reach(run, writable=(run,)),
            env=env,
            input=b"",
            timeout=30,
            programs=[entry],
        )
        assert ran.returncode != 0 and b"key" not in ran.stdout, (entry, ran.stdout)


def pipx_at(home: Path, name: str) -> tuple[Path, Path]:
    """A tool installed by pipx in `home`: its virtual environment (holding a file of the
    person's beside it) and the link on their PATH."""
    venv = home / ".local" / "share" / "pipx" / "venvs" / name
    real = executable(venv / "bin" / name, "#!/usr/bin/python3\n")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "notes.txt").write_text("the person's own\n")
    link = home / ".local" / "bin" / name
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    return venv, link


@needs_accounts
def test_a_tool_in_another_user_s_home_is_left_out_and_said_once(tmp_path: Path) -> None:
    """A PATH holding /home/bob/.local/bin showed bob's tool and its installation to what a
    repository runs: only the person's own places were left out. Nothing in another person's
    home is shown, a link of one's own to it neither, and a line says which tool and why, once;
    a service's home is no person's."""
    with (
        far_away("homes") as far,
        account(far / "bob") as bob,
        account(far / "service", system=True) as service,
    ):
        _, link = pipx_at(bob, "lint")
        assert installations(["lint"], str(link.parent)) == []
        said: list[str] = []
        for _ in range(2):
            assert installations(["lint"], str(link.parent), said) == []
        assert said == [
            f"lint is not shown behind the wall ({link}): it is in {bob}, another user's home"
        ]
        mine = Path.home() / "bin" / "lint"
        mine.parent.mkdir()
        mine.symlink_to(link)
        said.clear()
        assert installations([str(mine)], "/usr/bin", said) == []  # the bind shows where it leads
        assert said == [
            f"{mine} is not shown behind the wall ({mine}): it is in {bob}, another user's home"
        ]
        theirs, service_link = pipx_at(service, "fmt")
        assert installations(["fmt"], str(service_link.parent)) == [service_link, theirs]


@needs_bwrap
@needs_accounts
def test_behind_the_wall_nothing_of_another_user_s_tool_is_in_sight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob's tool on the person's PATH: a walled run reads nothing of bob's home, and a linter
    of that name does not run, the review's notes saying once why."""
    with far_away("homes") as far, account(far / "bob") as bob:
        venv, link = pipx_at(bob, "lint")
        monkeypatch.setenv("PATH", f"{os.environ['PATH']}{os.pathsep}{link.parent}")
        run = tmp_path / "run"
        run.mkdir()
        reach = Reach(run, writable=(run,))
        read = ["/bin/cat", str(venv / "notes.txt")]
        env = kept_environment()
        ran = walled_run(walled(), read, reach, env=env, input=b"", timeout=30, programs=["lint"])
        assert ran.returncode != 0 and b"own" not in ran.stdout, ran.stdout
        notes: list[str] = []
        with workspace({}, walled(), None, notes) as place:
            for _ in range(2):
                assert place.run(("lint", "{path}"), "x.py", b"x = 1\n", 30).returncode != 0
        assert notes == [
            f"lint is not shown behind the wall ({link}): it is in {bob}, another user's home"
        ]


@needs_accounts
def test_on_macos_people_s_accounts_start_at_500(tmp_path: Path) -> None:
    """macOS has no /etc/login.defs: UID_MIN was taken as useradd's 1000, and its people (501
    up, homes in /Users) were no one's, their homes in sight. On Darwin a person's account
    starts at 500, whatever a login.defs says, and elsewhere login.defs still decides."""
    assert uid_min(platform="darwin") == 500
    assert uid_min(tmp_path / "no-login.defs", platform="linux") == 1000
    taken = {account.pw_uid for account in pwd.getpwall()}
    uid = next(uid for uid in range(501, 1000) if uid not in taken)
    with far_away("homes") as far, account(far / "alice", uid=uid) as alice:
        assert (alice, uid) in people_s_homes("darwin")
        assert ((alice, uid) in people_s_homes("linux")) == (uid >= uid_min(platform="linux"))
