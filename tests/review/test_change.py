"""Reading a landed change through pygit2 (review.change): bytes, renames, the shapes of a landing,
worktrees, ownership and the line cap."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from landwatch.review import engine
from landwatch.review.change import ChangeError
from support.changes import Changes
from support.repos import Repo
from support.review import KEY_ID, found, review, reviewed_apart
from support.timing import cpu_seconds


def test_binary_and_non_utf8_files_are_read_as_bytes(repo: Repo) -> None:
    repo.land(
        "change",
        {
            "image.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR  \n",
            "latin1.txt": "caf\xe9  \nna\xefve\n".encode("latin-1"),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("P001", "latin1.txt", 1)]
    assert report.findings[0].snippet == "caf\ufffd  "


@pytest.mark.parametrize("where", [".gitattributes", "info/attributes"])
def test_a_file_git_is_told_not_to_diff_is_read_by_the_secret_rules(repo: Repo, where: str) -> None:
    """A notebook marked `-diff` and a dump marked `binary`, by the project's `.gitattributes` or
    the person's own attributes: libgit2 called them binary by the attribute alone, and the review
    read none of their lines ("no findings · 0 added lines checked", its note saying secrets were
    still looked for). Their text is read by the secret rules, the other rules leave them as
    before, and content that is binary stays so whatever a token in it."""
    attributes = "*.ipynb -diff\n*.sql binary\n*.png -diff\n"
    if where == ".gitattributes":
        repo.land("attributes", {".gitattributes": attributes}, hooks=False)
    else:
        (repo.git_dir / "info").mkdir(exist_ok=True)
        (repo.git_dir / "info" / "attributes").write_text(attributes)
    notebook = '{"cells": [\n  "x = 1   ",\n  "KEY = \\"' + KEY_ID + '\\""\n]}\n'
    repo.land(
        "notebook", {"nb.ipynb": notebook, "dump.sql": f'x = 1   \nKEY = "{KEY_ID}"\n'}, hooks=False
    )
    report = review(repo)
    assert found(report) == [("S002", "dump.sql", 2), ("S002", "nb.ipynb", 3)]
    assert report.lines_checked == 6
    repo.land("more", {"nb.ipynb": notebook.replace("x = 1", "x = 2")}, hooks=False)
    report = review(repo)
    assert found(report) == [] and report.lines_checked == 1  # the line added, not the file
    image = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\n" + f'KEY = "{KEY_ID}"\n'.encode()
    repo.land("image", {"image.png": image}, hooks=False)
    report = review(repo)
    assert found(report) == [] and report.lines_checked == 0


def test_a_link_in_the_worktree_to_a_fifo_holds_no_review(repo: Repo, tmp_path: Path) -> None:
    """Attack 95: a pulled commit's `sub/.gitattributes`, a link to a FIFO someone made in a
    shared place; git checks the link out and never follows it. libgit2, asked a file's
    attributes (a trailing space, a CRLF line, a large file at a push), opened every
    `.gitattributes` of the worktree, that FIFO too, and the review and the push gate waited
    for ever. Attributes are the commit's (and the index's), never the worktree's files."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (repo.path / "sub").mkdir()
    (repo.path / "sub" / ".gitattributes").symlink_to(fifo)
    repo.git("add", "sub/.gitattributes")
    repo.land("a link, and a trailing space", {"sub/a.txt": "x  \n"}, hooks=False)
    assert ("P001", "sub/a.txt", 1) in found(reviewed_apart(repo))


def test_renames_are_detected_and_only_added_lines_count(repo: Repo) -> None:
    body = "".join(f"line {n}  \n" for n in range(20))
    repo.land("add with trailing spaces", {"old.txt": body}, hooks=False)
    repo.git("mv", "old.txt", "new.txt")
    repo.stage({"new.txt": body + "last  \n"})
    repo.git("commit", "-q", "-m", "rename and add a line", LANDWATCH="0")
    report = review(repo)
    assert found(report) == [("P001", "new.txt", 21)]


