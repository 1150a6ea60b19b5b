"""bubblewrap as the wall: a view of the machine built from nothing, where a repository's code
runs. In sight: the system read-only (wall.installations.SYSTEM), the installations of the tools
started, read-only, and the places a run names: the files it checks and its scratch directory.
Not in sight: $HOME and every other user file, /tmp, /run and its sockets, other repositories,
landwatch's own state. No network (but for an environment build), no new Unix socket
(wall.seccomp), its own processes, IPC and host name, no capabilities, a session of its own (no
terminal to type into), dying with the reviewer; its /dev read-only but for the devices, and
what it is shown empty (/tmp, /dev/shm, a store) is on disk, in the run's scratch directory.

Finding bubblewrap, and whether it runs here, is wall.door's (it starts programs; this does not).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from landwatch.wall.installations import SYSTEM

# What a resolver reads: where /etc/resolv.conf is a link into /run (systemd-resolved), its
# target is shown to a run that has the network.
_RESOLV = Path("/etc/resolv.conf")


class Reach(NamedTuple):
    """What one walled run may reach: its working directory, places shown empty and writable
    (the run's own, gone with it), the places it writes, those it reads (also within an empty
    one: a store's directories), those kept read-only within a writable one (a checkout's
    `.git`), the network, and its scratch directory, on disk, where the empty directories it
    is shown are made (None: the system's temporary directory)."""

    cwd: Path
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    network: bool = False
    emptied: tuple[Path, ...] = ()
    scratch: Path | None = None


class Sandbox(NamedTuple):
    program: str  # bwrap's path
    version: str  # as `bwrap --version` says it

    def wrap(
        self, command: list[str], reach: Reach, blanks: Path, *, seccomp_fd: int | None
    ) -> list[str]:
        """`command` behind the wall, with `reach`; `blanks` holds the empty directories
        (blank_names) it is shown; `seccomp_fd` an open file of the filter."""
        return [*arguments(self.program, reach, blanks, seccomp_fd), "--", *command]


def blank_names(reach: Reach) -> tuple[str, ...]:
    """The empty directories, made on disk before a run of `reach` starts, that it is shown as
    its /tmp, its /dev/shm and each of `reach.emptied`. A memory file system there held a
    file's kernel memory for each name made, past any bound bwrap can set (attack 106)."""
    return ("tmp", "shm", *(f"emptied-{index}" for index in range(len(reach.emptied))))


def arguments(program: str, reach: Reach, blanks: Path, seccomp_fd: int | None = None) -> list[str]:
    """bwrap's arguments for `reach`: each place given once, the later over the earlier (a
    protected place over the writable one it is in); each place shown empty one of the
    directories in `blanks` (blank_names)."""
    system: list[str] = []
    for root in SYSTEM:
        path = Path(root)
        if path.is_symlink():
            system += ["--symlink", os.readlink(path), root]  # /bin -> usr/bin, merged /usr
        elif path.is_dir():
            system += ["--ro-bind", root, root]
    if reach.network and _RESOLV.is_symlink():
        system += ["--ro-bind-try", str(_RESOLV.resolve()), str(_RESOLV.resolve())]
    # bwrap takes each place's source from the machine, its destination in the new view: a
    # directory shown empty can then show the machine's own entries of it, read-only.
    tmp, shm, *emptied = (str(blanks / name) for name in blank_names(reach))
    shown = zip(emptied, reach.emptied, strict=True)
    places = [arg for blank, path in shown for arg in ("--bind", blank, str(path))]
    places += [arg for path in reach.readable for arg in ("--ro-bind", str(path), str(path))]
    places += [arg for path in reach.writable for arg in ("--bind", str(path), str(path))]
    places += [arg for path in reach.protected for arg in ("--ro-bind", str(path), str(path))]
    return [
        program,
        *system,
        # A fresh /dev, read-only but for its devices (/dev/null is written): its tmpfs is of
        # the kernel's size, half the machine, which nothing bounds; its /dev/shm a directory
        # on disk, as /tmp. An empty /tmp of its own (the machine's is every user's), a fresh
        # /proc.
        *("--dev", "/dev", "--bind", shm, "/dev/shm", "--remount-ro", "/dev"),  # noqa: S108
        *("--proc", "/proc", "--bind", tmp, "/tmp"),  # noqa: S108
        *places,
        *("--chdir", str(reach.cwd)),
        "--unshare-all",  # no network; its own users, processes, IPC and host name
        *(["--share-net"] if reach.network else []),
        "--die-with-parent",
        "--new-session",  # no terminal to type into (TIOCSTI)
        *("--cap-drop", "ALL"),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
    ]
