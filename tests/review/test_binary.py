"""Whether content is binary (review.binary), as the review reads it: a magic number down an added
text is no binary file, the same bytes where a file starts are, compressed data without a NUL is
binary, and UTF-16 text is read by the secret rules, decoded."""

from __future__ import annotations

from support.changes import Changes
from support.repos import Repo
from support.review import KEY_ID, OTHER_ID, found, review, reviewed


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


def test_utf16_text_is_read_by_the_secret_rules_decoded(repo: Repo) -> None:
    """Attack 82: a token in what Windows PowerShell 5's `>` and Out-File write (UTF-16 LE with a
    byte order mark, CRLF) went unread: git's NUL test calls it binary ("0 added lines checked").
    Decoded, its added lines are the secret rules', at the file's own line numbers, with a mark
    or without, either byte order; the other rules leave it as binary."""
    text = f'$x = 1   \r\nGITHUB = "{KEY_ID}"\r\n'
    files = {
        "deploy.env": text.encode("utf-16"),
        "be.env": text.encode("utf-16-be"),
        "le.env": text.encode("utf-16-le"),
    }
    repo.land("deploy env", files, hooks=False)
    report = review(repo)
    assert found(report) == [
        ("S002", "be.env", 2),
        ("S002", "deploy.env", 2),
        ("S002", "le.env", 2),
    ]
    assert report.lines_checked == 6
    assert KEY_ID not in str([(f.snippet, f.message) for f in report.findings])
    grown = f'$x = 1   \r\nGITHUB = "{KEY_ID}"\r\n$y = 2\r\nOTHER = "{OTHER_ID}"\r\n'
    repo.land("grown", {"deploy.env": grown.encode("utf-16")}, hooks=False)
    report = review(repo)
    assert found(report) == [("S002", "deploy.env", 4)] and report.lines_checked == 2
    # The same value moved within the file is no new leak: told at info, as in any file.
    moved = f'OTHER = "{OTHER_ID}"\r\n$x = 1   \r\nGITHUB = "{KEY_ID}"\r\n'
    repo.land("moved", {"deploy.env": moved.encode("utf-16")}, hooks=False)
    [finding] = review(repo).findings
    assert (finding.line, finding.severity.name) == (1, "INFO")


def test_bytes_that_only_look_like_utf16_stay_binary(repo: Repo) -> None:
    """A NUL at every other byte with control characters between (16-bit samples), and UTF-32's
    byte order mark, are no UTF-16 text: nothing is read of them."""
    samples = bytes(n % 31 + 1 for n in range(4000))
    leak = f'KEY = "{KEY_ID}"\n'
    pcm = b"".join(bytes([byte, 0]) for byte in samples) + leak.encode("utf-16-le")
    repo.land("data", {"pcm.raw": pcm, "wide.txt": leak.encode("utf-32")}, hooks=False)
    report = review(repo)
    assert found(report) == [] and report.lines_checked == 0
