"""The seccomp filter behind the wall (wall.seccomp): no new Unix socket, socketpair still made,
other families untouched; a machine the filter does not know gets none (the wall still hides
the sockets' directories and, without the network, the abstract ones)."""

from __future__ import annotations

import sys
from pathlib import Path

from landwatch.wall.door import walled
from landwatch.wall.sandbox import Reach
from landwatch.wall.seccomp import no_unix_sockets
from support.sandbox import needs_bwrap
from support.sandbox import walled as the_wall

TRIES = """\
import socket
for name, make in (
    ("unix", lambda: socket.socket(socket.AF_UNIX)),
    ("unix datagram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
    ("pair", lambda: socket.socketpair()),
    ("inet", lambda: socket.socket(socket.AF_INET)),
):
    try:
        make()
        print(name, "made")
    except OSError as error:
        print(name, error.errno)
"""


def test_the_filter_is_known_machines_only() -> None:
    for machine in ("x86_64", "aarch64"):
        program = no_unix_sockets(machine)
        assert program is not None and len(program) == 10 * 8  # ten sock_filter statements
    assert no_unix_sockets("riscv64") is None


@needs_bwrap
def test_behind_the_wall_no_unix_socket_is_made_with_the_network_or_without(
    tmp_path: Path,
) -> None:
    for network in (False, True):
        ran = walled(
            the_wall(),
            [sys.executable, "-c", TRIES],
            Reach(tmp_path, writable=(tmp_path,), network=network),
            env={"PATH": "/usr/bin:/bin"},
            input=b"",
            timeout=60,
        )
        assert ran.stdout.decode().splitlines() == [
            "unix 97",  # EAFNOSUPPORT: as if the kernel had no Unix sockets
            "unix datagram 97",
            "pair made",
            "inet made",
        ], ran.stderr
