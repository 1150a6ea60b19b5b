"""The seccomp filter behind the wall (wall.seccomp): no new Unix socket, by socket(2) or through
io_uring, a connected pair still made but no datagram pair, other families untouched; a machine
the filter does not know gets none (the wall still hides the sockets' directories and, without
the network, the abstract ones)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from landwatch.wall.door import walled
from landwatch.wall.sandbox import Reach
from landwatch.wall.seccomp import no_unix_sockets
from support.sandbox import needs_bwrap
from support.sandbox import walled as the_wall

TRIES = """\
import ctypes, os, socket
def ring(number, *args):  # io_uring_setup, _enter, _register: 425-427 on x86_64 and arm64 alike
    if ctypes.CDLL(None, use_errno=True).syscall(number, *args) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
for name, make in (
    ("unix", lambda: socket.socket(socket.AF_UNIX)),
    ("unix datagram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
    ("pair", lambda: socket.socketpair()),
    ("pair seqpacket", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)),
    ("pair datagram", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),
    ("pair raw", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW)),  # a datagram pair
    ("inet", lambda: socket.socket(socket.AF_INET)),
    # None of them is given anything it could use: a kernel that runs them says EFAULT, EBADF.
    ("io_uring_setup", lambda: ring(425, 4, None)),
    ("io_uring_enter", lambda: ring(426, -1, 0, 0, 0, None, 0)),
    ("io_uring_register", lambda: ring(427, -1, 0, None, 0)),
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
        assert program is not None and len(program) % 8 == 0  # sock_filter statements
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
            "pair seqpacket made",
            "pair datagram 97",
            "pair raw 97",
            "inet made",
            "io_uring_setup 38",  # ENOSYS: as if the kernel had no io_uring
            "io_uring_enter 38",
            "io_uring_register 38",
        ], ran.stderr


BEYOND = """\
import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
calls = {  # x86_64's numbers, then aarch64's
    "keyctl": (250, 219), "add_key": (248, 217), "inotify_init1": (294, 26),
    "ioprio_set": (251, 30), "sched_setscheduler": (144, 119), "unshare": (272, 97),
    "memfd_create": (319, 279), "memfd_secret": (447, 447), "shmget": (29, 194),
    "msgget": (68, 186), "semget": (64, 190), "fallocate": (285, 47), "ioctl": (16, 29),
}
number = {name: pair[platform.machine() == "aarch64"] for name, pair in calls.items()}
param = ctypes.c_int(0)
for name, args in (
    ("keyctl", (0, -3, 0)),  # KEYCTL_GET_KEYRING_ID of the session keyring
    ("add_key", (b"user", b"planted", b"x", 1, -3)),
    ("inotify_init1", (0,)),
    ("ioprio_set", (1, 0, (1 << 13) | 0)),  # its own, best-effort at the highest level
    ("sched_setscheduler", (0, 0, ctypes.byref(param))),  # SCHED_OTHER, leaving batch
    ("unshare", (0x10000000,)),  # a new user namespace
    ("memfd_create", (b"hidden", 0)),
    ("memfd_secret", (0,)),
    ("shmget", (0, 1 << 20, 0o1600)),  # IPC_PRIVATE, IPC_CREAT | 0600
    ("msgget", (0, 0o1600)),
    ("semget", (0, 32000, 0o1600)),
    ("fallocate", (os.open("big", os.O_CREAT | os.O_WRONLY, 0o600), 1, 0, 1 << 30)),  # KEEP_SIZE
    # FS_IOC_RESVSP64 of 1 MB: struct space_resv (whence 0, start 0, length), 48 bytes
    ("ioctl", (os.open("big", os.O_WRONLY), 0x4030582A, ctypes.create_string_buffer(
        (0).to_bytes(4, "little") + bytes(8) + (1 << 20).to_bytes(8, "little") + bytes(28)))),
):
    made = libc.syscall(number[name], *args)
    print(name, "made" if made >= 0 else ctypes.get_errno())
pid = os.fork()
if pid == 0:
    os._exit(0)
print("fork", os.waitpid(pid, 0)[1])
"""


@needs_bwrap
def test_behind_the_wall_nothing_reaches_the_person_s_keys_watches_or_priority(
    tmp_path: Path,
) -> None:
    """Attacks 98-100 (an audit): behind the wall a hook read the person's session keyring (a
    Kerberos ticket) and planted a key that outlasted the run, took every inotify instance
    (counted per user: the person's editor could watch nothing), left batch scheduling and
    raised its I/O priority above the person's own programs, and made a user namespace in
    which a tmpfs no memory bound counts could be mounted. Attack 105: a memfd written and never
    mapped, or a System V segment never attached, held memory that no bound counted and no
    process held, out of the out-of-memory killer's sight. Each now fails; a fork still runs."""
    ran = walled(
        the_wall(),
        [sys.executable, "-c", BEYOND],
        Reach(tmp_path, writable=(tmp_path,)),
        env={"PATH": "/usr/bin:/bin"},
        input=b"",
        timeout=60,
    )
    assert ran.stdout.decode().splitlines() == [
        "keyctl 38",  # ENOSYS: as on a kernel without keys
        "add_key 38",
        "inotify_init1 38",
        "ioprio_set 1",  # EPERM
        "sched_setscheduler 1",
        "unshare 1",
        "memfd_create 38",
        "memfd_secret 38",
        "shmget 38",
        "msgget 38",
        "semget 38",
        "fallocate 95",  # EOPNOTSUPP: as on a file system without it
        "ioctl 95",
        "fork 0",
    ], ran.stderr


