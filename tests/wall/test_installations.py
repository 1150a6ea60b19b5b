"""What a walled program needs in sight besides the system (wall.installations): its own
installation when it is recognisably one (a virtual environment, a Python, Node.js's
node_modules), the interpreter its script names, the one a link leads to; never a directory that
merely holds it (a home, `~/.cargo`, a repository), nor all of a prefix that is also the
person's own (`~/.local`); a path a repository wrote only where it is a program."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from landwatch.wall.installations import installations, under_system


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


def test_a_path_a_repository_wrote_is_in_sight_only_where_it_is_a_program() -> None:
    """A hook's `cat /home/you/.ssh/id_rsa` names no program: the key stays out of sight."""
    key = Path.home() / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("the person's key\n")
    key.chmod(0o600)
    tool = executable(Path.home() / "tools" / "lint")
    assert installations([str(key), str(key.parent)], "/usr/bin") == []
    assert installations([str(tool)], "/usr/bin") == [tool]


def test_a_prefix_that_is_also_the_person_s_own_shows_only_what_it_runs() -> None:
    """npm's prefix set to ~/.local: its node and packages, never the state beside them."""
    local = Path.home() / ".local"
    node = executable(local / "bin" / "node", "\x7fELF")
    (local / "lib" / "node_modules").mkdir(parents=True)
    tool = executable(local / "bin" / "pre-commit", "#!/usr/bin/env node\n")
    state = Path(os.environ["XDG_STATE_HOME"]) / "landwatch" / "work-key"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("a key\n")
    found = installations(["pre-commit"], str(local / "bin"))
    assert found == [tool, local / "lib" / "node_modules", node], found
    assert not any(state.is_relative_to(place) for place in found)
