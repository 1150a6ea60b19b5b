"""The independent checker on a small real history: what each commit brought is told, what its
parent already held is not, and the checker's pieces read what they say they read."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from independent_checks import declared_dependencies, header_max_length, mentions, scratch_label
from independent_pass import main

IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(work: Path, *args: str) -> str:
    env = {**os.environ, **IDENTITY}
    done = subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)
    return done.stdout.decode().strip()


def commit(work: Path, files: dict[str, bytes], subject: str) -> str:
    for name, data in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", subject)
    return git(work, "rev-parse", "HEAD")[:12]


def lock(*names: str) -> bytes:
    packages = {f"node_modules/{name}": {"version": "1.0.0"} for name in names}
    return json.dumps({"name": "demo", "packages": packages}, indent=2).encode() + b"\n"


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    manifest = {"name": "demo", "dependencies": {"left-pad": "^1"}, "devDependencies": {"tap": "1"}}
    first = commit(
        work,
        {
            "package.json": json.dumps(manifest).encode() + b"\n",
            "package-lock.json": lock("left-pad", "tap"),
            "README.md": b"# Demo\n",
            "app.py": b"print('hi')\n",
            "notes.txt": b"keep\nthis  \n",
        },
        "Start the demo",
    )
    second = commit(
        work,
        {
            "app.py": b"print('hi')\nx = 1  \n# DO NOT COMMIT: debug\n",
            "README.md": b"# Demo\nMore",
            ".DS_Store": b"\0\0\0\1Bud1",
            "package-lock.json": lock("left-pad"),
            "notes.txt": b"keep\nthis  \nand this\n",
        },
        "Tidy the demo",
    )
    third = commit(
        work,
        {"docs/.DS_Store": b"\0\0\0\1Bud1", "settings.json": b'{"a": 1,\n}\n'},
        "Add the settings",
    )
    mirror = tmp_path / "owner+demo" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
    return mirror, [first, second, third]


def test_each_commit_is_told_what_it_brought_and_not_what_its_parent_held(
    history: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    mirror, (first, second, third) = history
    assert main(["--commits", "5", str(mirror)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "# owner/demo 3 commits; subject limits from 0 commits before them (0 by bots left out): "
        "p99 72, p98 72"
    )
    # The JSON parser's own words change between Python versions; where it stopped does not.
    assert lines[1].startswith(f"owner/demo {third} parse-error settings.json:2 ")
    assert lines[1].endswith(": line 2 column 1 (char 9)")
    assert lines[2:] == [
        f"owner/demo {second} trailing-whitespace app.py:2 trailing whitespace",
        f"owner/demo {second} no-final-newline README.md:2 final newline lost",
        f"owner/demo {second} scratch-file .DS_Store:0 1 file(s) added under .DS_Store, never in "
        "the history before",
        f"owner/demo {second} leftover app.py:3 # DO NOT COMMIT: debug",
        f"owner/demo {second} lockfile-missing-dependency package-lock.json:0 tap declared in "
        "package.json, named by the parent's lockfile only",
        f"owner/demo {first} trailing-whitespace notes.txt:2 trailing whitespace",
    ]


def test_the_pieces_read_manifests_configs_and_paths_as_their_tools_do() -> None:
    pyproject = (
        b'[project]\nname = "demo"\ndependencies = ["Typing_Extensions>=4", "demo[x]"]\n'
        b'[dependency-groups]\ndev = ["pytest", {include-group = "lint"}]\n'
        b'[tool.poetry.group.docs.dependencies]\nsphinx = "*"\npython = "^3.11"\n'
    )
    assert declared_dependencies("pyproject.toml", pyproject) == (
        ["Typing_Extensions", "pytest", "sphinx"],
        True,
    )
    assert mentions('name = "typing-extensions"\n', "Typing_Extensions", python=True)
    assert not mentions('name = "typing-extensions-plus"\n', "typing_extensions", python=True)
    gomod = b"module x\nrequire github.com/a/b v1.0.0\nrequire (\n\tgithub.com/c/d v0.1.0 // x\n)\n"
    assert declared_dependencies("go.mod", gomod) == (["github.com/a/b", "github.com/c/d"], False)
    cargo = b'[dependencies]\nserde = "1"\nfoo = { package = "real-foo", version = "1" }\n'
    assert declared_dependencies("Cargo.toml", cargo) == (["real-foo", "serde"], False)
    assert header_max_length(".commitlintrc.yml", b"rules:\n  header-max-length: [2, always, 80]\n")
    assert (
        header_max_length(
            "commitlint.config.js", b"rules: {'header-max-length': [0, 'always', 50]}"
        )
        is None
    )
    assert (
        header_max_length("commitlint.config.ts", b'"header-max-length": [2, "always", 90],') == 90
    )
    assert [scratch_label(p) for p in (".aiderignore", ".aider.chat.history.md", "a/b.c.orig")] == [
        None,
        ".aider*",
        "*.orig",
    ]
    assert scratch_label(".claude/settings.local.json") == ".claude/*.local.*"
    assert scratch_label(".claude/settings.json") is None


def test_with_each_a_subject_is_held_to_the_limit_of_the_commits_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import independent_pass

    monkeypatch.setattr(independent_pass, "BEFORE", 4)
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    # Four ordinary subjects, then four of 90 characters, then one of 85, the sample those five:
    # the last is past the limit of the four before the sample's oldest (72), within that of the
    # four before it (90).
    for number in range(4):
        commit(work, {"a.txt": f"{number}\n".encode()}, f"Change {number}")
    for number in range(4):
        commit(work, {"a.txt": f"long {number}\n".encode()}, f"Long {number} " + "x" * 83)
    last = commit(work, {"a.txt": b"last\n"}, "Last " + "y" * 80)
    mirror = tmp_path / "owner+demo" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
    assert main(["--commits", "5", str(mirror)]) == 0
    assert f"{last} subject-p99 COMMIT_MSG:1 85 chars (p99 72, p98 72)" in capsys.readouterr().out
    assert main(["--each", "--commits", "5", str(mirror)]) == 0
    each = capsys.readouterr().out
    assert each.startswith("# owner/demo 5 commits; subject limits of each from the 4 commits")
    assert last not in each
