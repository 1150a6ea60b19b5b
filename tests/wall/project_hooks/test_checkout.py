"""The landed commit's content for the hooks (wall.project_hooks.checkout): a private repository
borrowing the repository's objects, checked out sparsely (the changed files, their directories'
files and those above, nothing else), never the person's worktree, removed whatever happens; what
the hooks changed there, as a patch `git apply` takes, read without git (the checkout's git dir is
the hooks' to have touched)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from landwatch.review.change import open_repository
from landwatch.review.project_hooks.fixed import FileFix, Hunk
from landwatch.wall.project_hooks.checkout import (
    MAX_SPARSE_DIRECTORIES,
    REPLACED,
    CheckoutError,
    Fixes,
    escape,
    landed,
    sparse_patterns,
)
from support.repos import Repo
from support.sandbox import holding

ODD = "docs/[draft] *notes* #1 !.txt"


def files_in(root: Path) -> set[str]:
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def project(tmp_path: Path) -> tuple[Repo, str]:
    repo = Repo(tmp_path / "repo")
    repo.land(
        "a project",
        {
            "pyproject.toml": "[tool.x]\n",
            "src/pkg/__init__.py": "",
            "src/pkg/mod.py": "x = 1\n",
            "src/pkg/sub/deep.py": "y = 1\n",
            "src/setup.cfg": "[x]\n",
            "other/big.py": "z = 1\n",
            ODD: "odd\n",
        },
        hooks=False,
    )
    oid = repo.land("a change", {"src/pkg/mod.py": "x = 2\n"}, hooks=False)
    return repo, oid


def test_the_changed_files_their_neighbours_and_the_files_above_are_checked_out(
    tmp_path: Path,
) -> None:
    repo, oid = project(tmp_path)
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        assert files_in(place.root) == {
            "file",  # the first commit's
            "pyproject.toml",
            "src/setup.cfg",
            "src/pkg/__init__.py",
            "src/pkg/mod.py",
        }
        assert (place.root / "src/pkg/mod.py").read_text() == "x = 2\n"
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=place.root, capture_output=True, text=True
        )
        assert status.stdout == ""  # what is left out is not "deleted"
        assert set(place.held) == files_in(place.root)
        scratch = place.root.parent
    assert not scratch.exists()


def test_a_name_of_any_characters_is_checked_out_as_a_literal(tmp_path: Path) -> None:
    repo, oid = project(tmp_path)
    with landed(repo.git_dir / "objects", oid, [ODD], tmp_path) as place:
        assert (place.root / ODD).read_text() == "odd\n"
        assert "other/big.py" not in files_in(place.root)
    assert escape("a*b[c]?d e") == "a\\*b\\[c\\]\\?d\\ e"


def test_the_landed_content_whatever_the_worktree_holds_now(tmp_path: Path) -> None:
    repo, oid = project(tmp_path)
    repo.land("moved on", {"src/pkg/mod.py": "x = 3\n"}, hooks=False)
    (repo.path / "src/pkg/mod.py").write_text("dirty\n")
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        assert (place.root / "src/pkg/mod.py").read_text() == "x = 2\n"
    assert (repo.path / "src/pkg/mod.py").read_text() == "dirty\n"  # untouched


def test_removed_whatever_happens(tmp_path: Path) -> None:
    repo, oid = project(tmp_path)
    with pytest.raises(RuntimeError), landed(repo.git_dir / "objects", oid, [], tmp_path) as place:
        scratch = place.root.parent
        raise RuntimeError("a hook run that went wrong")
    assert not scratch.exists()
    with pytest.raises(CheckoutError), landed(repo.git_dir / "objects", "f" * 40, [], tmp_path):
        pass
    assert list(tmp_path.glob("hooks-*")) == []


def test_what_the_hooks_changed_is_a_patch_git_apply_takes(tmp_path: Path) -> None:
    repo, oid = project(tmp_path)
    opened = open_repository(repo.git_dir)
    given = ["src/pkg/mod.py", ODD]
    with landed(repo.git_dir / "objects", oid, given, tmp_path) as place:
        assert place.fixes(opened, given) == Fixes()
        (place.root / "src/pkg/mod.py").write_text("x = 2  \n# fixed\n")
        (place.root / ODD).write_text("odd\n\n")
        fixes = place.fixes(opened, given)
    changed, patch = fixes.changed, fixes.patch
    assert sorted(changed) == sorted(["src/pkg/mod.py", ODD])
    # Line by line: a line added after line 1; line 1 changed only at its end, which moves none.
    assert fixes.lines["src/pkg/mod.py"] == FileFix((Hunk(1, 0, 2, 1),), (Hunk(1, 1, 1, 2),))
    applied = subprocess.run(
        ["git", "apply", "--index"], input=patch, text=True, cwd=repo.path, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr
    assert (repo.path / "src/pkg/mod.py").read_text() == "x = 2  \n# fixed\n"


def test_a_file_git_converts_as_it_writes_it_is_compared_with_what_git_wrote(
    tmp_path: Path,
) -> None:
    """An audit: with `*.txt eol=crlf` and `*.c ident` committed, hooks that changed nothing
    (`wc -l`) were told to change every such file, with a patch making its line ends CRLF and
    expanding `$Id$`: the checkout's bytes were compared with the blob. They are compared with
    what git wrote; a hook's real fix is a patch of what the person's checkout holds."""
    repo = Repo(tmp_path / "repo")
    files = {"notes.txt": "one  \ntwo\n", "m.c": "/* $Id$ */\nint x;\n", "base.txt": "x\n"}
    oid = repo.land("converted", {".gitattributes": "*.txt eol=crlf\n*.c ident\n", **files})
    repo.git("rm", "-q", "--cached", "-r", ".")
    repo.git("reset", "-q", "--hard")  # the person's checkout, converted as git writes it
    opened = open_repository(repo.git_dir)
    given = ["notes.txt", "m.c"]
    with landed(repo.git_dir / "objects", oid, given, tmp_path) as place:
        assert (place.root / "notes.txt").read_bytes() == b"one  \r\ntwo\r\n"
        assert place.fixes(opened, given) == Fixes()
        (place.root / "notes.txt").write_bytes(b"one\r\ntwo\r\n")  # trailing-whitespace
        fixes = place.fixes(opened, given)
    assert fixes.changed == ["notes.txt"] and fixes.beside == []
    assert fixes.lines["notes.txt"] == FileFix((), (Hunk(1, 1, 1, 1),))
    applied = subprocess.run(["git", "apply"], input=fixes.patch, text=True, cwd=repo.path)
    assert applied.returncode == 0
    assert (repo.path / "notes.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_a_file_larger_than_a_patch_is_kept_for_is_changed_only_where_it_was(
    tmp_path: Path,
) -> None:
    """A round-1 audit: a given file past 1 MB (a lockfile) was read only up to the patch's
    bound, so hooks that changed nothing were told to change it. It is compared whole; a change
    of it is named, its patch not kept."""
    repo = Repo(tmp_path / "repo")
    big = "".join(f"line {n}\n" for n in range(200_000))  # about 2 MB
    oid = repo.land("a lockfile", {"big.lock": big})
    opened = open_repository(repo.git_dir)
    with landed(repo.git_dir / "objects", oid, ["big.lock"], tmp_path) as place:
        assert place.fixes(opened, ["big.lock"]) == Fixes()
        (place.root / "big.lock").write_text(big + "tail\n")
        fixes = place.fixes(opened, ["big.lock"])
    assert fixes.changed == ["big.lock"] and fixes.patch == "" and fixes.lines == {}


def test_what_the_hooks_changed_beside_the_files_given_them_is_named_not_fixed(
    tmp_path: Path,
) -> None:
    """A formatter run on the whole checkout (`ruff format .`) changes files of it the change
    did not bring: they are named apart, and the fix (its patch, its lines) is the change's."""
    repo, oid = project(tmp_path)
    opened = open_repository(repo.git_dir)
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        for path in ("src/pkg/mod.py", "pyproject.toml", "src/setup.cfg"):
            with open(place.root / path, "a") as file:
                file.write("# formatted\n")
        (place.root / "src/pkg/__init__.py").unlink()
        fixes = place.fixes(opened, ["src/pkg/mod.py"])
    assert fixes.changed == ["src/pkg/mod.py"] and list(fixes.lines) == ["src/pkg/mod.py"]
    assert fixes.beside == ["pyproject.toml", "src/pkg/__init__.py", "src/setup.cfg"]
    assert "a/src/pkg/mod.py" in fixes.patch and "pyproject" not in fixes.patch


