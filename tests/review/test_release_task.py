"""Files a project's release task writes (review.release_task), learned from the history before
a release: changed by releases alone, they get no patch rules at the next release whoever makes
it; a file a pull request also changed is its authors'."""

from __future__ import annotations

from support.history import Commit, write_history
from support.repos import Repo
from support.review import found, review

MAINTAINER = "Maintainer Two <two@example.com>"


def releases(changelog: str = "CHANGELOG.md") -> list[Commit]:
    """Three releases rebuilding the changelog between ordinary changes that never touch it."""
    history: list[Commit] = []
    for minor in range(3):
        history.append(Commit(f"Fix case {minor}", {"lib/a.rb": f"a = {minor}\n"}))
        entries = "".join(f"* entry {n}   \n" for n in range(minor + 1))  # as the task writes it
        history.append(Commit(f"v1.{minor}.0", {changelog: f"# Changes\n{entries}"}))
    return history


def test_a_changelog_only_releases_rebuild_is_the_release_task_s(repo: Repo) -> None:
    write_history(repo, releases())
    rebuilt = "# Changes\n" + "".join(f"* entry {n}   \n" for n in range(4))
    repo.land(
        "v1.3.0",
        {"CHANGELOG.md": rebuilt, "lib/a.rb": "a = 9   \n"},
        author=MAINTAINER,
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("P001", "lib/a.rb", 1)]
    (note,) = [n for n in report.notes if n.startswith("patch rules skipped")]
    assert (
        "CHANGELOG.md (written by the project's release task: only its releases changed it" in note
    )


def test_a_changelog_a_pull_request_also_changed_is_its_authors(repo: Repo) -> None:
    history = releases()
    history.insert(3, Commit("Add an entry", {"CHANGELOG.md": "# Changes\n* mine\n"}))
    write_history(repo, history)
    repo.land("v1.3.0", {"CHANGELOG.md": "# Changes\n* next   \n"}, hooks=False)
    assert found(review(repo)) == [("P001", "CHANGELOG.md", 2)]


def test_only_a_release_commit_is_read_so(repo: Repo) -> None:
    write_history(repo, releases())
    repo.land("Tidy the changelog", {"CHANGELOG.md": "# Changes\n* tidy   \n"}, hooks=False)
    assert found(review(repo)) == [("P001", "CHANGELOG.md", 2)]
    write_history(repo, [Commit("v1.3.0", {"NEWS.md": "first   \n"})])
    repo.land("v1.4.0", {"NEWS.md": "second   \n"}, hooks=False)  # one release before: too few
    assert found(review(repo)) == [("P001", "NEWS.md", 1)]
