"""The review kind drained by the real reviewer, and the hooks' line telling of it once."""

from __future__ import annotations

import os
from pathlib import Path

from daemon_helpers import run_reviewer
from landwatch import layout, report_store, work_item
from landwatch.work_item import DONE
from repo_helpers import Repo, installed


def test_the_reviewer_reviews_landings_and_the_hooks_tell_once(repo: Repo) -> None:
    oid = repo.land("with findings", {"a.py": "x = 1  \nimport pdb\n"})
    clean = repo.land("clean", {"b.txt": "fine\n"})
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert sorted(
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ) == sorted([f"review-{oid}", f"review-{clean}"])
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and stored.summary() == "2 warnings, 1 info"
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert told == f"landwatch: {oid[:7]} — 2 warnings, 1 info · landwatch show {oid[:7]}\n"
    assert repo.run("commit", "-q", "--allow-empty", "-m", "again").stderr == ""
    shown = repo.landwatch("show", oid)
    assert shown.returncode == 0 and "a.py" in shown.stdout and "debug-statement" in shown.stdout
    assert repo.landwatch("show", "HEAD").returncode == 1  # not reviewed yet


def test_hostile_names_are_reviewed_and_never_reach_a_terminal_raw(tmp_path: Path) -> None:
    repo = installed(tmp_path / "repo\x1b[2J\u202e")  # the reviewer logs its path
    repo.git("config", "landwatch.notes", "true")
    names = [
        b"caf\xe9.txt",  # not UTF-8
        b"evil\x1b]0;pwned\x07.txt",  # a terminal escape and a bell
        "admin\u202e\u2066txt.exe".encode(),  # bidirectional overrides
    ]
    for name in names:
        (repo.path / os.fsdecode(name)).write_bytes(b"trailing  \n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "hostile names")
    oid = repo.head()
    result = run_reviewer("--once", "--verbose")
    assert result.returncode == 0, result.stderr
    assert f"review-{oid}" in [
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, DONE)
    ]
    stored = report_store.read(repo.git_dir, oid)
    assert stored is not None and len([f for f in stored.findings if f.rule == "P001"]) == 3
    shown = repo.landwatch("show", oid)
    note = repo.git("notes", "--ref", "landwatch", "show", oid)
    reviewed = repo.landwatch("review", oid, "--sarif")
    assert reviewed.returncode == 0 and "Traceback" not in reviewed.stderr
    assert "caf%E9.txt" in reviewed.stdout
    for text in (shown.stdout, note, result.stderr, layout.reviewer_log().read_text()):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\u2066" not in text
    assert "caf\\xe9.txt" in shown.stdout and "evil\\x1b]0;pwned\\x07.txt" in shown.stdout
    assert "admin\\u202e\\u2066txt.exe" in shown.stdout
    assert "repo\\x1b[2J\\u202e" in layout.reviewer_log().read_text()  # escaped, not dropped
