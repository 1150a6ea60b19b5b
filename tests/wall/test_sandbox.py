"""The wall (wall.sandbox, through wall.door): a view of the machine built from nothing, the
system read-only, a program's own installation and the places a run names; no home, no other
repository, no socket, no network; stopped whole at its timeout. Where bubblewrap is missing or
cannot run, nothing a repository wrote runs unless the person said `landwatch.sandbox false`, and
`landwatch doctor` says which. bwrap comes from Debian (./run-tests unpacks it) or the system."""

from __future__ import annotations

import ast
import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from landwatch import report_store
from landwatch.processes import most_memory
from landwatch.wall.door import choose, find
from landwatch.wall.door import walled as walled_run
from landwatch.wall.sandbox import Reach, arguments
from landwatch.wall.workspace import workspace
from support.daemon import process_gone, run_reviewer, wait_for
from support.queue import tmpfs
from support.repos import Repo
from support.review import pylint_linter
from support.sandbox import MAPPING, WITH_BWRAP, far_away, needs_bwrap, walled

# Where a run's blanks are made (door.walled), for the arguments the wall is built with.
BLANKS = Path("/blanks")

# What a program behind the wall tries, each line `what yes|no`.
PROBE = """\
import os, socket, sys
def tried(what, action):
    try:
        action()
        print(what, "yes")
    except OSError:
        print(what, "no")
def connect(family, address):
    with socket.socket(family) as each:
        each.settimeout(5)
        each.connect(address)
far, port = sys.argv[1], int(sys.argv[2])
tried("far file", lambda: open(os.path.join(far, "id_rsa")).read())
tried("far listing", lambda: os.listdir(far))
tried("far socket", lambda: connect(socket.AF_UNIX, os.path.join(far, "agent.sock")))
tried("abstract socket", lambda: connect(socket.AF_UNIX, "\\0landwatch-test-" + sys.argv[3]))
tried("socketpair", lambda: socket.socketpair())
tried("network", lambda: connect(socket.AF_INET, ("127.0.0.1", port)))
tried("own", lambda: open("written", "w"))
tried("tmpdir", lambda: open(os.path.join(os.environ["TMPDIR"], "t"), "w"))
tried("run", lambda: os.listdir("/run"))
tried("root", lambda: print(sorted(os.listdir("/")), file=sys.stderr))
"""


def test_without_bwrap_nothing_of_a_repository_runs_unless_the_person_said_so(
    tmp_path: Path,
) -> None:
    wall, said = choose(True, str(tmp_path))  # a PATH without bwrap
    assert wall is None
    assert said.startswith("there is no wall here: bubblewrap (bwrap) is not installed; ")
    assert "nothing a repository wrote runs" in said
    assert "`git config --global landwatch.sandbox false`" in said  # what that means, too:
    assert "with your files, your network and your sockets" in said
    wall, said = choose(False, str(tmp_path))
    assert wall is not None and wall.sandbox is None
    assert "git config landwatch.sandbox is false" in said


def test_a_bwrap_that_cannot_run_here_is_no_wall(tmp_path: Path) -> None:
    refusing = tmp_path / "bwrap"
    refusing.write_text(
        textwrap.dedent("""\
            #!/bin/sh
            [ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
            echo "bwrap: setting up uid map: Permission denied" >&2; exit 1
            """)
    )
    refusing.chmod(0o755)
    jail, said = find(str(tmp_path))
    assert jail is None
    assert said == (
        f"there is no wall here: {refusing} cannot run here "
        "(bwrap: setting up uid map: Permission denied)"
    )


def test_a_bwrap_that_refuses_the_places_shown_empty_is_no_wall(tmp_path: Path) -> None:
    """The probe runs bwrap as every walled run does, the places shown empty included: one
    that would refuse them is found out once, not by every linter failing."""
    refusing = tmp_path / "bwrap"
    refusing.write_text(
        textwrap.dedent("""\
            #!/bin/sh
            [ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
            for argument; do
                [ "$argument" = /dev/shm ] && { echo "bwrap: Can't bind /dev/shm" >&2; exit 1; }
            done
            exit 0
            """)
    )
    refusing.chmod(0o755)
    jail, said = find(str(tmp_path))
    assert jail is None
    assert said == f"there is no wall here: {refusing} cannot run here (bwrap: Can't bind /dev/shm)"


def test_the_wall_is_built_from_nothing() -> None:
    built = arguments("bwrap", Reach(Path("/work/x"), writable=(Path("/work/x"),)), BLANKS, 3)
    pairs = list(itertools.pairwise(built))
    assert ("--ro-bind", "/") not in pairs and ("--bind", "/") not in pairs
    assert ("--bind", "/work/x") in pairs and ("--seccomp", "3") in pairs
    assert "--unshare-all" in built and "--share-net" not in built
    with_network = arguments("bwrap", Reach(Path("/"), network=True), BLANKS)
    assert with_network.index("--share-net") > with_network.index("--unshare-all")


