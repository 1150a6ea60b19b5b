"""A secret the tree before the change already held is no new leak (review.copied_secrets): a
value copied into a new file is told at info, naming where it was; a new one beside it is not;
the walk over the tree before stops at its bounds and then lowers nothing it did not see; before
a merge were all its parents; a place no secret rule reads holds nothing."""

from __future__ import annotations

import pytest

from landwatch.review import engine
from landwatch.review.change import MERGES, open_repository, resolve
from landwatch.review.copied_secrets import holders_of
from support.repos import Repo
from support.review import KEY_ID, OTHER_ID, review


def test_a_value_copied_from_another_file_is_told_at_info_and_a_new_one_is_not(
    repo: Repo,
) -> None:
    # undici copied its README, badge token and all, into a new page of its docs.
    repo.land("readme", {"README.md": f"# app\n\naws_access_key_id = {KEY_ID}\n"}, hooks=False)
    repo.land(
        "docs",
        {"docs/index.md": f"# app\n\naws_access_key_id = {KEY_ID}\nbackup_key = {OTHER_ID}\n"},
        hooks=False,
    )
    report = review(repo)
    told = {f.line: f for f in report.findings if f.rule.startswith("S")}
    assert told[3].severity.name == "INFO"
    assert "(already in README.md before the change: copied, not new)" in told[3].message
    assert told[4].severity.name in ("WARNING", "ERROR") and "already" not in told[4].message
    assert any(note.startswith("1 secret finding told at info") for note in report.notes)
    assert all(KEY_ID not in note and OTHER_ID not in note for note in report.notes)


@pytest.mark.parametrize("merges", MERGES)
def test_a_value_a_merge_s_other_parent_held_is_copied_on_its_own_lines(
    repo: Repo, merges: str
) -> None:
    """A merge's own line (a conflict's resolution, a file added in it) holding a value its other
    parent held was told as a new leak: only the first parent's tree was searched. What the merge
    brought in stays as found when read against its first parent (its commits are others')."""
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"a.py": "a = 1\n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("credentials", {"creds.py": f"aws_access_key_id = {KEY_ID}\n"}, hooks=False)
    repo.git("switch", "-q", "topic")
    repo.git("merge", "-q", "--no-commit", "main", LANDWATCH="0")
    repo.stage({"docs/setup.md": f"aws_access_key_id = {KEY_ID}\nbackup_key = {OTHER_ID}\n"})
    repo.git("commit", "-q", "--no-edit", LANDWATCH="0")
    report = engine.review(repo.git_dir, "HEAD", merges=merges)
    told = {(f.path, f.line): f for f in report.findings if f.rule.startswith("S")}
    assert told["docs/setup.md", 1].severity.name == "INFO"
    assert (
        "(already in creds.py before the change: copied, not new)"
        in told["docs/setup.md", 1].message
    )
    assert told["docs/setup.md", 2].severity.name in ("WARNING", "ERROR")
    if merges == "first-parent":
        assert told["creds.py", 1].severity.name in ("WARNING", "ERROR")
    else:
        assert ("creds.py", 1) not in told


def test_the_walk_finds_a_value_in_any_file_and_stops_at_its_bounds(repo: Repo) -> None:
    files = {f"d{n}/f{n}.txt": f"{n}\n" * 100 for n in range(6)}
    files["d5/f5.txt"] += f"{KEY_ID}\n"
    files["copy/of/f5.txt"] = files["d5/f5.txt"]  # the same blob, read once: either path
    repo.land("files", files, hooks=False)
    git_repo = open_repository(repo.git_dir)
    tree = resolve(git_repo, "HEAD").tree
    value = KEY_ID.encode()
    whole = holders_of(git_repo, tree, {value, OTHER_ID.encode()})
    assert whole.complete and whole.paths[value] in ("d5/f5.txt", "copy/of/f5.txt")
    assert OTHER_ID.encode() not in whole.paths
    # Too little to read it all: what was not read finds nothing, and the walk says so.
    cut = holders_of(git_repo, tree, {value}, most_bytes=100)  # each file is 200 bytes or more
    assert not cut.complete and value not in cut.paths
    assert not holders_of(git_repo, tree, {value}, most_entries=3).complete


# Where a value was committed before, each a place the secret rules never read: a vendored tree
# (excluded by default), a path the project excludes or allows secrets in, a binary file.
UNREAD = {
    "vendored": ({}, "vendor/lib/conf.py"),
    "excluded": ({".landwatch.toml": 'exclude = ["third/**"]\n'}, "third/conf.py"),
    "allowed": ({".landwatch.toml": '[secrets]\nallow_paths = ["examples/**"]\n'}, "examples/x.py"),
    "binary": ({}, "assets/blob.bin"),
}


@pytest.mark.parametrize("where", UNREAD)
def test_a_value_held_only_where_the_secret_rules_never_read_is_new_where_it_is_copied(
    repo: Repo, where: str
) -> None:
    """A token committed first where no secret rule looks (vendor/lib/conf.py: no finding), then
    copied into settings.py, was told at info "(already in vendor/lib/conf.py before the change:
    copied, not new)", and the push gate sent both commits: it was never told anywhere."""
    declared, holder = UNREAD[where]
    held = f"aws_access_key_id = {KEY_ID}\n".encode()
    content = b"\x00\x01binary\x00" + held if where == "binary" else held
    if declared:  # committed before: a commit's own cannot loosen its secret rules
        repo.land("Configure", declared, hooks=False)
    repo.land("Vendor a library", {holder: content}, hooks=False)
    assert not [f for f in review(repo).findings if f.rule.startswith("S")]
    repo.land("Settings", {"settings.py": f"aws_access_key_id = {KEY_ID}\n"}, hooks=False)
    [secret] = [f for f in review(repo).findings if f.rule.startswith("S")]
    assert secret.path == "settings.py" and secret.severity.name in ("WARNING", "ERROR")
    assert "already in" not in secret.message
