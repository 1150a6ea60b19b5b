"""./install.sh as a person runs it, and ./install.sh --uninstall taking it all away again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import landwatch
from landwatch import hooks, layout, registry
from support import ROOT
from support.repos import Repo
from support.scheduler import mock_command


def install_env(bin_dir: Path, **env: str) -> dict[str, str]:
    # No real service manager here: a stand-in that says where it read the unit, as install asks.
    bin_dir.parent.mkdir(parents=True, exist_ok=True)
    systemctl, _ = mock_command(bin_dir.parent, "systemctl")
    return {
        "PYTHON": sys.executable,
        "LANDWATCH_BIN_DIR": str(bin_dir),
        "LANDWATCH_TEST_SCHEDULER": f"systemd:{systemctl}",
        "PATH": "/usr/bin:/bin",
        "SHELL": "/bin/zsh",
        **env,
    }


def install_sh(
    *args: str, cwd: Path, bin_dir: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(ROOT / "install.sh"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        env={**os.environ, **install_env(bin_dir, **env)},
    )


def test_install_then_uninstall_leaves_nothing(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    bin_dir = tmp_path / "bin"
    done = install_sh(cwd=repo.path, bin_dir=bin_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    # Each slow step said before it runs: seconds of silence looked like a hang.
    said = done.stdout.splitlines()
    venv = layout.data_dir() / "venv"
    assert said[:3] == [
        f"landwatch: creating an environment in {venv}",
        f"landwatch: installing landwatch from {ROOT} into it with pip (a few seconds)",
        f"landwatch: installed landwatch {landwatch.__version__} from {ROOT}",
    ]
    starting = said.index(
        "landwatch: starting the reviewer (stopping the one running first, if any)"
    )
    assert said[starting + 1].startswith("landwatch: reviewer installed as")
    assert hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
    assert (bin_dir / "landwatch").is_symlink() and layout.ENTRY_POINT.path().exists()
    # The launchers start without pip's `import re` (6 ms at every shell prompt), and run.
    for command in ("landwatch", "git-landwatch"):
        launcher = (venv / "bin" / command).read_text()
        assert "import re\n" not in launcher and "from landwatch.__main__ import main" in launcher
    version = subprocess.run([bin_dir / "landwatch", "--version"], capture_output=True, text=True)
    assert version.stdout == f"landwatch {landwatch.__version__}\n"
    home = Path(os.environ["HOME"])
    zshrc = (Path(os.environ.get("ZDOTDIR", home)) / ".zshrc").as_posix()
    assert f"add this line to {zshrc}" in done.stdout
    assert f'    export PATH="{bin_dir}:$PATH"' in done.stdout
    gone = install_sh("--uninstall", "--yes", cwd=repo.path, bin_dir=bin_dir)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert "landwatch: removed; nothing of it runs any more" in gone.stdout
    assert not hooks.is_ours(repo.git_dir / "hooks" / "post-commit")
    assert not (bin_dir / "landwatch").exists() and not layout.data_dir().exists()
    assert registry.registered() == []


def test_a_command_it_did_not_install_is_never_replaced(tmp_path: Path) -> None:
    """A `landwatch` of someone else's in the bin directory stays as it was: the install is
    refused before anything is written, naming the file and the ways on."""
    repo = Repo(tmp_path / "repo")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    theirs = bin_dir / "landwatch"
    theirs.write_text("#!/bin/sh\necho another landwatch\n")
    refused = install_sh(cwd=repo.path, bin_dir=bin_dir)
    assert refused.returncode == 1
    assert f"{theirs} is not landwatch's" in refused.stderr
    assert "Remove it" in refused.stderr and "LANDWATCH_BIN_DIR" in refused.stderr
    assert theirs.read_text() == "#!/bin/sh\necho another landwatch\n"
    assert not layout.data_dir().exists() and not hooks.is_ours(
        repo.git_dir / "hooks" / "post-commit"
    )
    theirs.unlink()
    theirs.symlink_to("/usr/bin/true")  # a link, but not to landwatch's environment
    refused = install_sh(cwd=repo.path, bin_dir=bin_dir)
    assert refused.returncode == 1 and f"{theirs} is not landwatch's" in refused.stderr
    assert os.readlink(theirs) == "/usr/bin/true"


def test_a_command_that_does_not_run_fails_the_install_with_a_line(tmp_path: Path) -> None:
    """The installed command is run (`--version`) before anything is linked to it: one that
    does not run says so, where the issue saw `installed  from` and exit 2."""
    shadow = tmp_path / "shadow" / "landwatch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit('this landwatch is broken')\n")
    bin_dir = tmp_path / "bin"
    broken = install_sh(cwd=tmp_path, bin_dir=bin_dir, PYTHONPATH=str(shadow.parent))
    assert broken.returncode == 1, broken.stdout + broken.stderr
    venv = layout.data_dir() / "venv"
    assert (
        f"landwatch: the command pip installed, {venv}/bin/landwatch, does not run "
        "(this landwatch is broken); nothing linked"
    ) in broken.stderr
    assert "installed" not in broken.stdout.replace("pip installed", "")
    assert not (bin_dir / "landwatch").exists()


def spaced_home(path: Path) -> dict[str, str]:
    path.mkdir(parents=True)
    return {
        "HOME": str(path),
        "XDG_CONFIG_HOME": str(path / ".config"),
        "XDG_DATA_HOME": str(path / ".local" / "share"),
        "XDG_STATE_HOME": str(path / ".local" / "state"),
    }


def test_a_home_with_spaces_and_a_quote_installs_and_runs(tmp_path: Path) -> None:
    home = spaced_home(tmp_path / "the user's home")
    repo = Repo(tmp_path / "repo")
    bin_dir = Path(home["HOME"]) / ".local" / "bin"
    done = install_sh(cwd=repo.path, bin_dir=bin_dir, **home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "landwatch: installed landwatch " in done.stdout
    ran = subprocess.run(
        [str(bin_dir / "landwatch"), "--version"],
        capture_output=True,
        text=True,
        env={**os.environ, **home},
    )
    assert ran.returncode == 0 and ran.stdout.startswith("landwatch "), ran.stderr
    oid = repo.land("recorded through the entry point under that home")
    assert repo.pending() == [(oid, None)]


def test_a_home_with_a_double_quote_is_refused_with_the_way_on(tmp_path: Path) -> None:
    home = spaced_home(tmp_path / 'the "home"')
    refused = install_sh(cwd=tmp_path, bin_dir=tmp_path / "bin", **home)
    assert refused.returncode == 1
    assert "pip's command launcher does not run from a path holding" in refused.stderr
    assert "set XDG_DATA_HOME to a directory without them" in refused.stderr
    assert not (Path(home["XDG_DATA_HOME"]) / "landwatch").exists()


def checkout_of_landwatch(path: Path) -> Repo:
    """A checkout of landwatch at `path`: this one's files (as they are now) in a repository
    of their own, so that no test ever runs install.sh inside the real checkout."""
    ignored = shutil.ignore_patterns(
        ".git", ".venv*", ".test-tools", ".hypothesis", "__pycache__", "*.egg-info", ".*_cache"
    )
    shutil.copytree(ROOT, path, ignore=ignored)
    checkout = Repo(path, initial=False)
    checkout.git("add", "-A")
    checkout.git("commit", "-q", "-m", "landwatch")
    return checkout


def test_run_inside_landwatch_s_checkout_it_installs_no_hooks_there(tmp_path: Path) -> None:
    """As the README says: `./install.sh` in the checkout. Its own repository is not where the
    person's work lands: no hooks there (nor in a worktree of it), and one line says so."""
    checkout = checkout_of_landwatch(tmp_path / "landwatch")
    checkout.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    bin_dir = tmp_path / "bin"
    for where in (checkout.path, tmp_path / "side"):
        done = subprocess.run(
            ["sh", "./install.sh"],
            cwd=where,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
            env={**os.environ, **install_env(bin_dir)},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert (
            f"landwatch: no hooks installed in landwatch's own checkout ({where}); run "
            "'landwatch install' inside a repository of yours to record its landings"
        ) in done.stdout.splitlines()
        assert not hooks.is_ours(checkout.git_dir / "hooks" / "post-commit")
        assert registry.registered() == []


def test_uninstall_with_an_environment_that_no_longer_runs_says_what_to_do(
    tmp_path: Path,
) -> None:
    """An audit: the environment's Python gone (a system or Homebrew upgrade), `./install.sh
    --uninstall` ended on the shell's own `exec: ...: not found`, exit 127, saying nothing of
    what to do. It says to run ./install.sh first, and removes nothing."""
    launcher = layout.data_dir() / "venv" / "bin" / "landwatch"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/gone/python3\nfrom landwatch.__main__ import main\n")
    launcher.chmod(0o755)
    (launcher.parent / "python3").symlink_to("/gone/python3")  # as venv linked it
    (launcher.parent / "python").symlink_to("python3")
    (launcher.parent.parent / "pyvenv.cfg").write_text("home = /gone\n")
    refused = install_sh("--uninstall", "--yes", cwd=tmp_path, bin_dir=tmp_path / "bin")
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == (
        f"landwatch: the environment in {layout.data_dir() / 'venv'} does not run (its Python is "
        "gone?); run ./install.sh first, which makes it again, then ./install.sh --uninstall\n"
    )
    assert launcher.exists()
    # The advice holds (an audit: venv stopped on the dangling links, and it went round).
    made = install_sh(cwd=tmp_path, bin_dir=tmp_path / "bin")
    assert made.returncode == 0, made.stdout + made.stderr
    gone = install_sh("--uninstall", "--yes", cwd=tmp_path, bin_dir=tmp_path / "bin")
    assert gone.returncode == 0 and not layout.data_dir().exists(), gone.stdout + gone.stderr


def test_an_environment_place_that_is_a_link_is_never_cleared(tmp_path: Path) -> None:
    """An audit: `venv --clear` (for an environment whose Python is gone) empties what a link at
    the environment's place leads to, another project's files, and fails all the same. A link
    there, or a directory venv did not make, is refused before anything is written."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("mine\n")
    venv = layout.data_dir() / "venv"
    venv.parent.mkdir(parents=True)
    venv.symlink_to(elsewhere)
    refused = install_sh(cwd=tmp_path, bin_dir=tmp_path / "bin")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"{venv} is not an environment landwatch made" in refused.stderr
    assert (elsewhere / "notes.txt").read_text() == "mine\n"