def test_what_the_wall_shows_empty_is_a_directory_on_disk_never_memory() -> None:
    """Attack 106: a memory file system holds each file's kernel memory, and bwrap can bound
    its bytes but not its files; each place shown empty is one of the run's blanks instead."""
    reach = Reach(Path("/work/x"), emptied=(Path("/store"), Path("/other")))
    built = arguments("bwrap", reach, BLANKS)
    triples = itertools.pairwise(itertools.pairwise(built))
    bound = {place: blank for (flag, blank), (_, place) in triples if flag == "--bind"}
    assert bound == {
        "/tmp": "/blanks/tmp",
        "/dev/shm": "/blanks/shm",
        "/store": "/blanks/emptied-0",
        "/other": "/blanks/emptied-1",
    }
    assert "--tmpfs" not in built and "--size" not in built


@needs_bwrap
def test_behind_the_wall_a_program_reaches_nothing_of_the_person(tmp_path: Path) -> None:
    # Issue 37, attack 6 (and the wall's other sides): the old sandbox's `--ro-bind / /` showed
    # every file outside /tmp, and left pathname sockets there open to connect().
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    name = f"{os.getpid()}-{tmp_path.name}"
    with far_away("home") as far, listening:
        (far / "id_rsa").write_text("the person's key\n")
        agent = socket.socket(socket.AF_UNIX)
        agent.bind(str(far / "agent.sock"))
        agent.listen()
        abstract = socket.socket(socket.AF_UNIX)
        abstract.bind(f"\0landwatch-test-{name}")
        abstract.listen()
        with agent, abstract, workspace({}, walled(), tmp_path) as place:
            argv = (sys.executable, "-c", PROBE, str(far), str(port), name)
            ran = place.run(argv, "m.py", b"", timeout=60)
        said = dict(line.rsplit(" ", 1) for line in ran.stdout.decode().splitlines())
    assert said == {
        "far file": "no",
        "far listing": "no",
        "far socket": "no",
        "abstract socket": "no",
        "socketpair": "yes",
        "network": "no",
        "own": "yes",
        "tmpdir": "yes",
        "run": "no",
        "root": "yes",
    }, ran.stderr
    seen = ast.literal_eval(ran.stderr.decode().strip().splitlines()[-1])
    assert not {"home", "run", "var", "srv", "mnt", "media"} & set(seen), seen


@needs_bwrap
def test_a_walled_program_past_its_timeout_is_stopped_with_all_it_started() -> None:
    sleeper = "sleep 1201.5"  # a command line no other process has
    with workspace({}, walled(), None) as place:
        ran = place.run(("sh", "-c", f"{sleeper} & {sleeper} & wait"), "m.py", b"", timeout=0.5)
    assert ran.timed_out

    def left() -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if (
                    entry.name.isdigit()
                    and (entry / "cmdline").read_bytes() == b"sleep\x001201.5\x00"
                ):
                    found.append(int(entry.name))
            except OSError:
                continue
        return [pid for pid in found if not process_gone(pid)]

    wait_for(lambda: not left(), "the walled linter's sleepers to be killed")


@needs_bwrap
def test_behind_the_wall_a_program_holds_at_most_half_the_machine_s_memory() -> None:
    most = most_memory()
    assert most is not None
    with workspace({}, walled(), None) as place:
        argv = (sys.executable, "-c", MAPPING, str(most + (64 << 20)))
        ran = place.run(argv, "m.py", b"", timeout=60)
    assert ran.stdout == b"refused\n", ran.stderr


# The size of each file system named by argv, in bytes.
# Empty files made in the place named ($1), 600 of them, then a wait that the disk's watch ends.
FILLING = 'cd "$1" && i=0; while [ $i -lt 600 ]; do : > f$i; i=$((i + 1)); done; sleep 120'


@needs_bwrap
@pytest.mark.parametrize("place", ["/tmp", "/dev/shm", "a store"])
def test_files_made_where_the_wall_shows_empty_count_on_the_run_s_disk(
    tmp_path: Path, place: str
) -> None:
    """Attack 106: /tmp, /dev/shm and a store shown empty were memory file systems, whose files
    bwrap cannot bound (about 3 million each here, each holding 1.2 KB of the kernel's memory
    while the run lasted). Made in the run's scratch directory on disk instead, they count as
    its other files do: the run is stopped at half its disk's free files."""
    disk, store = tmp_path / "disk", tmp_path / "store"
    store.mkdir()
    reach = Reach(disk, writable=(disk,), emptied=(store,), scratch=disk)
    argv = ["sh", "-c", FILLING, "sh", str(store) if place == "a store" else place]
    with tmpfs(disk, "64m", files=1000):
        env = {"PATH": "/usr/bin:/bin"}
        ran = walled_run(walled(), argv, reach, env=env, input=b"", timeout=120)
        assert re.fullmatch(r"took half the 99\d files free on its disk", ran.over), ran
        assert os.statvfs(disk).f_favail > 990  # what it made there is gone with it
    assert list(store.iterdir()) == []


