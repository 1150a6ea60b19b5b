"""What a project declared of how its files are stored (review.rules.declared_encoding): line
ends from .gitattributes or .editorconfig (P014), the charset from .editorconfig (P015); each
speaking only where something was declared, and only of what the change brought."""

from __future__ import annotations

from landwatch.review.findings import DECLARED, Basis
from support.changes import Changes
from support.review import found, reviewed

LF_DECLARED = "root = true\n[*]\nend_of_line = lf\n"


def test_crlf_lines_where_the_editorconfig_declares_lf(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": LF_DECLARED, "a.txt": "one\n"})
    report = reviewed(branch.land({"a.txt": "one\r\ntwo\r\nthree\n"}))
    assert found(report, "P014") == [("P014", "a.txt", 1)]
    (finding,) = (f for f in report.findings if f.rule == "P014")
    assert (
        finding.message
        == "2 added lines end with CRLF where .editorconfig declares end_of_line = lf"
    )
    assert finding.basis == Basis(DECLARED, ".editorconfig")
    # The file now mixes its line ends, and P014 already says which lines: no second finding.
    assert found(report, "P003") == []


def test_without_a_declaration_mixed_line_ends_are_p003_s(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({"a.txt": "one\n"})
    report = reviewed(branch.land({"a.txt": "one\r\ntwo\n"}))
    assert found(report, "P014") == []
    assert found(report, "P003") == [("P003", "a.txt", None)]


def test_gitattributes_text_means_git_stores_lf(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".gitattributes": "* text=auto\n*.bat -text\n", "run.bat": "@echo off\r\n"})
    report = reviewed(branch.land({"app.py": "x = 1\r\n", "run.bat": "@echo off\r\nexit\r\n"}))
    # run.bat is stored as it is, and nothing declares its line ends: no finding.
    assert found(report, "P014") == [("P014", "app.py", 1)]
    (finding,) = (f for f in report.findings if f.rule == "P014")
    assert "where .gitattributes declares text=auto (git stores LF)" in finding.message


def test_lf_lines_brought_into_a_file_stored_with_the_crlf_declared(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": "[*.bat]\nend_of_line = crlf\n", "run.bat": "@echo off\r\n"})
    report = reviewed(branch.land({"run.bat": "@echo off\r\nexit\n", "new.bat": "exit\n"}))
    # new.bat may well be a CRLF checkout that core.autocrlf stored with LF: nothing to say.
    assert found(report, "P014") == [("P014", "run.bat", 2)]


def test_line_ends_the_file_had_before_are_not_this_change_s(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": LF_DECLARED, "a.txt": "one\r\n"})
    assert found(reviewed(branch.land({"a.txt": "one\r\ntwo\r\n"})), "P014") == []


def test_a_new_test_input_with_other_line_ends_throughout_has_them_on_purpose(
    changes: Changes,
) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": LF_DECLARED})
    body = "--AaB03x\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--AaB03x--\r\n"
    mixed = "--AaB03x\r\nvalue\n"
    report = reviewed(branch.land({"test/multipart/body": body, "test/multipart/mixed": mixed}))
    assert found(report, "P014") == [("P014", "test/multipart/mixed", 1)]


def test_bytes_that_are_not_utf8_where_utf8_is_declared(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": "[*]\ncharset = utf-8\n[*.txt]\ncharset = latin1\n"})
    report = reviewed(
        branch.land({"a.py": b"# caf\xe9\n", "b.py": b"\xef\xbb\xbfx = 1\n", "c.txt": b"caf\xe9\n"})
    )
    assert found(report, "P015") == [("P015", "a.py", 1), ("P015", "b.py", 1)]
    messages = {f.path: f.message for f in report.findings if f.rule == "P015"}
    assert messages == {
        "a.py": "bytes that are not UTF-8 where .editorconfig declares charset = utf-8",
        "b.py": "a byte order mark at the start where .editorconfig declares charset = utf-8",
    }


def test_a_bom_declared_and_a_file_broken_before(changes: Changes) -> None:
    branch = changes.branch()
    branch.land({".editorconfig": "[*.cs]\ncharset = utf-8-bom\n", "old.cs": b"caf\xe9\n"})
    report = reviewed(branch.land({"new.cs": "class A {}\n", "old.cs": b"caf\xe9\nx\xe9\n"}))
    # old.cs was no UTF-8 (and had no BOM) before: not this change's doing.
    assert found(report, "P015") == [("P015", "new.cs", 1)]
