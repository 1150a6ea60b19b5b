"""Helpers for the queue tests: real repositories, invariant checks and crash injection.

Crashes are injected through `work_item._fault_hook` in a forked child that exits at a named
step, so every file-system step of an operation can be interrupted in turn.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from landwatch import work_item
from landwatch.work_item import (
    KNOWN,
    PENDING,
    READY,
    STATES,
    TMP,
    WORK_DIRECTORY,
    Enqueued,
    WorkItem,
    WorkKind,
)
from landwatch.work_item.directory import checkpoint

CRASHED = 77


@contextlib.contextmanager
def tmpfs(target: Path, size: str, files: int | None = None) -> Iterator[None]:
    """A real tmpfs of `size` (and at most `files` inodes) mounted at `target` (made if missing)
    for a full or, remounted read-only, a read-only disk; skipped where mounting is not allowed."""
    target.mkdir(parents=True, exist_ok=True)
    options = f"size={size},mode=0700" + (f",nr_inodes={files}" if files else "")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield
    finally:
        # Lazily: a reviewer or worker still holding a file there does not keep it mounted.
        subprocess.run(["umount", "-l", str(target)], check=True)


def read_only_view(target: Path, *command: str) -> list[str]:
    """`command` run where `target` is a read-only bind mount of itself, in a mount namespace of
    its own (unshare): only it sees `target` read-only, and the mount goes with it; the test is
    skipped where mounting is not allowed. `target` must exist."""
    unshared = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, "sh"]
    probe = subprocess.run([*unshared, str(target), "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a read-only view here (unshare, mount): {probe.stderr.strip()}")
    return [*unshared, str(target), *command]


# $1 bound onto itself, read-only, then the command run in its place (the same pid).
_READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'


def fill(directory: Path) -> Path:
    """Write a file in `directory` until its filesystem is full (a tmpfs of tmpfs()): the file,
    whose removal makes room again."""
    filler = directory / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as file:
        while True:
            file.write(b"\0" * 65536)
            file.flush()
    return filler


def git_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    identity = {
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.update(identity, GIT_CONFIG_NOSYSTEM="1")
    env.update(extra)  # another identity (a teammate's commits), or anything else
    return env


def git(*args: str, cwd: Path, **extra: str) -> str:
    result = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=git_env(**extra),
        check=True,
        capture_output=True,
        text=True,
        errors="surrogateescape",  # a path that is not UTF-8 is read back as Python names it
        stdin=subprocess.DEVNULL,
    )
    return result.stdout.strip()


def new_repository(path: Path) -> Path:
    """A real repository; returns its git dir (what `git rev-parse --git-dir` prints)."""
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", str(path), cwd=path)
    return (path / git("rev-parse", "--git-dir", cwd=path)).resolve()


def oid(number: int) -> str:
    return f"{number:040x}"


def item(git_dir: Path, number: int, kind: WorkKind = WorkKind.REVIEW) -> WorkItem:
    return WorkItem(kind, oid(number), git_dir)


def enqueue_as_the_hooks(item: WorkItem, *, now: float) -> Enqueued:
    """What githooks/hook.sh does: the marker made exclusively and written, then its empty
    `ready/` name made exclusively; each step named for the crash tests."""
    work = item.git_dir / WORK_DIRECTORY
    for name in (KNOWN, READY):
        (work / name).mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        fd = os.open(work / KNOWN / item.id, flags, 0o600)
    except FileExistsError:
        return Enqueued.KNOWN
    checkpoint("hooks: marker created")
    try:
        os.write(
            fd, work_item.encode_record(item, enqueued=now, producer=work_item.this_producer())
        )
    finally:
        os.close(fd)
    checkpoint("hooks: marker written")
    os.close(os.open(work / READY / f"{item.id}.{round(now * 1_000_000)}", flags, 0o600))
    checkpoint("hooks: ready created")
    work_item.forget_listing(item.git_dir)  # as a file event makes the reviewer do
    return Enqueued.ADDED


# --- garbage planted where the queue keeps its files -----------------------------------------


# Every kind of file that is no record: each planted in turn where a record could be.
def plant(directory: Path, name: str, kind: str) -> None:
    """A file of garbage `kind` (one of GARBAGE) named `name` in `directory`."""
    path = directory / name
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "bytes":
        path.write_bytes(os.urandom(300))
    elif kind == "truncated":
        path.write_bytes(b"landwatch-work-item 1\nkind review\noid " + oid(9).encode())
    elif kind == "version":
        path.write_bytes(b"landwatch-work-item 99\nkind review\nend\n")
    elif kind == "huge":
        path.write_bytes(b"x" * (work_item.MAX_RECORD_BYTES + 10))
    elif kind == "symlink":
        path.symlink_to("/etc/passwd")
    elif kind == "dangling":
        path.symlink_to(directory / "nowhere")
    elif kind == "directory":
        path.mkdir()
        (path / "inside").write_text("x")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        raise AssertionError(kind)


GARBAGE = [
    "empty",
    "bytes",
    "truncated",
    "version",
    "huge",
    "symlink",
    "dangling",
    "directory",
    "fifo",
]


def unpublished(git_dir: Path) -> set[str]:
    """Ids a `ready/` name stands for whose marker nobody has published yet."""
    ready = git_dir / WORK_DIRECTORY / READY
    found = set()
    for name in os.listdir(ready) if ready.is_dir() else []:
        id_ = work_item.id_of_entry(name)
        marker = git_dir / WORK_DIRECTORY / KNOWN / id_
        if marker.is_file() and marker.stat().st_nlink == 1:
            found.add(id_)
    return found


def where(git_dir: Path) -> dict[str, list[str]]:
    """id -> the state directories it is found in (well-formed names only); what the hooks said
    is whole but nobody published yet counts as pending, which it is for every consumer."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for state in STATES:
        for name in work_item.entries(git_dir, state):
            found[work_item.id_of_entry(name)].append(state)
    for id_ in unpublished(git_dir):
        found[id_].append(PENDING)
    return dict(found)


