"""The patch rules through the whole review, true and false positives side by side."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from landwatch.review import engine
from landwatch.review.change import ChangeError
from landwatch.review.findings import Finding
from landwatch.review.report import Report
from repo_helpers import Repo
from review_helpers import found, land, new_repo, review, write


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return new_repo(tmp_path)


def test_trailing_whitespace_and_markdown_line_breaks(repo: Repo) -> None:
    land(
        repo,
        {
            "code.py": "ok = 1\nbad = 2  \ntab = 3\t\n",
            "notes.md": "a hard break  \nthree is too many   \n  \n",
        },
    )
    assert found(review(repo), "P001") == [
        ("P001", "code.py", 2),
        ("P001", "code.py", 3),
        ("P001", "notes.md", 2),
        ("P001", "notes.md", 3),
    ]


def test_missing_final_newline_but_not_for_symlinks(repo: Repo) -> None:
    land(repo, {"a.txt": "one\ntwo"})
    os.symlink("a.txt", repo.path / "link")
    repo.git("add", "link")
    repo.git("commit", "-q", "-m", "link", LANDWATCH="0")
    assert found(review(repo, "HEAD~1"), "P002") == [("P002", "a.txt", 2)]
    assert found(review(repo), "P002") == []


def test_mixed_line_endings_only_when_the_change_mixes_them(repo: Repo) -> None:
    land(repo, {"mixed.txt": b"a\r\nb\n", "crlf.txt": b"a\r\nb\r\n"})
    assert found(review(repo), "P003") == [("P003", "mixed.txt", None)]
    land(repo, {"mixed.txt": b"a\r\nb\nc\n"})  # mixed before: not reported again
    assert found(review(repo), "P003") == []


def test_conflict_markers_and_rst_headings(repo: Repo) -> None:
    land(
        repo,
        {
            "conflicted.py": "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> topic\n",
            "doc.rst": "Title\n=======\n\nText\n",
        },
    )
    assert found(review(repo), "P004") == [
        ("P004", "conflicted.py", 1),
        ("P004", "conflicted.py", 3),
        ("P004", "conflicted.py", 5),
    ]


def test_large_files_added_or_grown_and_lfs_exempt(repo: Repo) -> None:
    big = b"x" * (600 * 1024)
    land(
        repo,
        {
            ".gitattributes": "*.bin filter=lfs diff=lfs merge=lfs -text\n",
            "data.csv": big,
            "model.bin": big,
            "small.csv": b"x" * 1000,
        },
    )
    assert found(review(repo), "P005") == [("P005", "data.csv", None)]
    land(repo, {"small.csv": big})  # grew past the limit
    assert found(review(repo), "P005") == [("P005", "small.csv", None)]


def test_syntax_errors_in_json_toml_yaml_python(repo: Repo) -> None:
    land(
        repo,
        {
            "bad.json": '{"a": 1,}\n',
            "good.json": '{"a": 1}\n',
            "bad.toml": "a = \n",
            "good.toml": "a = 1\n",
            "bad.yaml": "a: [1, 2\nb: 3\n",
            "cloudformation.yaml": "Resources:\n  Bucket:\n    Name: !Ref BucketName\n",
            "bad.py": "def f(:\n    pass\n",
            "good.py": "def f():\n    pass\n",
        },
    )
    assert sorted(found(review(repo), "P006")) == [
        ("P006", "bad.json", 1),
        ("P006", "bad.py", 1),
        ("P006", "bad.toml", 1),
        ("P006", "bad.yaml", 2),
    ]
    land(repo, {"bad.json": '{"a": 2,}\n'})  # broken before the change: not reported again
    assert found(review(repo), "P006") == []


def test_debug_statements_in_python_only(repo: Repo) -> None:
    land(
        repo,
        {
            "app.py": "import pdb\npdb_helper = 1\nbreakpoint()\nfrom ipdb import set_trace\n",
            "notes.txt": "import pdb\n",
        },
    )
    assert found(review(repo), "P007") == [
        ("P007", "app.py", 1),
        ("P007", "app.py", 3),
        ("P007", "app.py", 4),
    ]


def test_paths_that_clash_by_case_or_windows_cannot_hold(repo: Repo) -> None:
    land(repo, {"README.md": "x\n", "docs/Guide.md": "x\n"})
    land(repo, {"Readme.md": "y\n", "aux.c": "int x;\n", "docs/guide.md": "y\n", "ok.c": "x\n"})
    assert sorted((path, rule) for rule, path, _ in found(review(repo), "P008")) == [
        ("Readme.md", "P008"),
        ("aux.c", "P008"),
        ("docs/guide.md", "P008"),
    ]


def test_executable_bit_versus_shebang(repo: Repo) -> None:
    land(
        repo,
        {
            "script.sh": "#!/bin/sh\necho hi\n",
            "tool": "echo no shebang\n",
            "plain.sh": "#!/bin/sh\n",
            "run.sh": "#!/bin/sh\n",
        },
    )
    repo.git("update-index", "--chmod=+x", "tool")
    repo.git("update-index", "--chmod=+x", "run.sh")
    repo.git("commit", "-q", "--amend", "--no-edit", LANDWATCH="0")
    assert sorted(found(review(repo), "P009")) == [
        ("P009", "plain.sh", None),
        ("P009", "script.sh", None),
        ("P009", "tool", None),
    ]


def test_new_submodule_and_symlink_turned_into_a_file(repo: Repo, tmp_path: Path) -> None:
    library = new_repo(tmp_path, "library")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library.path), "lib")
    os.symlink("target.txt", repo.path / "link")
    write(repo, {"target.txt": "t\n"})
    repo.git("add", "link")
    repo.git("commit", "-q", "-m", "submodule and link", LANDWATCH="0")
    assert found(review(repo), "P010") == [("P010", "lib", None)]
    (repo.path / "link").unlink()
    (repo.path / "link").write_text("target.txt")
    repo.git("add", "link")
    repo.git("commit", "-q", "-m", "a checkout without symlinks", LANDWATCH="0")
    report = review(repo)
    assert found(report, "P011") == [("P011", "link", None)]
    assert "holding its old target" in report.findings[0].message


def test_binary_and_non_utf8_files_are_read_as_bytes(repo: Repo) -> None:
    land(
        repo,
        {
            "image.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR  \n",
            "latin1.txt": "caf\xe9  \nna\xefve\n".encode("latin-1"),
        },
    )
    report = review(repo)
    assert found(report) == [("P001", "latin1.txt", 1)]
    assert report.findings[0].snippet == "caf\ufffd  "


def test_renames_are_detected_and_only_added_lines_count(repo: Repo) -> None:
    body = "".join(f"line {n}  \n" for n in range(20))
    land(repo, {"old.txt": body}, "add with trailing spaces")
    repo.git("mv", "old.txt", "new.txt")
    write(repo, {"new.txt": body + "last  \n"})
    repo.git("commit", "-q", "-m", "rename and add a line", LANDWATCH="0")
    report = review(repo)
    assert found(report) == [("P001", "new.txt", 21)]


def test_root_commit_merge_and_range(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo", initial=False)
    land(repo, {"root.txt": "root  \n"}, "root")
    root = review(repo)
    assert root.shape == "root" and found(root) == [("P001", "root.txt", 1)]
    repo.git("switch", "-q", "-c", "topic")
    land(repo, {"topic.txt": "from topic  \n"}, "topic")
    repo.git("switch", "-q", "main")
    land(repo, {"main.txt": "main\n"}, "main moves")
    repo.git("merge", "-q", "--no-edit", "topic", LANDWATCH="0")
    merge = review(repo)
    assert merge.shape == "merge" and found(merge) == [("P001", "topic.txt", 1)]
    write(repo, {".landwatch.toml": 'merges = "skip"\n'})
    repo.git("commit", "-q", "-m", "skip merges", LANDWATCH="0")
    repo.git("switch", "-q", "topic")
    land(repo, {"topic2.txt": "more  \n"}, "topic again")
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-edit", "topic", LANDWATCH="0")
    skipped = review(repo)
    assert skipped.findings == [] and any("merge commit skipped" in n for n in skipped.notes)
    first = repo.head()
    land(repo, {"a.txt": "a  \n"}, "a")
    land(repo, {"b.txt": "b  \n"}, "b")
    landed = review(repo, "HEAD", first)
    assert landed.shape == "range" and sorted(found(landed)) == [
        ("P001", "a.txt", 1),
        ("P001", "b.txt", 1),
    ]


def test_a_linked_worktree_is_reviewed_from_its_own_git_dir(repo: Repo, tmp_path: Path) -> None:
    repo.git("worktree", "add", "-q", "-b", "linked", str(tmp_path / "linked"))
    linked = Repo.__new__(Repo)
    linked.path = tmp_path / "linked"
    land(linked, {"w.txt": "w  \n"})
    assert linked.git_dir.parent.name == "worktrees"
    assert found(review(linked)) == [("P001", "w.txt", 1)]


def test_a_repository_not_owned_by_the_user_is_refused(repo: Repo, tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to hand the repository to another user")
    land(repo, {"x.txt": "x\n"})
    stranger = Repo.__new__(Repo)
    stranger.path = tmp_path / "stranger"
    subprocess.run(["cp", "-a", str(repo.path), str(stranger.path)], check=True)
    subprocess.run(["chown", "-R", "12345", str(stranger.path)], check=True)
    with pytest.raises(ChangeError, match="not owned by you"):
        engine.review(stranger.path / ".git", "HEAD", run_linters=False)


def test_the_line_cap_truncates_instead_of_running_away(repo: Repo) -> None:
    land(repo, {".landwatch.toml": "max_added_lines = 10\n"})
    land(repo, {"many.txt": "".join(f"{n}  \n" for n in range(50))})
    report = review(repo)
    assert report.truncated and report.lines_checked == 10
    assert len(found(report, "P001")) == 10
    assert any("max_added_lines" in note for note in report.notes)


def test_fingerprints_survive_line_moves(repo: Repo) -> None:
    def whitespace(report: Report) -> Finding:
        [finding] = [f for f in report.findings if f.rule == "P001"]
        return finding

    land(repo, {"a.txt": "x = 1  \n"})
    first = whitespace(review(repo))
    repo.git("rm", "-q", "a.txt")
    repo.git("commit", "-q", "-m", "gone", LANDWATCH="0")
    land(repo, {"a.txt": "\n\n\nx = 1  \n"})  # the same line, three lines lower
    moved = whitespace(review(repo))
    assert (first.line, moved.line) == (1, 4)
    assert moved.fingerprint == first.fingerprint
    assert whitespace(review(repo)).fingerprint == moved.fingerprint  # reproducible
