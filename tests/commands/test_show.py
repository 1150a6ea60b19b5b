"""`landwatch show`: one line for what it cannot show, a revision that names no commit or a report
that cannot be read."""

from __future__ import annotations

from support.repos import Repo


def test_show_names_what_it_cannot_show(repo: Repo) -> None:
    from landwatch import layout

    unknown = repo.landwatch("show", "nosuchrev")
    assert unknown.returncode == 1 and unknown.stderr == (
        "landwatch: no commit 'nosuchrev' in this repository\n"
    )
    report = layout.report_file(repo.git_dir, repo.head())
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text('{"format": 1, "commit": ""}')
    corrupt = repo.landwatch("show")
    assert corrupt.returncode == 1 and "cannot be read (corrupt)" in corrupt.stderr
    assert "no findings" not in corrupt.stdout
