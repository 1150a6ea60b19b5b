"""The values the secret rules find beside a review (review.known_secrets): in a landed change,
as its committed configuration sets the rules, for what the project's hooks say of it; in files
read whole at their paths, for what `landwatch trust` shows."""

from __future__ import annotations

from landwatch.review.change import Change, open_repository, resolve
from landwatch.review.known_secrets import found_in_change, found_in_files
from support.repos import Repo

DATA = "SHVudGVyMnh5elE5TGs="
UNDER_A_NAME = "Xk9fQ2mZp7Lw3RtYv"
IN_MESSAGE = "Wq4LmZ2pXv9tRw4kJ"
FILES = {
    "k8s/s.yaml": f"apiVersion: v1\nkind: Secret\ndata:\n  ADMIN: {DATA}\n",
    "k8s/dep.yaml": f"env:\n  - name: DB_PASSWORD\n    value: {UNDER_A_NAME}\n",
}


def landed(repo: Repo) -> Change:
    git = open_repository(repo.git_dir)
    return Change(git, resolve(git, "HEAD"), None)


def test_the_values_found_by_their_place_in_files_and_message(repo: Repo) -> None:
    message = f"Deploy\n\nWith:\n- name: API_TOKEN\n  value: {IN_MESSAGE}\n\nDone.\n"
    repo.land(message, FILES, hooks=False)
    assert found_in_change(landed(repo)).values == sorted([DATA, UNDER_A_NAME, IN_MESSAGE])


def test_the_rules_are_set_as_the_commit_sets_them(repo: Repo) -> None:
    off = {".landwatch.toml": '[rules.S004]\nseverity = "off"\n'}
    repo.land("secrets", {**FILES, **off}, hooks=False)
    assert found_in_change(landed(repo)).values == [UNDER_A_NAME]  # not S004's data


def test_files_read_whole_are_read_at_their_paths_each_set_apart() -> None:
    """Each set is a tree of its own (a file as trusted, and as it is now, at one path); the
    path tells what a value is (a settings file's bare value, none in prose); a name git keeps
    in no tree is left out, not the rest."""
    bare = "k8(Tq]2v{9xZ)w$"
    now = {
        "deploy/k8s/s.yaml": FILES["k8s/s.yaml"].encode(),
        "conf/app.cfg": f"[db]\ndb_pass: {bare}\n".encode(),
        "notes.md": f"db_pass: {bare}x\n".encode(),
        ".git": b"x",
    }
    before = {"conf/app.cfg": f"[db]\ndb_pass: {UNDER_A_NAME}\n".encode()}
    assert found_in_files([now, before, {}]).values == sorted([DATA, bare, UNDER_A_NAME])
