"""What the history before a change shows is the project's practice (review.precedent): a secret in
a file that already held such values, or beside them, is a fixture; so are the secrets of a new
fixture directory landed together; fixtures that end without a newline keep their bytes."""

from __future__ import annotations

from support.repos import Repo
from support.review import KEY_ID, OTHER_ID, found, review


def test_a_secret_in_a_file_that_already_held_them_is_a_fixture(repo: Repo) -> None:
    first = repo.land("fixtures", {"tests/data/keys.txt": f"key = {KEY_ID}\n"}, hooks=False)
    told = review(repo, first)
    assert found(told, "S002") == [("S002", "tests/data/keys.txt", 1)]  # the first is told
    repo.land("more", {"tests/data/keys.txt": f"key = {KEY_ID}\nkey2 = {OTHER_ID}\n"}, hooks=False)
    quiet = review(repo)
    assert found(quiet, "S002") == []
    assert any("already held such values" in note for note in quiet.notes)
    # A test file beside them is a fixture too; a source file elsewhere is not.
    repo.land(
        "beside",
        {"tests/data/more.txt": f"k = {OTHER_ID}\n", "src/settings.py": f'K = "{OTHER_ID}"\n'},
        hooks=False,
    )
    assert found(review(repo), "S002") == [("S002", "src/settings.py", 1)]


def test_secrets_of_a_new_fixture_directory_land_together(repo: Repo) -> None:
    files = {f"testdata/leaks/{n}.env": f"AWS_KEY={KEY_ID[:-1]}{n}\n" for n in "ABC"}
    assert found(review(repo, repo.land("fixtures", files, hooks=False)), "S002") == []
    alone = repo.land("one", {"testdata/other/only.env": f"AWS_KEY={OTHER_ID}\n"}, hooks=False)
    assert len(found(review(repo, alone), "S002")) == 1


def test_fixtures_that_end_without_a_newline_keep_their_bytes(repo: Repo) -> None:
    repo.land("fixtures", {f"tests/golden/{n}.out": f"expected {n}" for n in range(3)}, hooks=False)
    repo.land("one more", {"tests/golden/3.out": "expected 3"}, hooks=False)
    report = review(repo)
    assert found(report, "P002") == []
    assert any("test fixtures whose files end that way" in note for note in report.notes)
    repo.land("elsewhere", {"src/config.ini": "a = 1"}, hooks=False)
    assert found(review(repo), "P002") == [("P002", "src/config.ini", 1)]
