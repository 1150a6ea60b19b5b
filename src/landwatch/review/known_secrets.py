"""The values the secret rules find in what is shown beside a review's findings: a landed change
(what the project's hooks say of it), or files read whole as new (what `landwatch trust` shows of
a repository's configuration); for the redaction to hide them as it hides what a detector knows.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterable, Mapping

import pygit2

from landwatch.review.budget import DEFAULT_REVIEW_BUDGET, Budget
from landwatch.review.change import Change
from landwatch.review.checking import checked
from landwatch.review.config import ReviewConfig
from landwatch.review.engine import configuration, rules_of
from landwatch.review.redacting import LinesRead, found_secrets
from landwatch.review.secrets.redaction import NONE_FOUND, Found

# Who made the commit of the files read whole: nobody, at no time (it is never kept).
_NOBODY = pygit2.Signature("landwatch", "landwatch@localhost", 0, 0)


def found_in_change(change: Change, config: ReviewConfig | None = None) -> Found:
    """The values the secret rules find in `change` (its files' added lines, its message), set
    as `config` sets them (None: as its committed configuration does): a report keeps none."""
    if config is None:
        config, _ = configuration(change.repo, change.commit.tree)
    rules, _ = rules_of(config, secrets_only=True)
    readable, found = checked(change, config, rules, [], Budget(DEFAULT_REVIEW_BUDGET))
    return found_secrets(found, LinesRead(readable, change.message))


def found_in_files(versions: Iterable[Mapping[str, bytes]]) -> Found:
    """The values the default secret rules find in each set of files (path to content), read
    whole as a root commit of them in a repository of its own, made and removed here: nothing
    is written where the files came from. Where none can be made, nothing more is hidden."""
    values: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="landwatch-secrets-") as place:
            repo = pygit2.init_repository(place, bare=True)
            for files in versions:
                if not files:
                    continue
                made = repo.create_commit(None, _NOBODY, _NOBODY, "shown\n", _tree(repo, files), [])
                every_line = sum(data.count(b"\n") + 1 for data in files.values())
                root = repo[made].peel(pygit2.Commit)
                change = Change(repo, root, None, max_added_lines=every_line)
                values += found_in_change(change, ReviewConfig()).values
    except (OSError, pygit2.GitError, ValueError):
        return NONE_FOUND
    return Found(values)


def _tree(repo: pygit2.Repository, files: Mapping[str, bytes]) -> pygit2.Oid:
    """A tree of `files`, a directory's files in a tree of their own; a name git would not keep
    in a tree (`.git`) left out."""
    builder = repo.TreeBuilder()
    below: dict[str, dict[str, bytes]] = {}
    for path, data in files.items():
        name, _, rest = path.partition("/")
        if rest:
            below.setdefault(name, {})[rest] = data
        else:
            _insert(builder, name, repo.create_blob(data), pygit2.enums.FileMode.BLOB)
    for name, inside in below.items():
        _insert(builder, name, _tree(repo, inside), pygit2.enums.FileMode.TREE)
    return builder.write()


def _insert(builder: pygit2.TreeBuilder, name: str, oid: pygit2.Oid, mode: int) -> None:
    with contextlib.suppress(pygit2.GitError, ValueError):
        builder.insert(name, oid, mode)