@contextlib.contextmanager
def abstract_listener(kind: socket.SocketKind) -> Iterator[tuple[str, socket.socket]]:
    """A Unix socket of the person's session, abstract (`@name`, no file: reached by anyone in
    the same network namespace, as the environment build is), listening; its name and it."""
    name = f"landwatch-test-{os.getpid()}-{os.urandom(4).hex()}"
    with socket.socket(socket.AF_UNIX, kind) as listener:
        listener.bind(f"\0{name}")
        if kind == socket.SOCK_STREAM:
            listener.listen()
        listener.setblocking(False)
        yield name, listener


def reached(listener: socket.socket) -> bool:
    """Whether anything connected to, or sent to, `listener` (not blocking)."""
    try:
        if listener.type == socket.SOCK_STREAM:
            listener.accept()[0].close()
        else:
            listener.recv(1024)
    except BlockingIOError:
        return False
    return True


# The probe where no C compiler is: Python asking io_uring for a ring, the step the filter refuses.
RING = """\
import ctypes, os
ring = ctypes.CDLL(None, use_errno=True).syscall(425, 4, ctypes.create_string_buffer(120))
print("io_uring_setup:", "made" if ring >= 0 else os.strerror(ctypes.get_errno()))
"""


def uring_probe(tmp_path: Path) -> list[str]:
    """The command that makes a Unix socket through io_uring and connects it to the abstract
    socket named after it: the C probe beside this file compiled with the system's cc, or,
    where it cannot be, Python making the ring (its first step) through ctypes."""
    compiler = shutil.which("cc")
    program = tmp_path / "uring_connect"
    source = Path(__file__).with_name("uring_connect.c")
    if compiler is not None:
        built = subprocess.run(
            [compiler, "-O1", "-o", str(program), str(source)], capture_output=True, check=False
        )
        if built.returncode == 0:
            return [str(program)]
    return [sys.executable, "-c", RING]


@needs_bwrap
def test_io_uring_makes_no_unix_socket_to_reach_the_person_s_session(tmp_path: Path) -> None:
    """The audit's attack: socket(AF_UNIX) refused, IORING_OP_SOCKET made the socket anyway, and
    from the environment build (the network shared) it connected to the person's abstract
    sockets, @/tmp/.X11-unix/X0 and a D-Bus bus among them."""
    probe = uring_probe(tmp_path)
    for network in (True, False):  # the environment build's reach, then the hooks'
        with abstract_listener(socket.SOCK_STREAM) as (name, listener):
            ran = walled(
                the_wall(),
                [*probe, name],
                Reach(tmp_path, writable=(tmp_path,), network=network),
                env={"PATH": "/usr/bin:/bin"},
                input=b"",
                timeout=60,
            )
            said = ran.stdout.decode().splitlines()
            assert f"io_uring_setup: {os.strerror(errno.ENOSYS)}" in said, (said, ran.stderr)
            assert not reached(listener), said


# A datagram pair's socket sends where it is told, whatever it is paired with.
DATAGRAMS = """\
import socket, sys
to = "\\0" + sys.argv[1]
try:
    one, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError as error:
    sys.exit(f"pair datagram: {error.strerror}")
one.sendto(b"sent", to)
one.connect(to)
one.send(b"connected")
"""


@needs_bwrap
def test_a_datagram_pair_sends_nothing_to_the_person_s_sockets(tmp_path: Path) -> None:
    """A pair is two sockets connected to each other, but a datagram socket may be sent from, or
    connected, elsewhere all the same: from the environment build, a pair's socket sent to the
    person's abstract datagram sockets, socket(AF_UNIX) refused or not."""
    for network in (True, False):
        with abstract_listener(socket.SOCK_DGRAM) as (name, listener):
            ran = walled(
                the_wall(),
                [sys.executable, "-c", DATAGRAMS, name],
                Reach(tmp_path, writable=(tmp_path,), network=network),
                env={"PATH": "/usr/bin:/bin"},
                input=b"",
                timeout=60,
            )
            assert not reached(listener), ran.stderr
            assert (
                ran.stderr.decode().strip()
                == "pair datagram: Address family not supported by protocol"
            )
