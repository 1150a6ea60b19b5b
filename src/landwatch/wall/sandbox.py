"""bubblewrap as the wall: a view of the machine built from nothing, where a repository's code
runs. In sight: the system read-only (wall.installations.SYSTEM), the installations of the tools
started, read-only, and the places a run names: the files it checks and its scratch directory.
Not in sight: $HOME and every other user file, /tmp, /run and its sockets, other repositories,
landwatch's own state. No network (but for an environment build), no new Unix socket
(wall.seccomp), its own processes, IPC and host name, no capabilities, a session of its own (no
terminal to type into), dying with the reviewer; its /dev read-only but for the devices, and
what it is shown empty (/tmp, /dev/shm, a store) is memory, and bounded.

Finding bubblewrap, and whether it runs here, is wall.door's (it starts programs; this does not).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from landwatch.processes import most_memory
from landwatch.wall.installations import SYSTEM

# What a resolver reads: where /etc/resolv.conf is a link into /run (systemd-resolved), its
# target is shown to a run that has the network.
_RESOLV = Path("/etc/resolv.conf")


class Reach(NamedTuple):
    """What one walled run may reach: its working directory, places shown empty and writable
    (the run's own, gone with it), the places it writes, those it reads (also within an empty
    one: a store's directories), those kept read-only within a writable one (a checkout's
    `.git`), and the network."""

    cwd: Path
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    network: bool = False
    emptied: tuple[Path, ...] = ()


class Sandbox(NamedTuple):
    program: str  # bwrap's path
    version: str  # as `bwrap --version` says it

    def wrap(self, command: list[str], reach: Reach, *, seccomp_fd: int | None) -> list[str]:
        """`command` behind the wall, with `reach`; `seccomp_fd` an open file of the filter."""
        size = most_shown_empty() if sizes_memory_places(self.version) else None
        return [*arguments(self.program, reach, seccomp_fd, size), "--", *command]


def most_shown_empty() -> int | None:
    """The most each place shown empty (/tmp, /dev/shm, a store) may hold: they are memory,
    and the kernel's own bound is half the machine each. An eighth of it; TMPDIR is on disk."""
    most = most_memory()
    return None if most is None else most // 4 >> 16 << 16  # whole pages, as the kernel counts


def sizes_memory_places(version: str) -> bool:
    """Whether the bwrap that says `version` (`bubblewrap 0.8.0`) knows `--size`: from 0.8.0."""
    numbers = version.rpartition(" ")[2].split(".")
    try:
        return tuple(int(number) for number in numbers[:2]) >= (0, 8)
    except ValueError:
        return False


def arguments(
    program: str, reach: Reach, seccomp_fd: int | None = None, size: int | None = None
) -> list[str]:
    """bwrap's arguments for `reach`: each place given once, the later over the earlier (a
    protected place over the writable one it is in); each place shown empty holding at most
    `size` bytes where given."""
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
    sized = ["--size", str(size)] if size is not None else []
    places = [arg for path in reach.emptied for arg in (*sized, "--tmpfs", str(path))]
    places += [arg for path in reach.readable for arg in ("--ro-bind", str(path), str(path))]
    places += [arg for path in reach.writable for arg in ("--bind", str(path), str(path))]
    places += [arg for path in reach.protected for arg in ("--ro-bind", str(path), str(path))]
    return [
        program,
        *system,
        # A fresh /dev, read-only but for its devices (/dev/null is written): its tmpfs is of
        # the kernel's size, half the machine, which nothing bounds; its /dev/shm bounded as
        # /tmp. An empty /tmp of its own (the machine's is every user's), a fresh /proc.
        *("--dev", "/dev", *sized, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"),  # noqa: S108
        *("--proc", "/proc", *sized, "--tmpfs", "/tmp"),  # noqa: S108
        *places,
        *("--chdir", str(reach.cwd)),
        "--unshare-all",  # no network; its own users, processes, IPC and host name
        *(["--share-net"] if reach.network else []),
        "--die-with-parent",
        "--new-session",  # no terminal to type into (TIOCSTI)
        *("--cap-drop", "ALL"),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
    ]
