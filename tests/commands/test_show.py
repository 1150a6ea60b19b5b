"""`landwatch show`: one line for what it cannot show, a revision that names no commit or a report
that cannot be read; no secret from a file name or a subject shown whole."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

from landwatch import layout
from landwatch.commands.show import IN_FULL
from support.daemon import run_reviewer
from support.repos import Repo
from support.review import KEY_ID
from support.terminal import Terminal, words
from support.tokens import github_token


def test_show_names_what_it_cannot_show(repo: Repo) -> None:
    from landwatch import layout

    unknown = repo.landwatch("show", "nosuchrev")
    assert unknown.returncode == 1 and unknown.stderr == (
        "landwatch: no commit 'nosuchrev' in this repository\n"
    )
    report = layout.report_file(repo.git_dir, repo.head())
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text('{"format": 1, "commit": ""}')
    corrupt = repo.landwatch("show")
    assert corrupt.returncode == 1 and "cannot be read (corrupt)" in corrupt.stderr
    assert "no findings" not in corrupt.stdout


def test_a_token_in_a_file_name_is_shown_redacted_in_every_form(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    oid = repo.land("change", {f"keys/{token}.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    shown = {form: repo.landwatch("show", oid, f"--{form}").stdout for form in ("json", "sarif")}
    shown["text"] = repo.landwatch("show", oid).stdout
    assert all(token not in out and "ghp_" in out for out in shown.values())
    assert "keys/ghp_….txt" in shown["text"]
    findings = json.loads(shown["json"])["findings"]
    assert [f["path"] for f in findings if f["rule"] == "P001"] == ["keys/ghp_….txt"]
    [result] = json.loads(shown["sarif"])["runs"][0]["results"]
    where = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert urllib.parse.unquote(where) == "keys/ghp_….txt"


def test_unread_subjects_show_no_token_or_password(repo: Repo) -> None:
    token = github_token("Q7w2")
    secret = "Zq8Wv7Tu6" + "Rs5Qp4"
    repo.land(f"Use {token} via https://deploy:{secret}@git.example.com", {"a.txt": "a\n"})
    assert run_reviewer("--once").returncode == 0
    listed = repo.landwatch("show", "--unread")
    assert listed.returncode == 0, listed.stderr
    assert "Use ghp_… via https://deploy:" in listed.stdout
    assert token not in listed.stdout and secret not in listed.stdout


def test_show_at_80_columns_wraps_at_words(repo: Repo, terminal: Terminal) -> None:
    subject = "Sum the prices of the cart, with a subject long enough to run past eighty columns"
    code = "    return sum(item.price_with_the_tax_included_and_rounded for item in items)   "
    oid = repo.land(subject, {"app/cart.py": f"def total(items):\n{code}\n"})
    assert run_reviewer("--once").returncode == 0
    screen = terminal.landwatch(repo.path, "show", oid)
    shown = words(screen)
    for said in ("2 warnings", "2 added lines checked", subject, code):
        assert set(said.split()) <= shown, screen
    assert all(len(line) <= 80 for line in screen.splitlines())


def test_a_rewritten_commit_is_shown_under_its_own_id_saying_whence(repo: Repo) -> None:
    before = repo.land("topic", {"a.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    amended = repo.run("commit", "-q", "--amend", "--no-edit", "--date=2001-01-01T00:00:00")
    assert amended.returncode == 0, amended.stderr
    after = repo.head()
    assert run_reviewer("--once").returncode == 0
    shown = repo.landwatch("show")
    assert shown.returncode == 0, shown.stderr
    head = shown.stdout.splitlines()[0]
    assert head.startswith(
        f"landwatch review of {after[:12]} (commit, carried over from {before[:12]}): 1 warning"
    ), head
    stored = json.loads(repo.landwatch("show", "--json").stdout)
    assert (stored["commit"], stored["label"], stored["carried_from"]) == (
        after,
        after[:12],
        before,
    )
    [run] = json.loads(repo.landwatch("show", "--sarif").stdout)["runs"]
    assert run["properties"]["range"] == after[:12]
    assert run["properties"]["carriedFrom"] == before


def heads(shown: str) -> list[str]:
    """The commits whose reviews `show` printed whole, in order."""
    return [line.split()[3] for line in shown.splitlines() if line.startswith("landwatch review")]


def test_unread_reviews_are_shown_whole_the_worst_first_and_only_they_marked_read(
    repo: Repo,
) -> None:
    key = repo.land("Add the key", {"b.py": f"x = 1\ny = 2\nKEY = '{KEY_ID}'\n"})
    warned = [repo.land(f"warning {n}", {f"w{n}.txt": "trailing  \n"}) for n in range(IN_FULL)]
    assert run_reviewer("--once").returncode == 0
    first = repo.landwatch("show", "--unread")
    assert first.returncode == 0, first.stderr
    # The key's review first, though the oldest; then the newest of the others.
    newest = [oid[:12] for oid in reversed(warned)]
    assert heads(first.stdout) == [key[:12], *newest[: IN_FULL - 1]]
    assert "Add the key" in first.stdout and "warning 4" in first.stdout
    assert "  3 error   S002 " in first.stdout and KEY_ID not in first.stdout
    assert "w4.txt" in first.stdout and "trailing-whitespace" in first.stdout
    # The one not shown whole is listed, and left unread for the next call.
    *_, told, listed = first.stdout.splitlines()
    assert told == "landwatch: 1 more review unread, not shown yet (landwatch show --unread again):"
    assert listed.startswith(warned[0][:12]) and listed.endswith("warning 0")
    second = repo.landwatch("show", "--unread")
    assert heads(second.stdout) == [warned[0][:12]] and "w0.txt" in second.stdout
    assert repo.landwatch("show", "--unread").stdout == "landwatch: no unread reviews\n"


def test_an_unread_review_that_cannot_be_read_is_told_and_stays_unread(repo: Repo) -> None:
    """An audit: `show --unread` took a kept review it could not read (truncated, or a FIFO in
    its place) for one with no findings, said there were no unread reviews and marked it read;
    the one line stopped telling it. Now it is named with what mends it, in every form, the
    others shown as before, and the one line goes on telling it."""
    broken = repo.land("trailing", {"t.txt": "trailing  \n"})
    other = repo.land("more", {"u.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    layout.report_file(repo.git_dir, broken).write_text('{"commit": "')
    corrupt = (
        f"landwatch: the stored review of {broken[:12]} cannot be read (corrupt); review it "
        f"again: landwatch review {broken[:12]}\n"
    )
    shown = repo.landwatch("show", "--unread", "--json")
    assert (shown.returncode, shown.stderr) == (1, corrupt)
    assert [one["commit"] for one in json.loads(shown.stdout)] == [other]
    for _ in range(2):
        shown = repo.landwatch("show", "--unread")
        assert (shown.returncode, shown.stderr) == (1, corrupt)
        assert shown.stdout == "landwatch: no other unread review\n"
    assert broken[:7] in repo.landwatch("prompt").stdout


def test_a_tab_in_a_snippet_is_shown_as_spaces_to_its_stop(repo: Repo) -> None:
    # Go indents with tabs; both lines end in spaces (P001), one holds an escape as well.
    code = 'package cart\n\nfunc total() {\n\treturn\t// none yet  \n\tcolour := "\x1b[31m"  \n}\n'
    oid = repo.land("Start the cart", {"cart.go": code})
    assert run_reviewer("--once").returncode == 0
    for shown in (
        repo.landwatch("show", oid).stdout,
        repo.landwatch("ci", oid, "--no-fetch").stdout,
    ):
        assert "│         return  // none yet  \n" in shown, shown  # stops at 8 and 16
        assert '│         colour := "\\x1b[31m"  \n' in shown, shown  # other controls: escapes
        assert "\\x09" not in shown and "\t" not in shown
    # Data is not display: the stored review and JSON keep the line's own bytes.
    [found] = [
        f
        for f in json.loads(repo.landwatch("show", oid, "--json").stdout)["findings"]
        if f["line"] == 4
    ]
    assert found["snippet"] == "\treturn\t// none yet  "


def test_show_and_status_import_neither_pygit2_nor_rich_nor_the_rules(repo: Repo) -> None:
    """Issue 40: reading a kept review and the queues costs no git library, no rich and no
    rule, which a review alone needs."""
    import subprocess
    import sys

    repo.land("Add a file", {"a.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    heavy = {"pygit2", "rich", "yaml", "landwatch.review.rules", "landwatch.review.engine"}
    heavy |= {"hashlib"}  # a fingerprint is made by a review, a mark by install: 3 ms
    # Nothing waits: no kind is asked what is failing, and none is looked for.
    heavy |= {"importlib.metadata", "landwatch.kinds.project_hooks", "landwatch.push_gate"}
    # Nothing pushed nor shared from here: neither kind's state is read.
    heavy |= {"landwatch.kinds.push", "landwatch.sharing", "landwatch.job_queue"}
    # Nothing allowed here: status reads no allowance (show marks what is allowed in its review).
    for asked, also in (
        (["show", "HEAD"], set()),
        (["status"], {"landwatch.allowances", "landwatch.review.findings"}),
    ):
        ran = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "landwatch", *asked],
            cwd=repo.path,
            capture_output=True,
            text=True,
        )
        assert ran.returncode == 0, ran.stderr
        imported = {line.rpartition("|")[2].strip() for line in ran.stderr.splitlines()}
        assert "landwatch.styled" in imported and imported & (heavy | also) == set(), asked


def test_a_copied_repository_s_reviews_are_not_shown_as_landwatch_s(
    repo: Repo, tmp_path: Path
) -> None:
    """An audit: an unpacked archive's `.git/landwatch` was shown as landwatch's own reviews, its
    author's words pressing a command on the person (security.md, attack 19); a copy of one's own
    repository is no different: nothing made its reviews here."""
    oid = repo.land("trailing", {"t.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    copy = tmp_path / "copy"
    shutil.copytree(repo.path, copy, symlinks=True)
    for asked in (["show", oid], ["show", "--unread"], ["show", oid, "--patch"]):
        said = subprocess.run(
            [sys.executable, "-m", "landwatch", *asked], cwd=copy, capture_output=True, text=True
        )
        assert (said.returncode, said.stdout) == (1, ""), asked
        assert said.stderr == (
            "landwatch: the reviews in this repository were not kept by landwatch here (a copy, "
            "or an unpacked archive); landwatch install sets them aside and reviews what lands "
            "next\n"
        )
    assert "P001" in repo.landwatch("show", oid).stdout  # the original's are its own
