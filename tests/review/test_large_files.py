"""The added lines of a text file too large to hold, as the push gate's scan reads them from git's
output (review.large_files): numbered in the new file, a line longer than a piece in parts."""

from __future__ import annotations

import io

import pytest

from landwatch.review import large_files
from landwatch.review.diffs import Line

PATCH = b"""diff --git a/1 b/2
index 1..2 100644
--- a/1
+++ b/2
@@ -3 +3,2 @@
-gone
+++ an added line that looks like a header
+two\r
@@ -90,0 +91 @@
+last
\\ No newline at end of file
"""


def test_of_a_patch_only_the_added_lines_each_at_its_number() -> None:
    added = list(large_files._added(io.BytesIO(PATCH), patch=True))
    assert [(line.number, line.raw) for line in added] == [
        (3, b"++ an added line that looks like a header"),
        (4, b"two"),
        (91, b"last"),
    ]
    assert added[1] == Line(4, b"two", b"\r\n")


def test_of_a_blob_every_line_and_a_long_one_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large_files, "PIECE", 4)
    added = list(large_files._added(io.BytesIO(b"ab\nabcdefg\nz"), patch=False))
    assert [(line.number, line.raw) for line in added] == [
        (1, b"ab"),
        (2, b"abcd"),
        (2, b"efg"),
        (3, b"z"),
    ]
