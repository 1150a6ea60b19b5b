"""An annotated tag's message judged by the secret rules (review.tags), with real git: the tags
a tag names followed, to a bound; the rules configured by the commit it names; redacted."""

from __future__ import annotations

import pygit2
import pytest

from landwatch.review import tags
from landwatch.review.change import open_repository
from landwatch.review.findings import Severity
from support.repos import Repo
from support.secret_examples import AWS_KEY_ID
from support.tokens import GITHUB_TOKEN


def test_a_tag_and_the_tags_it_names_are_followed_to_a_bound(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tags.annotated(repo.git_dir, repo.head()) == []  # a commit is no tag
    assert tags.annotated(repo.git_dir, "f" * 40) == []  # nor is what the repository lacks
    repo.git("tag", "-a", "t0", "-m", "first")
    for n in range(1, 4):
        repo.git("tag", "-a", f"t{n}", "-m", f"tag {n}", f"t{n - 1}")
    chain = [repo.git("rev-parse", f"t{n}") for n in range(3, -1, -1)]
    assert tags.annotated(repo.git_dir, chain[0]) == chain
    monkeypatch.setattr(tags, "DEPTH", 2)
    assert tags.annotated(repo.git_dir, chain[0]) == chain[:2]


def test_a_token_in_a_tag_s_message_is_found_at_error_and_redacted(repo: Repo) -> None:
    repo.git("tag", "-a", "v1", "-m", f"release\n\naws {AWS_KEY_ID}\nCI token {GITHUB_TOKEN}")
    found = tags.message_findings(repo.git_dir, repo.git("rev-parse", "v1"))
    assert sorted((f.rule, f.line, f.severity) for f in found) == [
        ("S002", 3, Severity.ERROR),
        ("S002", 4, Severity.ERROR),
    ]
    shown = " ".join((f.snippet or "") + f.message for f in found)
    assert GITHUB_TOKEN not in shown and AWS_KEY_ID not in shown
    assert tags.message_findings(repo.git_dir, repo.head()) == []  # not a tag


def test_the_commit_it_names_configures_the_rules(repo: Repo) -> None:
    repo.land("no S002 here", {".landwatch.toml": '[rules.S002]\nseverity = "off"\n'})
    repo.git("tag", "-a", "v1", "-m", f"aws {AWS_KEY_ID}")
    tag = repo.git("rev-parse", "v1")
    configured = tags.message_findings(repo.git_dir, tag)
    # A tag of a tree names no commit: the defaults.
    tree = repo.git("rev-parse", "HEAD^{tree}")
    repo.git("tag", "-a", "of-a-tree", "-m", f"aws {AWS_KEY_ID}", tree)
    defaults = tags.message_findings(repo.git_dir, repo.git("rev-parse", "of-a-tree"))
    assert [f.rule for f in defaults] == ["S002"]
    assert configured == []


def test_a_blob_or_tree_is_read_as_a_root_commit_of_it_that_nothing_refers_to(repo: Repo) -> None:
    blob = repo.run("hash-object", "-w", "--stdin", stdin="x = 1\n").stdout.strip()
    commit = tags.as_commit(repo.git_dir, blob)
    assert tags.as_commit(repo.git_dir, blob) == commit  # the same content, the same commit
    made = open_repository(repo.git_dir)[commit]  # read as the review reads it, in this process
    assert isinstance(made, pygit2.Commit) and made.parents == []  # a root
    assert [(e.name, str(e.id), e.filemode) for e in made.tree] == [
        (tags.BLOB_NAME, blob, pygit2.enums.FileMode.BLOB)
    ]
    assert repo.run("cat-file", "-e", commit).returncode != 0  # never written: nothing refers to it
    tree = repo.git("rev-parse", "HEAD^{tree}")
    repo.git("tag", "-a", "of-a-tree", "-m", "a tree", tree)
    of_tag = tags.as_commit(repo.git_dir, repo.git("rev-parse", "of-a-tree"))
    assert str(open_repository(repo.git_dir)[of_tag].peel(pygit2.Tree).id) == tree
    assert tags.as_commit(repo.git_dir, repo.head()) == repo.head()  # a commit is itself
