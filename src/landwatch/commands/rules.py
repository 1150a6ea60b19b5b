"""`landwatch rules [--markdown | --explain]`: every rule of the review, as a table or as
docs/rules.md; or what this repository's history taught them.
"""

from __future__ import annotations

from pathlib import Path

from landwatch.review import rulesdoc


def rules(cwd: Path, *, markdown: bool, explain: bool) -> int:
    if markdown:
        print(rulesdoc.markdown(), end="")
        return 0
    if explain:
        from landwatch.git import git_dir_of
        from landwatch.review_landing import explain_standards

        for line in explain_standards(git_dir_of(cwd)):
            print(line)
        return 0
    from landwatch.styled import Out, table

    rows = [[[(text, "")] for text in row] for row in rulesdoc.listing()]
    table(Out(), ("id", "name", "on", "default", "checks"), rows, wrapped=4)
    print("landwatch rules --markdown: each rule whole; docs/rules.md")
    return 0
