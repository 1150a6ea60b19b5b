"""A blob's bytes and size as the review reads them: none where the repository does not hold it
(a partial clone, a damaged repository), so a review goes on without it and says so.
"""

from __future__ import annotations

import pygit2

# Why a file's content could not be read: a partial clone (`--filter=blob:none`) fetches a blob
# only when git needs it, and libgit2 never fetches one; a damaged repository lacks it too.
MISSING_CONTENT = "its content is not in the repository (a partial clone?)"


def blob_data(repo: pygit2.Repository, oid: str | pygit2.Oid) -> bytes | None:
    """A blob's bytes, or None where the repository does not hold it as a blob: the review
    goes on without it, and says so, rather than failing."""
    try:
        blob = repo[oid]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return blob.data if isinstance(blob, pygit2.Blob) else None


def blob_size(repo: pygit2.Repository, oid: str | pygit2.Oid) -> int | None:
    """A blob's size, read from its object's header (nothing inflated, so a 1 GB one costs
    nothing to ask about); None where the repository does not hold it."""
    try:
        return int(repo.odb.read_header(oid)[1])
    except (KeyError, ValueError, pygit2.GitError):
        return None
