"""The ssh landwatch's git that may reach a remote runs: the person's own, picked as their git
picks it, told never to ask in its own words exactly where git calls it as that program; every
program, whatever git makes of it, left no way to ask. Real git, a fake ssh reaching this
machine (`fakehost:/path`), its calls read from its log."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from landwatch.git import run_git
from support.remotes import FakeSsh, fake_ssh
from support.repos import Repo

BATCH = "-o BatchMode=yes"
OPENSSH = "-o SendEnv=GIT_PROTOCOL"  # what git 2.39 gives a program it calls as OpenSSH


@pytest.fixture(autouse=True)
def _no_ssh_of_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT", "SSH_ASKPASS_REQUIRE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def asked(repo: Repo, remote: Path, ssh: FakeSsh) -> str:
    """`git ls-remote fakehost:REMOTE` as landwatch runs it, and the options `ssh` was called
    with to reach the remote (before the host)."""
    result = run_git("ls-remote", f"fakehost:{remote}", cwd=repo.path, timeout=30, network=True)
    assert result.ok, result.stderr
    [call] = ssh.connections()
    options, host, command = call.partition("fakehost")
    assert host and command == f" git-upload-pack '{remote}'", call
    return options.strip()


def test_the_repository_s_own_ssh_command_is_run_in_batch_mode(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """core.sshCommand naming a key or a configuration (`ssh -F ~/.ssh/work_config`) is the ssh
    the person's git runs: landwatch's ran plain `ssh -o BatchMode=yes`, which reached nothing."""
    ssh = fake_ssh(tmp_path / "bin")
    config = tmp_path / "work config"
    repo.git("config", "core.sshCommand", f"{ssh.program} -F '{config}'")
    assert asked(repo, remote, ssh) == f"-F {config} {BATCH} {OPENSSH}"


def test_the_ssh_of_the_person_s_environment_comes_first_as_for_their_git(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GIT_SSH_COMMAND, then core.sshCommand, then GIT_SSH (a program, run without a shell: a
    space in its path is no separator): each in batch mode, as `ssh` alone is."""
    ours, theirs = fake_ssh(tmp_path / "env"), fake_ssh(tmp_path / "config")
    repo.git("config", "core.sshCommand", str(theirs.program))
    monkeypatch.setenv("GIT_SSH_COMMAND", f"{ours.program} -i work_key")
    assert asked(repo, remote, ours) == f"-i work_key {BATCH} {OPENSSH}"
    assert theirs.calls() == []
    monkeypatch.delenv("GIT_SSH_COMMAND")
    repo.git("config", "--unset", "core.sshCommand")
    spaced = fake_ssh(tmp_path / "my tools")
    monkeypatch.setenv("GIT_SSH", str(spaced.program))
    assert asked(repo, remote, spaced) == f"{BATCH} {OPENSSH}"


# (the program's name, ssh.variant, GIT_SSH_VARIANT; the options it is called with): the batch
# option exactly where git calls the program as that variant, whatever git makes of it.
VARIANTS = [
    ("ssh", None, None, f"{BATCH} {OPENSSH}"),
    ("Ssh.exe", None, None, f"{BATCH} {OPENSSH}"),  # git's name check ignores case and .exe
    ("ssh", "auto", None, f"{BATCH} {OPENSSH}"),  # auto: by its name, as with none
    ("ssh", "simple", None, ""),
    ("ssh-wrapper", None, None, ""),  # a wrapper: git probes it (-G), and it is no OpenSSH
    ("ssh-wrapper", "ssh", None, f"{BATCH} {OPENSSH}"),
    ("ssh-wrapper", "anything", None, f"{BATCH} {OPENSSH}"),  # any other word is ssh to git
    ("ssh-wrapper", "simple", "ssh", f"{BATCH} {OPENSSH}"),  # the environment's comes first
    ("plink", None, None, "-batch"),  # plink's own word for it
    ("ssh-wrapper", "putty", None, "-batch"),
    ("tortoiseplink", None, None, "-batch"),  # git gives it -batch itself
]


@pytest.mark.parametrize(("name", "config", "env", "options"), VARIANTS)
def test_the_batch_option_goes_only_where_git_calls_the_program_so(
    repo: Repo,
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: str | None,
    env: str | None,
    options: str,
) -> None:
    """An option of OpenSSH given to a wrapper or to plink would break it: `-o BatchMode=yes`
    goes where git gives OpenSSH's own options (ssh.variant, GIT_SSH_VARIANT, the name)."""
    ssh = fake_ssh(tmp_path / "bin", name)
    repo.git("config", "core.sshCommand", str(ssh.program))
    if config is not None:
        repo.git("config", "ssh.variant", config)
    if env is not None:
        monkeypatch.setenv("GIT_SSH_VARIANT", env)
    assert asked(repo, remote, ssh) == options


def test_a_program_given_no_option_of_ours_still_cannot_ask(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrapper git probes, then calls with no option, has no terminal and no askpass window,
    its probe as its connection: it fails rather than asks for a passphrase or a host key."""
    monkeypatch.setenv("SSH_ASKPASS_REQUIRE", "force")  # the person's own: ssh-askpass always
    ssh = fake_ssh(tmp_path / "bin", "ssh-wrapper")
    repo.git("config", "core.sshCommand", str(ssh.program))
    assert asked(repo, remote, ssh) == ""
    calls = ssh.calls()
    assert len(calls) == 2 and calls[0].startswith("-G "), calls  # git's probe, then the call
    assert all(call.endswith("| askpass=never tty=no") for call in calls), calls


def test_a_repository_whose_configuration_git_cannot_read_is_left_to_git(
    repo: Repo, tmp_path: Path
) -> None:
    """Where git cannot read the configuration, no ssh is picked for it: git says why."""
    (repo.git_dir / "config").write_text("[core\n")
    result = run_git("ls-remote", "fakehost:/nowhere.git", cwd=repo.path, network=True)
    assert not result.ok and "bad config" in result.stderr
