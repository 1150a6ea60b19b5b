"""`landwatch trust`: it shows the committed commands, the files they are given and what changed
since the last approval, then asks (on a terminal; otherwise only --yes approves) and approves
exactly them; --show lists what is trusted and what would be asked, --revoke withdraws it; the
approvals are kept with the person, private, never in the repository."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import stat
import subprocess
import sys
from pathlib import Path

from landwatch import layout, report_store
from landwatch.commands.trust import held_back_hooks
from landwatch.review.project_hooks.results import HooksResult
from support.daemon import run_reviewer
from support.queue import oid
from support.repos import Repo
from support.review import canary_linter

T = 1_800_000_000  # an arbitrary injected "now", whole seconds


def test_trust_shows_the_commands_and_then_they_run(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("add a linter", {".landwatch.toml": canary_linter(canary)}, hooks=False)
    shown = repo.landwatch("trust", "--yes")
    assert shown.returncode == 0, shown.stderr
    whole = f"canary: sh -c 'touch {canary}; cat > /dev/null; echo '\"'\"'[]'\"'\"''"
    assert "canary: sh -c 'touch" in shown.stdout and "trusted exactly these" in shown.stdout
    repo.land("a change", {"m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert canary.exists()
    listed = repo.landwatch("trust", "--show").stdout
    assert "trusted" in listed and whole in listed  # each command whole
    store = layout.TRUST.path()
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700
    assert repo.path not in store.parents  # kept with the person, never in the repository
    assert "withdrew 1 approval" in repo.landwatch("trust", "--revoke").stdout
    canary.unlink()
    repo.land("after revoking", {"m.py": "x = 2\n"})
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    assert "nothing is trusted" in repo.landwatch("trust", "--show").stdout


def on_a_terminal(repo: Repo, *args: str, answer: bytes) -> tuple[int, str]:
    """`landwatch trust ARGS` on a terminal (a pty) where a person types `answer` once asked:
    its exit status and all it showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "landwatch", "trust", *args],
        cwd=repo.path,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        # A pager that pages nothing but shows all it is given: what a person reads in less.
        env={**os.environ, "COLUMNS": "200", "GIT_PAGER": "cat -v"},
    )
    os.close(follower)
    shown = b""
    with contextlib.suppress(OSError):  # EIO: the terminal closed with the process
        while b"[y/N]" not in shown and select.select([leader], [], [], 60)[0]:
            chunk = os.read(leader, 65536)
            if not chunk:
                break
            shown += chunk
        os.write(leader, answer)
        while chunk := os.read(leader, 65536):
            shown += chunk
    os.close(leader)
    return process.wait(timeout=60), shown.decode().replace("\r\n", "\n")


PYLINTRC = "[MESSAGES CONTROL]\ndisable=C0114\n"