def test_reading_the_fixes_runs_nothing_the_checkout_s_git_dir_names(tmp_path: Path) -> None:
    # What a hook could plant in the checkout's .git (a hook run without the wall, by the
    # person's word) and a git there would run: an fsmonitor, a filter, a diff driver.
    repo, oid = project(tmp_path)
    ran = tmp_path / "ran"
    planted = tmp_path / "planted.sh"
    planted.write_text(f"#!/bin/sh\ntouch {ran}\ncat\n")
    planted.chmod(0o755)
    opened = open_repository(repo.git_dir)
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        with open(place.git_dir / "config", "a") as config:
            config.write(
                f'[core]\n\tfsmonitor = {planted}\n[filter "x"]\n\tclean = {planted}\n'
                f'[diff "x"]\n\tcommand = {planted}\n\ttextconv = {planted}\n'
            )
        (place.root / ".gitattributes").write_text("* filter=x diff=x\n")
        (place.root / "src/pkg/mod.py").write_text("x = 3\n")
        (place.root / "src/setup.cfg").unlink()
        os.symlink("/etc/passwd", place.root / "pyproject.toml.new")
        (place.root / "pyproject.toml").unlink()
        os.symlink("/etc/passwd", place.root / "pyproject.toml")
        fixes = place.fixes(opened, ["pyproject.toml", "src/pkg/mod.py", "src/setup.cfg"])
    changed, patch = fixes.changed, fixes.patch
    assert not ran.exists()
    assert changed == ["pyproject.toml", "src/pkg/mod.py", "src/setup.cfg"]
    assert patch == ""  # a link where a file was: told, and no patch that would lose it
    assert "root:" not in "".join(changed)


