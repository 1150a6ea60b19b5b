"""A blob's bytes and size as the review reads them (review.blobs): what the repository holds as
a blob, and None for what it does not (a missing object, a tree), never a failure."""

from __future__ import annotations

from landwatch.review.blobs import blob_data, blob_size
from support.changes import Changes


def test_a_blob_is_read_and_anything_else_is_none(changes: Changes) -> None:
    change = changes.change({"a.txt": "hello\n"})
    blob = change.files[0].new_id
    assert blob is not None
    assert blob_data(change.repo, blob) == b"hello\n" and blob_size(change.repo, blob) == 6
    tree = str(change.commit.tree.id)
    assert blob_data(change.repo, tree) is None  # a tree, not a blob
    missing = "0123456789" * 4
    assert blob_data(change.repo, missing) is None and blob_size(change.repo, missing) is None