# What a program behind the wall finds of /dev: its /dev/shm's size, then `place yes|no` for
# each place it tries to write.
DEVICES = """\
import os
shm = os.statvfs("/dev/shm")
print(shm.f_blocks * shm.f_frsize)
for place in ("/dev/filled", "/dev/shm/filled", "/dev/null"):
    try:
        with open(place, "w") as file:
            file.write("x" * 4096)
        print(place, "yes")
    except OSError:
        print(place, "no")
"""


@needs_bwrap
def test_behind_the_wall_dev_holds_nothing_written_and_its_shm_is_on_the_run_s_disk() -> None:
    """An audit: /dev was a tmpfs of the kernel's size (half the machine) the run could write,
    /dev/shm in it: 300 MiB written there were held. /dev/shm is on the run's disk, as /tmp."""
    with workspace({}, walled(), None) as place:
        ran = place.run((sys.executable, "-c", DEVICES), "m.py", b"", timeout=60)
        disk = os.statvfs(place.root)
    size, *tried = ran.stdout.decode().splitlines()
    assert int(size) == disk.f_blocks * disk.f_frsize, ran.stderr  # the run's disk, not memory
    assert tried == ["/dev/filled no", "/dev/shm/filled yes", "/dev/null yes"], ran.stderr


def writer_linter() -> str:
    return textwrap.dedent("""\
        [[linters]]
        name = "writer"
        command = ["sh", "-c", "cat > /dev/null; touch \\"$ESCAPE\\"; echo '[]'"]
        format = "ruff-json"
        files = ["*.py"]
        """)


@needs_bwrap
def test_the_reviewer_runs_trusted_linters_behind_the_wall_unless_told_not_to(
    tmp_path: Path, repo: Repo
) -> None:
    with far_away("escape") as far:
        escaped = far / "escaped"
        linters = writer_linter().replace("$ESCAPE", str(escaped)) + pylint_linter()
        repo.land("linters", {".landwatch.toml": linters}, hooks=False)
        assert repo.landwatch("trust", "--yes").returncode == 0
        repo.git("config", "landwatch.sandbox", "true")
        oid = repo.land("a change", {"m.py": "import os\n"})
        assert run_reviewer("--once", PATH=WITH_BWRAP).returncode == 0
        stored = report_store.read(repo.git_dir, oid)
        assert stored is not None and not escaped.exists()
        assert "pylint:W0611" in {finding.rule for finding in stored.findings}  # real ones work
        assert {run["status"] for run in stored.linters} == {"ok"}
        doctor = subprocess.run(
            [sys.executable, "-m", "landwatch", "doctor"],
            cwd=repo.path,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": WITH_BWRAP},
        )
        assert "landwatch doctor: a repository's code runs behind the wall, bubblewrap" in (
            doctor.stdout
        )
        repo.git("config", "landwatch.sandbox", "false")
        again = repo.land("another", {"m.py": "import sys\n"})
        assert run_reviewer("--once", PATH=WITH_BWRAP).returncode == 0
        stored = report_store.read(repo.git_dir, again)
        assert escaped.exists(), (stored.linters, stored.notes) if stored else None


def test_without_a_wall_a_repository_s_linters_do_not_run_and_the_review_says_why(
    tmp_path: Path, repo: Repo
) -> None:
    ran = tmp_path / "ran"
    linter = writer_linter().replace("$ESCAPE", str(ran))
    repo.land("linters", {".landwatch.toml": linter}, hooks=False)
    assert repo.landwatch("trust", "--yes").returncode == 0
    repo.git("config", "landwatch.sandbox", "true")  # the default, on a machine without bwrap
    oid = repo.land("a change", {"m.py": "import os\n"})
    no_bwrap = f"{tmp_path / 'nowhere'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    if shutil.which("bwrap", path=no_bwrap):
        pytest.skip("this machine's own bubblewrap is on the system's PATH")
    assert run_reviewer("--once", PATH=no_bwrap).returncode == 0
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and not ran.exists()
    said = [note for note in stored.notes if note.startswith("linters of this repository")]
    assert said and "bubblewrap (bwrap) is not installed" in said[0]
    assert stored.linters_held_back is None  # not a matter of trust: nothing to trust
