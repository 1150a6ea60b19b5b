"""What the bench scripts share: git run with a fixed identity, new repositories, a throwaway HOME.

Benchmarks never touch the user's own registry, entry point or reviewer.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from landwatch.review.rules import all_rules

IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


# install.sh's edit of pip's launchers (`import re` out): a bench times the command as install.sh
# leaves it. tests/bench/test_benchlib.py keeps the two the same.
LAUNCHER_EDIT = ("-e", "/^import re$/d", "-e", "/= re[.]sub(/d")


def installed_launcher(scratch: Path, command: str = "landwatch") -> Path:
    """`command` as install.sh leaves it: pip's launcher of this environment, edited as it is
    edited there, written into `scratch`."""
    made = scratch / command
    with made.open("wb") as out:
        pip_made = Path(sys.executable).with_name(command)
        subprocess.run(["sed", *LAUNCHER_EDIT, str(pip_made)], stdout=out, check=True)
    made.chmod(0o755)
    return made


# bubblewrap as ./run-tests unpacks it, for a machine that has none of its own.
UNPACKED_BWRAP = Path(__file__).resolve().parents[1] / ".test-tools" / "bubblewrap" / "usr" / "bin"


def with_the_wall() -> None:
    """UNPACKED_BWRAP last on PATH, for this process and its children (a reviewer): the
    machine's own bubblewrap is found first. Without a wall, nothing a repository configured
    runs, and a bench of its linters or hooks would time none."""
    os.environ["PATH"] = os.pathsep.join([os.environ["PATH"], str(UNPACKED_BWRAP)])


def git(repo: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | IDENTITY
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def new_repo(path: Path, *, initial: bool = True, hooks: bool = False) -> Path:
    """A repository at `path` (with a first commit), landwatch's hooks installed if asked."""
    git(path.parent, "init", "-q", "-b", "main", str(path))
    if initial:
        (path / "README").write_text("bench\n")
        git(path, "add", "README")
        git(path, "commit", "-q", "-m", "initial")
    if hooks:
        from landwatch.commands import install

        install.install(path, out=io.StringIO())
    return path


def isolated_home(scratch: Path) -> Path:
    """Point HOME and the XDG directories into `scratch` for this process and its children."""
    home = scratch / "home"
    (home / "run").mkdir(parents=True, exist_ok=True)
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_RUNTIME_DIR=str(home / "run"),
    )
    return home


def as_installed() -> None:
    """Bytecode written, as pip compiles it at install: an environment that says not to write
    it would have every run compile what it imports."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    source = Path(__file__).resolve().parents[1] / "src" / "landwatch"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(source)], check=True)


def installed_home(scratch: Path) -> Path:
    """A home of its own in `scratch` (isolated_home), landwatch's bytecode written as pip
    would (as_installed), and git's maintenance off: what a timed hook then runs is the hook."""
    home = isolated_home(scratch)
    as_installed()
    (home / ".gitconfig").write_text("[landwatch]\n\tmaintenance = false\n")
    return home


def runs_asked(doc: str, default: int, of: str = "of each") -> int:
    """`--runs N` from the command line, the bench's docstring's first line its description."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=default, help=f"{of}, interleaved ({default})")
    runs: int = parser.parse_args().runs
    return runs


@contextlib.contextmanager
def scratch_home(prefix: str) -> Iterator[Path]:
    """A temporary directory with a home of its own in it (installed_home), removed after."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        root = Path(scratch)
        installed_home(root)
        yield root


@contextlib.contextmanager
def running_reviewer(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`landwatch reviewer ARGS` in the background, from the moment it has written its state
    file until it ends on SIGTERM."""
    from landwatch import layout

    reviewer = subprocess.Popen(
        [sys.executable, "-m", "landwatch", "reviewer", *args], env=env, stderr=subprocess.DEVNULL
    )
    try:
        while not layout.REVIEWER_STATE.path().exists():
            if reviewer.poll() is not None:
                raise SystemExit(f"the reviewer ended at its start (status {reviewer.returncode})")
            time.sleep(0.01)
        yield reviewer
    finally:
        reviewer.send_signal(signal.SIGTERM)
        reviewer.wait(timeout=60)


REPORT_DEADLINE = 120  # seconds: a review never stored ends the bench instead of hanging it


def seconds_to_report(repo: Path, message: str) -> float:
    """Commit what is staged in `repo` and wait for its review to be stored: the seconds from
    the commit returning (its hook has recorded it) to `reports/<oid>.json`, a `git rev-parse`
    of about a millisecond included, on the safe side."""
    from landwatch import layout

    git(repo, "commit", "-q", "-m", message)
    returned = time.perf_counter()
    oid = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    report = layout.REPORTS.path(repo / ".git") / f"{oid}.json"
    while not report.exists():
        if time.perf_counter() - returned > REPORT_DEADLINE:
            raise SystemExit(f"no review of {oid} stored within {REPORT_DEADLINE} s")
        time.sleep(0.0005)
    return time.perf_counter() - returned


def resident_kib(pid: int) -> int:
    """VmRSS of `pid` and its children (the warm worker, started from any of its threads)."""
    total = 0
    pids = [pid] + [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]
    for each in pids:
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


@contextmanager
def timed_secret_rules() -> Iterator[list[float]]:
    """While inside, the seconds the secret rules spend on files' lines add up in the list (a
    rule calling another's check_lines counted once)."""
    spent, depth = [0.0], [0]
    classes, _ = all_rules()
    originals = {cls: cls.check_lines for cls in classes if cls.secret}  # type: ignore[attr-defined]
    with ExitStack() as patches:
        for cls, original in originals.items():

            def timed(self: Any, file: Any, lines: Any, _original: Any = original) -> list[Any]:
                started = time.perf_counter()
                depth[0] += 1
                try:
                    return list(_original(self, file, lines))
                finally:
                    depth[0] -= 1
                    if not depth[0]:
                        spent[0] += time.perf_counter() - started

            patches.enter_context(mock.patch.object(cls, "check_lines", timed))
        yield spent