def test_a_build_s_checkout_holds_its_commit_s_own_objects_and_borrows_them_again_after(
    tmp_path: Path,
) -> None:
    """What a build (with the network) may read of the repository is the landed commit whole,
    and nothing else of it; the hooks then run on the checkout as it was, its history there."""
    repo, oid = project(tmp_path)
    earlier = repo.git("rev-parse", "HEAD~1:src/pkg/mod.py").strip()  # its parent's alone
    repo.git("checkout", "-q", "-b", "private")
    unpushed = repo.land("unpushed", {"notes.txt": "never pushed\n"}, hooks=False)
    repo.git("checkout", "-q", "-")

    def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)

    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        with place.own_objects():
            assert not (place.git_dir / "objects" / "info" / "alternates").exists()
            for other in (unpushed, earlier):
                assert git("cat-file", "-e", other, cwd=place.root).returncode != 0
            assert git("log", "--format=%H", cwd=place.root).stdout.split() == [oid]
            clone = tmp_path / "clone"  # as pre-commit clones `repo: .`, at depth 1
            cloned = git(
                "clone", "-q", "--depth=1", f"file://{place.root}", str(clone), cwd=tmp_path
            )
            assert cloned.returncode == 0, cloned.stderr
            assert (clone / "other" / "big.py").read_text() == "z = 1\n"  # the whole tree
        assert git("cat-file", "-e", earlier, cwd=place.root).returncode == 0
        assert len(git("log", "--format=%H", cwd=place.root).stdout.split()) == 3


def test_a_checkout_the_hooks_replaced_with_a_link_is_not_read(tmp_path: Path) -> None:
    """An audit: a hook renamed its checkout (the scratch directory above it is writable behind
    the wall) and left a link in its place to a directory of the person's: each of its files
    named as a file of the checkout was read, whole, as the hooks' fix, offered to git apply."""
    repo, oid = project(tmp_path)
    far = tmp_path / "far"
    (far / "src" / "pkg").mkdir(parents=True)
    (far / "src" / "pkg" / "mod.py").write_text("the person's private notes\n")
    opened = open_repository(repo.git_dir)
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py"], tmp_path) as place:
        place.root.rename(place.root.parent / "work.moved")
        place.root.symlink_to(far)
        assert place.fixes(opened, ["src/pkg/mod.py"]) == Fixes(refused=REPLACED)
        place.root.unlink()  # nothing in its place: not every file removed either
        assert place.fixes(opened, ["src/pkg/mod.py"]) == Fixes(refused=REPLACED)
    assert (far / "src" / "pkg" / "mod.py").read_text() == "the person's private notes\n"


def test_a_change_over_too_many_directories_is_checked_out_whole() -> None:
    many = [f"d{n}/f.py" for n in range(MAX_SPARSE_DIRECTORIES + 1)]
    assert sparse_patterns(many) is None
    assert sparse_patterns(["a/b/c.py"]) == [
        "/*",
        "!/*/",
        "/a/",
        "!/a/*/",
        "/a/b/",
        "!/a/b/*/",
    ]


def test_a_checkout_left_by_a_run_ended_midway_is_removed_by_the_next(tmp_path: Path) -> None:
    """The hooks' worker ended past its limit (or killed with the reviewer) left its checkout;
    the next landing's removes it, and never one a run still holds (wall.held: before, every
    `hooks-*` was removed as a hooks job started, held or not)."""
    repo, oid = project(tmp_path)
    runs = tmp_path / "runs"
    runs.mkdir(mode=0o700)
    with holding(runs, "hooks-") as (_, running), holding(runs, "hooks-") as (killed, left):
        killed.kill()
        killed.wait()
        with landed(repo.git_dir / "objects", oid, [], runs) as place:
            assert sorted(runs.iterdir()) == sorted([running, place.root.parent])
        assert list(runs.iterdir()) == [running]
        assert not left.exists()
