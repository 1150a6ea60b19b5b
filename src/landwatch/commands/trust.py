"""`landwatch trust [--show | --revoke]`: allow the linters committed at HEAD, and the files of
the repository they are given, in this repository; see what is trusted, or withdraw it
(landwatch.trust keeps the approvals).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from landwatch.text import safe
from landwatch.trust import (
    COMMAND,
    approvals,
    approve,
    committed,
    describe,
    own_linters,
    repository_key,
    revoke,
)


def trust(git_dir: Path, *, show: bool, revoke_all: bool, out: TextIO | None = None) -> int:
    """`landwatch trust [--show | --revoke]` in the repository of `git_dir`."""
    out = sys.stdout if out is None else out  # the stdout of the call, not of the import
    if revoke_all:
        count = revoke(git_dir)
        print(f"landwatch: withdrew {count} approval(s); no committed linter runs here", file=out)
        return 0
    if show:
        key = repository_key(git_dir)
        mine = [a for a in approvals() if a.repository == key]
        if not mine:
            print("landwatch: nothing is trusted in this repository", file=out)
        for approval in mine:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(approval.approved))
            print(f"trusted {when} ({approval.digest[:12]}):", file=out)
            for line in approval.commands:
                print(f"  {safe(line)}", file=out)
            for path, _ in approval.files:
                print(f"  given {safe(path)}", file=out)
        return 0
    from landwatch.review.config import ConfigError

    try:
        where, pinned = committed(git_dir)
    except ConfigError as error:
        print(f"landwatch: {error}; nothing trusted", file=sys.stderr)
        return 1
    if not pinned.linters and not (own_linters()[0] and pinned.files):
        print(f"landwatch: {safe(where)} asks to run no linter; nothing to trust", file=out)
        return 0
    print(
        f"landwatch: {safe(where)} at HEAD runs these commands on the files a commit changes:",
        file=out,
    )
    for line in describe(list(pinned.linters)):
        print(f"  {safe(line)}", file=out)
    print("landwatch: and gives linters these files of the repository:", file=out)
    for file in pinned.files:
        print(f"  {safe(file.path)}" + (f" ({safe(file.why)})" if file.why else ""), file=out)
    approval = approve(git_dir, pinned)
    print(
        f"landwatch: trusted exactly these ({approval.digest[:12]}); a change to them needs "
        f"`{COMMAND}` again; `{COMMAND} --revoke` withdraws it",
        file=out,
    )
    return 0
