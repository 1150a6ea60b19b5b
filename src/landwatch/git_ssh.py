"""The ssh a git of landwatch's that may reach a remote runs: the one the person's own git runs
for that repository, told never to prompt in its own words where git knows which program it is.

git 2.39 picks the command (connect.c): GIT_SSH_COMMAND, else core.sshCommand (each a shell
command line), else GIT_SSH (a program, run without a shell), else `ssh`; and how to call it (its
variant): GIT_SSH_VARIANT, else ssh.variant, else the program's name (ssh, plink, tortoiseplink),
else it probes the program with `-G` and gives OpenSSH's options only where that succeeded. The
batch option is added only where git itself gives that program its variant's options; every
other program (a wrapper, one git probes) is kept from asking by what the caller gives every
one: no terminal, stdin /dev/null, no askpass (SSH_ASKPASS_REQUIRE=never: OpenSSH 8.4).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

# What each variant git calls with its own options takes to never prompt: OpenSSH's batch mode,
# PuTTY plink's -batch. git gives tortoiseplink -batch itself; `simple` takes no option, and a
# program whose variant git probes for (`auto`) may be a wrapper that takes none either.
_NEVER_ASKS = {"ssh": "-o BatchMode=yes", "plink": "-batch", "putty": "-batch"}
# The variants ssh.variant may name besides `auto`; git takes any other word for `ssh`.
_NAMED = ("plink", "putty", "tortoiseplink", "simple")
# The programs git knows by their name (case aside, `.exe` too).
_KNOWN = ("ssh", "plink", "tortoiseplink")
# The git settings git reads to pick the command and its variant (as `git config` prints them).
SSH_SETTINGS = ("core.sshcommand", "ssh.variant")


def never_prompting(env: Mapping[str, str], config: Mapping[str, str] | None) -> dict[str, str]:
    """`env` for a git that may reach a remote, given the repository's SSH_SETTINGS (`config`;
    None where they could not be read: git is left to pick, the environment alone keeps it from
    asking): the ssh git would run there, with its variant's batch option."""
    env = {**env, "SSH_ASKPASS_REQUIRE": "never"}  # no ssh-askpass window on the desktop
    if config is None:
        return env
    command, line = picked(env, config)
    said = env["GIT_SSH_VARIANT"] if "GIT_SSH_VARIANT" in env else config.get("ssh.variant")
    option = _NEVER_ASKS.get(variant(command, line=line, said=said))
    if option is None:
        return env
    shell = command if line else shlex.quote(command)
    if not shell.endswith(f" {option}"):  # an auto-push's hook is given ours already
        env["GIT_SSH_COMMAND"] = f"{shell} {option}"
    return env


def picked(env: Mapping[str, str], config: Mapping[str, str]) -> tuple[str, bool]:
    """The ssh command git picks, and whether it is a shell command line (else a program)."""
    if "GIT_SSH_COMMAND" in env:
        return env["GIT_SSH_COMMAND"], True
    if "core.sshcommand" in config:
        return config["core.sshcommand"], True
    return env.get("GIT_SSH", "ssh"), False


def variant(command: str, *, line: bool, said: str | None) -> str:
    """How git calls `command` (a command `line`, or a program): as ssh.variant or GIT_SSH_VARIANT
    `said`, else by its program's name, else `auto` (git probes it: no option of ours)."""
    if said is not None and said != "auto":
        return said if said in _NAMED else "ssh"
    try:
        words = shlex.split(command) if line else [command]
    except ValueError:  # an unclosed quote: git's split_cmdline fails, and git probes
        return "auto"
    name = os.path.basename(words[0]).lower().removesuffix(".exe") if words else ""
    return name if name in _KNOWN else "auto"
