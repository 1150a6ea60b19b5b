"""bubblewrap for the tests that run something behind the wall: Debian's, which ./run-tests
unpacks, or the system's; `needs_bwrap` skips a test where it is not here or cannot run (user
namespaces). `AS_YOU` is the wall the person turned off (`landwatch.sandbox false`). Another
person's account is made for real (`account`, as root: `needs_accounts`)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch.wall.door import Wall, choose
from support import TOOLS

UNPACKED = TOOLS / "bubblewrap" / "usr" / "bin"
BWRAP = str(UNPACKED / "bwrap") if (UNPACKED / "bwrap").exists() else shutil.which("bwrap")
WITH_BWRAP = f"{Path(BWRAP).parent}{os.pathsep}{os.environ['PATH']}" if BWRAP else ""
AS_YOU = Wall(None, "the tests' own: landwatch.sandbox false")

# A program mapping argv[1] bytes of its own (private, writable: what RLIMIT_DATA counts), without
# touching them: no memory is used either way, so the test costs nothing where it is not bounded.
MAPPING = """\
import mmap, sys
try:
    mmap.mmap(-1, int(sys.argv[1]), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    print("held")
except OSError:
    print("refused")
"""


def usable() -> Wall | None:
    """The wall on this machine, None where bubblewrap is not here or cannot run."""
    return choose(True, WITH_BWRAP)[0] if BWRAP else None


def walled() -> Wall:
    wall = usable()
    assert wall is not None
    return wall


needs_bwrap = pytest.mark.skipif(
    usable() is None,
    reason="bubblewrap is not here, or cannot run here: ./run-tests unpacks Debian's "
    "(apt-get download bubblewrap), and it needs user namespaces",
)


@contextlib.contextmanager
def far_away(name: str) -> Iterator[Path]:
    """A directory of the person's outside /tmp (under /home), removed after: where the wall's
    tests keep what it must hide. The sandbox before the wall hid /tmp whole, so what the tests
    put under their tmp_path proved nothing of the rest of the machine."""
    root = Path("/home")
    if not root.is_dir() or not os.access(root, os.W_OK):
        pytest.skip("the wall's tests keep their secrets under /home, which is not writable here")
    place = Path(tempfile.mkdtemp(prefix=f"landwatch-test-{name}-", dir=root))
    try:
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


needs_accounts = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None,
    reason="another person's account is made with useradd, as root",
)


@contextlib.contextmanager
def account(home: Path, *, system: bool = False, uid: int | None = None) -> Iterator[Path]:
    """A real account of the machine whose home is `home` (made here, kept by the caller): a
    person's, or with `system` a service's (a uid below login.defs' UID_MIN), or of `uid`;
    removed after."""
    name = f"lwtest-{secrets.token_hex(4)}"
    home.mkdir()
    kind = ["--system"] if system else []
    kind += [] if uid is None else ["--uid", str(uid)]
    add = ["useradd", *kind, "--no-create-home", "--home-dir", str(home), "--shell", "/bin/false"]
    # Found now: the test may change PATH before the account is removed.
    remove = [shutil.which("userdel") or "userdel", name]
    subprocess.run([*add, name], check=True, capture_output=True)
    try:
        yield home
    finally:
        subprocess.run(remove, check=True, capture_output=True)


# A run midway: a held directory made in argv[1] with argv[2] (wall.held), a file left in it, its
# place said; held until the process is killed (a worker ended past its budget, a reviewer killed).
HOLDING = """
import sys
from pathlib import Path
from landwatch.wall.held import held_directory
with held_directory(Path(sys.argv[1]), sys.argv[2]) as place:
    (place / "tmp-left").write_bytes(bytes(1000))
    print(place, flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def holding(parent: Path, prefix: str) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A process holding a directory of `prefix` in `parent` (wall.held), and the directory;
    killed after the block if the test has not killed it."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDING, str(parent), prefix],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process, Path(process.stdout.readline().strip())
    finally:
        process.kill()
        process.communicate()
