"""The seccomp filter every walled run gets (bubblewrap's `--seccomp FD`): no new Unix socket.

A pathname socket under a read-only bind and an abstract socket in a shared network namespace
(the environment build's) can both be connected to without writing a file: the agent, Docker,
X11 and the session bus would be a way out of the wall. `socket(AF_UNIX, ...)` fails with
EAFNOSUPPORT instead; `socketpair` (a pipe between two of its own processes: libuv's stdio,
asyncio's wake-up) stays allowed. A process of another architecture than the machine's (an
i386 program on x86_64, whose `socketcall` would bypass the check) gets no system call at all.
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
_AF_UNIX = 1
# struct seccomp_data: the call's number, the architecture, then its arguments (the first's low
# 32 bits at 16 on a little-endian machine).
_NR, _ARCH, _ARG0 = 0, 4, 16
_X32_BIT = 0x40000000  # x86_64's x32 calls are the same numbers with this bit set
# The machines the filter knows: their audit architecture and the number of socket().
_MACHINES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}


def _statement(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def no_unix_sockets(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine (`platform.machine()`), None where it is not one the
    filter knows: there the wall hides the sockets' directories and the network namespace the
    abstract ones, without it."""
    known = _MACHINES.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_call = known
    program = [
        _statement(_LD_W_ABS, _ARCH),
        _statement(_JEQ_K, arch, jt=1, jf=0),
        _statement(_RET_K, _ERRNO | _ENOSYS),  # another architecture's calls
        _statement(_LD_W_ABS, _NR),
        _statement(_AND_K, ~_X32_BIT & 0xFFFFFFFF),
        _statement(_JEQ_K, socket_call, jt=0, jf=3),
        _statement(_LD_W_ABS, _ARG0),
        _statement(_JEQ_K, _AF_UNIX, jt=0, jf=1),
        _statement(_RET_K, _ERRNO | _EAFNOSUPPORT),
        _statement(_RET_K, _ALLOW),
    ]
    return b"".join(program)
