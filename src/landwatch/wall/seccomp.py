"""The seccomp filter every walled run gets (bubblewrap's `--seccomp FD`): no new Unix socket
that could reach one outside.

A pathname socket under a read-only bind and an abstract socket in a shared network namespace
(the environment build's) can both be connected to without writing a file: the agent, Docker,
X11 and the session bus would be a way out of the wall. `socket(AF_UNIX, ...)` fails with
EAFNOSUPPORT instead. A pair (`socketpair`: a pipe between two of its own processes, libuv's
stdio, asyncio's wake-up) is made connected, and a stream or sequenced-packet one stays so;
a datagram socket sends wherever it is told, paired or not, so a datagram pair fails the same
way (a raw one too: the kernel makes it a datagram pair). io_uring makes sockets without
socket(2) (IORING_OP_SOCKET), out of the filter's sight, so there is no io_uring at all: its
three calls fail with ENOSYS, as on a kernel built without it, which every program using it
falls back from (Docker's default profile refuses them too). A process of another
architecture than the machine's (an i386 program on x86_64, whose `socketcall` would bypass
the check) gets no system call at all.

Beyond sockets, what reaches the person past the run (an audit, attacks 98-100): the kernel's
keyrings (the person's session keyring holds Kerberos tickets, and planted keys outlast the
run) and inotify instances (counted per user: taking them all stops the person's editor from
watching files) fail with ENOSYS, as on a kernel without them; raising the run's own
scheduling or I/O priority above the reviewer's (`sched_setscheduler`, `sched_setattr`,
`ioprio_set`) and a nested user namespace (`unshare`, `clone` with CLONE_NEWUSER: a tmpfs no
memory bound counts, the kernel's surface of a user namespace) fail with EPERM. clone3, whose
flags the filter cannot read, fails with ENOSYS, which the C library falls back from to clone.
Memory no bound counts and no process holds (attack 105): a memfd written and never mapped, a
System V segment never attached, message queue or semaphore set (`shmget`, `msgget`,
`semget`), and `memfd_secret` fail with ENOSYS, as on a kernel without them; what a run maps
it holds, and the out-of-memory killer sees it there. `fallocate`, which takes a disk's whole
free space in one call between two looks of the disk's watch (wall.door.disk_watch), fails
with EOPNOTSUPP, as on a file system without it, and so does the ioctl the kernel turns into
one (FS_IOC_RESVSP, FS_IOC_RESVSP64): the C library's posix_fallocate then writes the blocks.
"""

from __future__ import annotations

import platform
import struct

# linux/filter.h and linux/seccomp.h
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EAFNOSUPPORT = 97
_ENOSYS = 38
_EPERM = 1
_AF_UNIX = 1
_CLONE_NEWUSER = 0x10000000
# struct seccomp_data: the call's number, the architecture, then its arguments (the first's low
# 32 bits at 16 on a little-endian machine).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
_SOCK_TYPE_MASK, _SOCK_STREAM, _SOCK_SEQPACKET = 0xF, 1, 5  # a type's flags are above the mask
_X32_BIT = 0x40000000  # x86_64's x32 calls are the same numbers with this bit set
# io_uring_setup, io_uring_enter, io_uring_register: the same numbers on both machines.
_IO_URING = (425, 426, 427)
# The machines the filter knows: their audit architecture, the numbers of socket() and
# socketpair().
_MACHINES = {"x86_64": (0xC000003E, 41, 53), "aarch64": (0xC00000B7, 198, 199)}
# Of each machine: the calls refused as absent (add_key, request_key, keyctl, inotify_init
# where there is one, inotify_init1, clone3, memfd_create, memfd_secret, shmget, msgget,
# semget), those refused as not permitted (ioprio_set, sched_setscheduler, sched_setattr), and
# unshare and clone, refused a new user namespace.
_ABSENT = {
    "x86_64": (248, 249, 250, 253, 294, 435, 319, 447, 29, 68, 64),
    "aarch64": (217, 218, 219, 26, 435, 279, 447, 194, 186, 190),
}
_NOT_PERMITTED = {"x86_64": (251, 144, 314), "aarch64": (30, 119, 274)}
_NAMESPACING = {"x86_64": (272, 56), "aarch64": (97, 220)}
# fallocate, and ioctl, whose FS_IOC_RESVSP and FS_IOC_RESVSP64 the kernel turns into one.
_FALLOCATE = {"x86_64": 285, "aarch64": 47}
_IOCTL = {"x86_64": 16, "aarch64": 29}
_RESERVING = (0x40305828, 0x4030582A)
_EOPNOTSUPP = 95