def test_root_commit_merge_and_range(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo", initial=False)
    repo.land("root", {"root.txt": "root  \n"}, hooks=False)
    root = review(repo)
    assert root.shape == "root" and found(root) == [("P001", "root.txt", 1)]
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"topic.txt": "from topic  \n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("main moves", {"main.txt": "main\n"}, hooks=False)
    repo.git("merge", "-q", "--no-edit", "topic", LANDWATCH="0")
    merge = review(repo)
    assert merge.shape == "merge" and found(merge) == [("P001", "topic.txt", 1)]
    repo.stage({".landwatch.toml": 'merges = "skip"\n'})
    repo.git("commit", "-q", "-m", "skip merges", LANDWATCH="0")
    repo.git("switch", "-q", "topic")
    repo.land("topic again", {"topic2.txt": "more  \n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-edit", "topic", LANDWATCH="0")
    skipped = review(repo)  # what it brought in is topic's to answer for; it added nothing
    assert skipped.findings == []
    assert any("what none of its parents has" in note for note in skipped.notes)
    first = repo.head()
    repo.land("a", {"a.txt": "a  \n"}, hooks=False)
    repo.land("b", {"b.txt": "b  \n"}, hooks=False)
    landed = review(repo, "HEAD", first)
    assert landed.shape == "range" and sorted(found(landed)) == [
        ("P001", "a.txt", 1),
        ("P001", "b.txt", 1),
    ]


def test_a_linked_worktree_is_reviewed_from_its_own_git_dir(repo: Repo, tmp_path: Path) -> None:
    repo.git("worktree", "add", "-q", "-b", "linked", str(tmp_path / "linked"))
    linked = Repo.existing(tmp_path / "linked")
    linked.land("change", {"w.txt": "w  \n"}, hooks=False)
    assert linked.git_dir.parent.name == "worktrees"
    assert found(review(linked)) == [("P001", "w.txt", 1)]


def test_a_repository_not_owned_by_the_user_is_refused(repo: Repo, tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to hand the repository to another user")
    repo.land("change", {"x.txt": "x\n"}, hooks=False)
    stranger = Repo.existing(tmp_path / "stranger")
    subprocess.run(["cp", "-a", str(repo.path), str(stranger.path)], check=True)
    subprocess.run(["chown", "-R", "12345", str(stranger.path)], check=True)
    with pytest.raises(ChangeError, match="not owned by you"):
        engine.review(stranger.path / ".git", "HEAD")


def test_the_line_cap_truncates_instead_of_running_away(repo: Repo) -> None:
    repo.land("change", {".landwatch.toml": "max_added_lines = 10\n"}, hooks=False)
    repo.land("change", {"many.txt": "".join(f"{n}  \n" for n in range(50))}, hooks=False)
    report = review(repo)
    assert report.truncated and report.lines_checked == 10
    (burst,) = [f for f in report.findings if f.rule == "P001"]
    assert burst.message == "trailing whitespace on 10 lines: 1-10"
    assert any("max_added_lines" in note for note in report.notes)


def test_a_partial_clone_s_missing_content_is_said_not_a_failure(
    repo: Repo, tmp_path: Path
) -> None:
    repo.land("first", {"app.py": "x = 1\n", "data.txt": "a\n"}, hooks=False)
    repo.land("second", {"app.py": "x = 2  \n", "data.txt": "b\n"}, hooks=False)
    repo.git("config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    # A blobless clone without a checkout holds the commits and trees, and no file's content.
    subprocess.run(
        ["git", "clone", "-q", "--no-checkout", "--filter=blob:none", repo.path.as_uri(), clone],
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    report = engine.review(clone / ".git", "HEAD")
    assert found(report) == []
    assert "no line checks for app.py: its content is not in the repository (a partial clone?)" in (
        report.notes
    )


def test_the_files_of_a_large_directory_are_found_without_reading_it_again(
    changes: Changes,
) -> None:
    """libgit2 keeps parsed trees of up to 4 KB only: each path looked up in a directory of
    thousands of files parsed that directory again (3,000 changed in one: 1.3 s to find them)."""

    def lookups(count: int) -> float:
        paths = [f"many/f{number}.txt" for number in range(count)]
        change = changes.change(dict.fromkeys(paths, "x\n"))
        return cpu_seconds(lambda: [change.has_file(path) for path in paths])

    growth = lookups(3_000) / max(lookups(300), 1e-4)
    assert growth < 30, growth  # ten times the paths, each found in its own time


def test_the_attributes_a_commit_is_reviewed_by_are_its_own_not_the_index_s(repo: Repo) -> None:
    """An audit: a `* text=auto` staged after a commit landed (not committed) made `landwatch
    review` of that commit tell P014, and a `-text` staged dropped a finding: libgit2 read the
    index's .gitattributes beside the commit's. Reviewing a commit twice gives one result."""
    repo.land("crlf", {"a.txt": "line one\r\nline two  \r\n"}, hooks=False)

    def by_hand() -> list[tuple[str, str]]:
        said = repo.landwatch("review", "HEAD", "--json", "--fail-level", "none")
        return [(f["rule"], f["path"]) for f in json.loads(said.stdout)["findings"]]

    before = by_hand()
    assert before == [("P001", "a.txt")]
    for staged in ("* text=auto\n", "*.txt -text\n"):
        (repo.path / ".gitattributes").write_text(staged)
        repo.git("add", ".gitattributes")
        assert by_hand() == before, staged


def test_the_diff_calls_a_file_binary_by_the_commit_s_attributes_not_the_index_s(
    repo: Repo,
) -> None:
    """A round-3 audit: libgit2's diff asked the index for `-diff`, so a `-diff` only staged
    after a commit landed left its conflict markers untold, and one committed but since unstaged
    let every rule read a file the commit says not to diff."""
    markers = "<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> theirs\n"
    repo.land("markers", {"a.txt": markers}, hooks=False)

    def by_hand(revision: str) -> list[tuple[str, str]]:
        said = repo.landwatch("review", revision, "--json", "--fail-level", "none")
        return sorted({(f["rule"], f["path"]) for f in json.loads(said.stdout)["findings"]})

    before = by_hand("HEAD")
    assert ("P004", "a.txt") in before
    (repo.path / ".gitattributes").write_text("*.txt -diff\n")
    repo.git("add", ".gitattributes")
    assert by_hand("HEAD") == before
    repo.land("not diffed", {".gitattributes": "*.txt -diff\n", "b.txt": markers}, hooks=False)
    told = by_hand("HEAD")
    repo.git("rm", "-q", "--cached", ".gitattributes")
    assert by_hand("HEAD") == told
    assert ("P004", "b.txt") not in told