def known_markers(git_dir: Path) -> set[str]:
    path = git_dir / WORK_DIRECTORY / KNOWN
    return set(os.listdir(path)) if path.is_dir() else set()


def temp_files(git_dir: Path) -> list[str]:
    path = git_dir / WORK_DIRECTORY / TMP
    return os.listdir(path) if path.is_dir() else []


def check_invariants(git_dir: Path) -> dict[str, str]:
    """Every id in at most one state, every record decodable, markers exactly for present ids.

    Returns id -> state.
    """
    states: dict[str, str] = {}
    for id_, found in where(git_dir).items():
        assert len(found) == 1, f"{id_} is in {found}"
        states[id_] = found[0]
    for state in STATES:
        for name in work_item.entries(git_dir, state):
            if not name.startswith("invalid-"):
                assert work_item.read_entry(git_dir, state, name) is not None, (state, name)
    ours = {id_ for id_ in states if not id_.startswith("invalid-")}
    assert known_markers(git_dir) == ours
    return states


def tries_of(git_dir: Path, id_: str) -> int:
    if id_ in unpublished(git_dir):
        return 0  # a record as its producer wrote it
    for state in STATES:
        for name in work_item.entries(git_dir, state):
            if work_item.id_of_entry(name) == id_:
                found = work_item.read_entry(git_dir, state, name)
                assert found is not None
                return found.tries
    raise AssertionError(f"{id_} is nowhere")


def crash_at(step: int, action: Callable[[], object]) -> bool:
    """Run `action` in a child killed after its `step`-th file-system step; True if it was."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        seen = 0

        def hook(name: str) -> None:
            nonlocal seen
            seen += 1
            if seen == step:
                os._exit(CRASHED)

        work_item._fault_hook = hook
        try:
            action()
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code in (0, CRASHED), f"the child failed with {code}"
    return code == CRASHED


def steps_of(action: Callable[[], object]) -> list[str]:
    """The names of the file-system steps `action` takes (run for real, in this process)."""
    names: list[str] = []
    work_item._fault_hook = names.append
    try:
        action()
    finally:
        work_item._fault_hook = None
    return names


class PausedChild:
    """A child process stopped right after a named step of `action`, until told to go on."""

    def __init__(self, step: str, action: Callable[[], object]) -> None:
        reached_read, reached_write = os.pipe()
        go_read, go_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child
            os.close(reached_read)
            os.close(go_write)

            def hook(name: str) -> None:
                if name == step:
                    os.write(reached_write, b"x")
                    if os.read(go_read, 1) != b"g":
                        os._exit(CRASHED)

            work_item._fault_hook = hook
            try:
                action()
            except BaseException:
                os._exit(1)
            os._exit(0)
        os.close(reached_write)
        os.close(go_read)
        self._go = go_write
        assert os.read(reached_read, 1) == b"x", f"the child never reached {step}"
        os.close(reached_read)

    def resume(self) -> int:
        os.write(self._go, b"g")
        os.close(self._go)
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)

    def kill(self) -> None:
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self._go)


# --- every crash point of an operation ------------------------------------------------------------

T = 1_800_000_000.0  # an arbitrary injected "now"
LEASE = 120.0
# Late enough for every lease to have run out, every orphan's producer to count as gone and every
# stray temp file to be swept.
LATER = T + 2 * work_item.TMP_GRACE + work_item.FOREIGN_PRODUCER_GRACE

Setup = Callable[[Path], Callable[[], object]]


def recover(git_dir: Path, *, now: float = LATER, max_tries: int = 5) -> None:
    """One recovery pass, and proof that a second finds nothing left to finish."""
    work_item.requeue_expired(git_dir, lease=LEASE, max_tries=max_tries, now=now)
    assert work_item.requeue_expired(git_dir, lease=LEASE, max_tries=max_tries, now=now) == 0


def every_crash(
    tmp_path: Path, setup: Setup, check: Callable[[Path, int, list[str]], None]
) -> list[str]:
    """Crash after each step in turn; `check(git_dir, steps_done, step_names)` after recovery."""
    steps = steps_of(setup(new_repository(tmp_path / "dry-run")))
    assert steps, "the action takes no file-system step"
    for done_steps in range(1, len(steps) + 2):
        git_dir = new_repository(tmp_path / f"crash-{done_steps}")
        action = setup(git_dir)
        work_item._listings.clear()
        crashed = crash_at(done_steps, action)
        assert crashed == (done_steps <= len(steps)), (done_steps, steps)
        work_item._listings.clear()
        check(git_dir, done_steps, steps)
    return steps
