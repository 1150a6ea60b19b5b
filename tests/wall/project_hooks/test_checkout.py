"""The landed commit's content for the hooks (review.project_hooks.checkout): a private repository
borrowing the repository's objects, checked out sparsely (the changed files, their directories'
files and those above, nothing else), never the person's worktree, removed whatever happens; what
the hooks changed there, as a patch `git apply` takes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from landwatch.review.project_hooks.checkout import (
    MAX_SPARSE_DIRECTORIES,
    CheckoutError,
    escape,
    landed,
    sparse_patterns,
)
from support.repos import Repo

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
        assert place.git("status", "--porcelain")[1] == ""  # what is left out is not "deleted"
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
    with landed(repo.git_dir / "objects", oid, ["src/pkg/mod.py", ODD], tmp_path) as place:
        assert place.fixes() == ([], "")
        (place.root / "src/pkg/mod.py").write_text("x = 2\n# fixed\n")
        (place.root / ODD).write_text("odd\n\n")
        changed, patch = place.fixes()
    assert sorted(changed) == sorted(["src/pkg/mod.py", ODD])
    applied = subprocess.run(
        ["git", "apply", "--index"], input=patch, text=True, cwd=repo.path, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr
    assert (repo.path / "src/pkg/mod.py").read_text() == "x = 2\n# fixed\n"


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
        "/a/b/c.py",
    ]
