"""Whether content is binary (review.binary), as the review reads it: a magic number down an added
text is no binary file, the same bytes where a file starts are, and compressed data without a NUL is
binary."""

from __future__ import annotations

from support.changes import Changes
from support.repos import Repo
from support.review import found, review, reviewed


def test_a_magic_number_down_an_added_text_is_no_binary_file(repo: Repo) -> None:
    repo.land("notes", {"notes.txt": "formats we read:\n"}, hooks=False)
    # A line that opens like a GIF, further down a text file: its lines are still checked.
    added = "formats we read:\nGIF89a and PNG  \naws = AKIA" + "QX7ZR4M2" * 2 + "\n"
    repo.land("more notes", {"notes.txt": added}, hooks=False)
    assert [(rule, line) for rule, _, line in found(review(repo))] == [("P001", 2), ("S002", 3)]
    # The same bytes where a file starts are a GIF's.
    repo.land("a gif", {"image.gif": "GIF89a and PNG  \n"}, hooks=False)
    assert found(review(repo)) == []


def test_compressed_data_without_a_nul_is_binary(changes: Changes) -> None:
    import hashlib
    import zlib

    bodies = (
        "".join(hashlib.sha256(b"%d %d" % (n, i)).hexdigest() for i in range(20)).encode()
        for n in range(500)
    )
    # Compressed data often holds no NUL in its first bytes: git's own test calls it text.
    blob = next(data for body in bodies if b"\0" not in (data := zlib.compress(body)))
    change = changes.change({"testdata/objects/ab/cdef": blob})
    assert found(reviewed(change), "P002") == []
