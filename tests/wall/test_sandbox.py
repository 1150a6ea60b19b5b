"""Linters under bubblewrap where the machine has it (review.sandbox): no network, the system
read-only, /tmp and the session's sockets out of sight, their own directory writable, stopped
whole at their timeout; where it has none, or one that cannot run, without, and `landwatch
doctor` says which. bwrap comes from Debian (./run-tests unpacks it) or the system."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

from landwatch import report_store
from landwatch.review import sandbox
from landwatch.review.workspace import workspace
from support.daemon import process_gone, run_reviewer, wait_for
from support.repos import Repo
from support.review import pylint_linter
from support.sandbox import WITH_BWRAP, needs_bwrap, usable


def test_without_bwrap_linters_run_as_they_are_and_say_so(tmp_path: Path) -> None:
    jail, said = sandbox.find(str(tmp_path))  # a PATH without bwrap
    assert jail is None and "bubblewrap (bwrap) is not installed" in said
    assert "landwatch.sandbox is false" in sandbox.status(None, enabled=False)


def test_a_bwrap_that_cannot_run_here_is_not_used(tmp_path: Path) -> None:
    refusing = tmp_path / "bwrap"
    refusing.write_text(
        textwrap.dedent("""\
            #!/bin/sh
            [ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
            echo "bwrap: setting up uid map: Permission denied" >&2; exit 1
            """)
    )
    refusing.chmod(0o755)
    jail, said = sandbox.find(str(tmp_path))
    assert jail is None
    assert said == (
        f"linters run without a sandbox: {refusing} cannot run here "
        "(bwrap: setting up uid map: Permission denied)"
    )


@needs_bwrap
def test_a_sandboxed_linter_writes_only_its_own_directory_and_reaches_no_network(
    tmp_path: Path,
) -> None:
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    outside = Path(sys.prefix) / f"escaped-{os.getpid()}"  # ours to write, outside /tmp
    planted = tmp_path / "planted"  # another's file in /tmp
    planted.write_text("")
    probe = textwrap.dedent(f"""\
        import os, socket
        def tried(what, action):
            try:
                action()
                print(what, "yes")
            except OSError:
                print(what, "no")
        tried("outside", lambda: open({str(outside)!r}, "w"))
        tried("own", lambda: open("written", "w"))
        tried("tmpdir", lambda: open(os.path.join(os.environ["TMPDIR"], "t"), "w"))
        tried("network", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=5))
        tried("/tmp", lambda: open({str(planted)!r}))
        print("/run", os.listdir("/run"))
    """)
    try:
        with listening, workspace({}, usable(), tmp_path) as place:
            ran = place.run((sys.executable, "-c", probe), "m.py", b"", timeout=60)
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    said = dict(line.split(" ", 1) for line in ran.stdout.decode().splitlines())
    assert said == {
        "outside": "no",
        "own": "yes",
        "tmpdir": "yes",
        "network": "no",
        "/tmp": "no",
        "/run": "[]",
    }, ran.stderr


@needs_bwrap
def test_a_sandboxed_linter_past_its_timeout_is_stopped_with_all_it_started() -> None:
    sleeper = "sleep 1201.5"  # a command line no other process has
    with workspace({}, usable(), None) as place:
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

    wait_for(lambda: not left(), "the sandboxed linter's sleepers to be killed")


@needs_bwrap
def test_the_reviewer_runs_trusted_linters_sandboxed_unless_told_not_to(
    tmp_path: Path, repo: Repo
) -> None:
    escaped = Path.home() / "escaped"
    writer = textwrap.dedent("""\
        [[linters]]
        name = "writer"
        command = ["sh", "-c", "cat > /dev/null; touch \\"$HOME/escaped\\"; echo '[]'"]
        format = "ruff-json"
        files = ["*.py"]
        """)
    repo.land("linters", {".landwatch.toml": writer + pylint_linter()}, hooks=False)
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
    assert "landwatch doctor: linters run sandboxed by bubblewrap" in doctor.stdout
    repo.git("config", "landwatch.sandbox", "false")
    repo.land("another", {"m.py": "import sys\n"})
    assert run_reviewer("--once", PATH=WITH_BWRAP).returncode == 0
    assert escaped.exists()  # the same linter, not sandboxed


def test_a_linter_installed_under_a_hidden_directory_stays_in_sight() -> None:
    # A virtual environment under /tmp (a CI checkout, say) would vanish behind the empty /tmp.
    assert sandbox._installation("/tmp/ci/.venv/bin/ruff") == [
        "--ro-bind",
        "/tmp/ci/.venv",
        "/tmp/ci/.venv",
    ]
    assert sandbox._installation("/usr/bin/ruff") == []
    assert sandbox._installation("/tmp/ruff") == []  # /tmp itself is never shown


def test_the_installation_a_link_on_path_leads_to_stays_in_sight(tmp_path: Path) -> None:
    # A directory of links (a person's ~/bin, a test's PATH) into an environment under /tmp.
    real = tmp_path / "ci" / ".venv" / "bin"
    real.mkdir(parents=True)
    (real / "ruff").write_text("#!/bin/sh\necho ruff\n")
    links = tmp_path / "tools" / "bin"
    links.mkdir(parents=True)
    (links / "ruff").symlink_to(real / "ruff")
    assert sandbox._installation(str(links / "ruff")) == [
        *("--ro-bind", str(tmp_path / "tools"), str(tmp_path / "tools")),
        *("--ro-bind", str(tmp_path / "ci" / ".venv"), str(tmp_path / "ci" / ".venv")),
    ]