def test_on_a_terminal_trust_shows_everything_then_asks(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    config = {".landwatch.toml": canary_linter(canary), ".pylintrc": PYLINTRC, "sub/.pylintrc": ""}
    repo.land("a linter and its configuration", config, hooks=False)
    status, shown = on_a_terminal(repo, answer=b"n\n")
    assert status == 1, shown
    assert "canary: sh -c" in shown and "[on *.py; at most 30 s]" in shown
    assert "given these files of it, pinned by content:\n  .pylintrc\n" in shown
    assert "sub/.pylintrc" not in shown  # below the root: never given, so not asked about
    assert "nothing was trusted here before" in shown and "+disable=C0114" in shown
    assert shown.rstrip().endswith("landwatch: nothing trusted")
    assert "nothing is trusted" in repo.landwatch("trust", "--show").stdout
    status, shown = on_a_terminal(repo, answer=b"y\n")
    assert status == 0 and "trusted exactly these" in shown, shown
    repo.land("a change", {"m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert canary.exists()


def test_a_change_to_a_given_file_asks_again_shown_as_a_diff(tmp_path: Path, repo: Repo) -> None:
    canary = tmp_path / "ran"
    repo.land("a linter", {".landwatch.toml": canary_linter(canary), ".pylintrc": PYLINTRC})
    assert repo.landwatch("trust", "--yes").returncode == 0
    changed = PYLINTRC.replace("C0114", "C0114,W0611")
    repo.land("its configuration changes", {".pylintrc": changed, "m.py": "x = 1\n"})
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()  # held back: what it would be given is not what was trusted
    shown = repo.landwatch("trust", "--show").stdout
    assert "changed since you last trusted this repository" in shown
    assert "--- .pylintrc (trusted)\n  +++ .pylintrc (HEAD)" in shown
    assert "-disable=C0114\n  +disable=C0114,W0611" in shown
    assert "not trusted here; `landwatch trust` would ask" in shown
    # Without a terminal to ask on, only --yes approves.
    refused = repo.landwatch("trust")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    # The first screen all the same: the diff counted, and where it is shown whole.
    assert "; changed since: 1 file, 2 lines of diff\n" in refused.stdout
    assert "`landwatch trust --show`" in refused.stdout
    repo.land("next", {"m.py": "x = 2\n"})
    assert run_reviewer("--once").returncode == 0
    assert not canary.exists()
    assert repo.landwatch("trust", "--yes").returncode == 0
    assert "HEAD's configuration is trusted here" in repo.landwatch("trust", "--show").stdout


def test_a_file_too_long_to_align_shows_the_lines_it_lost_and_gained(repo: Repo) -> None:
    """difflib's alignment is quadratic in the lines a file repeats: a pinned file of 64,000
    lines drawn from 101 took 17.5 s to show, a 1 MB one minutes. Past MOST_ALIGNED_LINES
    the lines removed and the lines added are shown, in one pass over each file."""
    from landwatch.commands.trust_screen import MOST_ALIGNED_LINES

    notes = "".join(f"# note {number % 101}\n" for number in range(MOST_ALIGNED_LINES))
    linter = canary_linter(repo.path / "ran")
    repo.land("a linter", {".landwatch.toml": linter, ".pylintrc": PYLINTRC + notes})
    assert repo.landwatch("trust", "--yes").returncode == 0
    changed = PYLINTRC.replace("C0114", "C0114,W0611") + notes + "# \x1b[31mred\n"
    repo.land("its configuration changes", {".pylintrc": changed})
    shown = repo.landwatch("trust", "--show").stdout
    assert f"{MOST_ALIGNED_LINES + 2:,} lines, then {MOST_ALIGNED_LINES + 3:,}: too many" in shown
    assert "then the lines added (a line only moved is neither) @@\n  -disable=C0114\n" in shown
    assert "  +disable=C0114,W0611\n  +# " in shown and "\x1b" not in shown
    refused = repo.landwatch("trust")
    assert "; changed since: 1 file, 3 lines of diff\n" in refused.stdout


def test_the_hooks_held_back_for_a_digest_are_found_newest_first_and_bounded(
    git_dir: Path,
) -> None:
    kept = [
        HooksResult(oid(1), "untrusted", digest="d1"),
        HooksResult(oid(2), "untrusted", digest="d2"),  # another configuration's
        HooksResult(oid(3), "untrusted", digest="d1"),
        HooksResult(oid(4), "ran", ["pre-commit 4.0.1"]),
        HooksResult(oid(5), "untrusted", digest="d1"),
        HooksResult(oid(6), "untrusted"),  # kept by a release that did not say its digest
    ]
    for at, result in enumerate(kept):
        path = report_store.write_hooks(git_dir, result)
        os.utime(path, (T + at, T + at))  # kept in this order
    (layout.REPORTS.path(git_dir) / f"{oid(7)}.hooks.json").symlink_to(
        layout.hooks_report_file(git_dir, oid(5))
    )
    assert held_back_hooks(git_dir, "d1", most=5) == [oid(5), oid(3), oid(1)]
    assert held_back_hooks(git_dir, "d1", most=2) == [oid(5), oid(3)]
    assert held_back_hooks(git_dir, "d3", most=5) == []
    assert held_back_hooks(git_dir / "nowhere", "d1", most=5) == []
