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
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    for header in ("id", "name", "on", "default"):
        table.add_column(header, no_wrap=True)
    table.add_column("checks", ratio=1)
    for rule_id, name, scope, default, checks in rulesdoc.listing():
        table.add_row(rule_id, name, scope, default, checks)
    Console(highlight=False).print(table)
    print("landwatch rules --markdown: each rule whole; docs/rules.md")
    return 0