# A statement: its code and k, and where it jumps when true and when false (a label further
# on; None is the next statement). A label is a string among the statements.
_Statement = tuple[int, int, str | None, str | None]


def no_unix_sockets(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine (`platform.machine()`), None where it is not one the
    filter knows: there the wall hides the sockets' directories and the network namespace the
    abstract ones, without it."""
    name = machine or platform.machine()
    known = _MACHINES.get(name)
    if known is None:
        return None
    arch, socket_call, pair_call = known
    program: list[_Statement | str] = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ_K, arch, None, "no such call"),  # another architecture's calls
        (_LD_W_ABS, _NR, None, None),
        (_AND_K, ~_X32_BIT & 0xFFFFFFFF, None, None),
        *((_JEQ_K, number, "no such call", None) for number in (*_IO_URING, *_ABSENT[name])),
        *((_JEQ_K, number, "not permitted", None) for number in _NOT_PERMITTED[name]),
        *((_JEQ_K, number, "new user namespace?", None) for number in _NAMESPACING[name]),
        (_JEQ_K, _FALLOCATE[name], "not supported", None),
        (_JEQ_K, _IOCTL[name], "reserving?", None),
        (_JEQ_K, socket_call, None, "not socket"),
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, _AF_UNIX, "no unix socket", "allow"),
        "not socket",
        (_JEQ_K, pair_call, None, "allow"),
        (_LD_W_ABS, _ARG1, None, None),
        (_AND_K, _SOCK_TYPE_MASK, None, None),
        (_JEQ_K, _SOCK_STREAM, "allow", None),
        (_JEQ_K, _SOCK_SEQPACKET, "allow", "no unix socket"),
        "no unix socket",
        (_RET_K, _ERRNO | _EAFNOSUPPORT, None, None),
        "new user namespace?",
        (_LD_W_ABS, _ARG0, None, None),
        (_AND_K, _CLONE_NEWUSER, None, None),
        (_JEQ_K, _CLONE_NEWUSER, "not permitted", "allow"),
        "reserving?",
        (_LD_W_ABS, _ARG1, None, None),
        (_JEQ_K, _RESERVING[0], "not supported", None),
        (_JEQ_K, _RESERVING[1], "not supported", "allow"),
        "not supported",
        (_RET_K, _ERRNO | _EOPNOTSUPP, None, None),
        "not permitted",
        (_RET_K, _ERRNO | _EPERM, None, None),
        "no such call",
        (_RET_K, _ERRNO | _ENOSYS, None, None),
        "allow",
        (_RET_K, _ALLOW, None, None),
    ]
    return _assembled(program)


def _assembled(program: list[_Statement | str]) -> bytes:
    """`program` as the kernel reads it: each jump counted in statements from the next one to
    its label (cBPF jumps only forward)."""
    labels: dict[str, int] = {}
    statements: list[_Statement] = []
    for each in program:
        if isinstance(each, str):
            labels[each] = len(statements)  # the statement after it
        else:
            statements.append(each)
    compiled = []
    for at, (code, k, true, false) in enumerate(statements):
        jt, jf = (0 if label is None else labels[label] - at - 1 for label in (true, false))
        compiled.append(struct.pack("=HBBI", code, jt, jf, k))
    return b"".join(compiled)
