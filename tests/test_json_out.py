"""JSON for other programs: a path git holds that is not UTF-8 (`caf\\xe9.txt`, Latin-1's é)
reaches every output a strict parser reads (Go's encoding/json, jq, GitHub's SARIF upload) as
valid UTF-8: shown as landwatch shows it on a terminal, its own bytes beside it (`path_bytes`,
percent-encoded) and in SARIF's uri; a review shared and taken keeps its path exact."""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from landwatch import report_store
from landwatch.json_out import (
    percent_encoded,
    read_with_bytes,
    strict_json,
    typed,
    typed_list,
    with_bytes,
)
from support.daemon import run_reviewer
from support.repos import Repo, installed
from support.team import developer, remote_notes, seeded_remote

NAME = b"caf\xe9.txt"
PATH = os.fsdecode(NAME)  # as landwatch reads it: the byte surrogate-escaped


def strictly(text: str) -> Any:
    """`text` read as a strict parser reads JSON: every string and key valid UTF-8 (a lone
    surrogate, which Python's json writes and reads, is none)."""
    data = json.loads(text)
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError: a lone surrogate
        elif isinstance(item, dict):
            pending += [*item, *item.values()]
        elif isinstance(item, list):
            pending += item
    return data


def exact_path(finding: dict[str, Any]) -> bytes:
    """The path's own bytes, as a reader in another language takes them from a finding."""
    return urllib.parse.unquote_to_bytes(finding.get("path_bytes", finding["path"]))


def uris(sarif: dict[str, Any]) -> list[bytes]:
    """Each SARIF result's artifactLocation.uri, percent-decoded to the path's bytes."""
    return [
        urllib.parse.unquote_to_bytes(where["physicalLocation"]["artifactLocation"]["uri"])
        for run in sarif["runs"]
        for result in run["results"]
        for where in result["locations"]
    ]


@pytest.mark.parametrize(
    ("text", "shown", "exact"),
    [
        ("plain é ✓", "plain é ✓", None),
        (PATH, "caf\\xe9.txt", "caf%E9.txt"),
        (os.fsdecode(b"d\xff/%41 \xc3\xa9"), "d\\xff/%41 é", "d%FF/%2541%20%C3%A9"),
        ("lone\ud800", "lone\\ud800", "lone%5Cud800"),  # no byte makes it: data, not a path
    ],
)
def test_a_text_not_utf8_is_shown_readable_and_its_bytes_kept(
    text: str, shown: str, exact: str | None
) -> None:
    written = with_bytes("path", text)
    assert written == ({"path": shown} | ({"path_bytes": exact} if exact else {}))
    assert strictly(strict_json({text: [text, (text,)]})) == {shown: [shown, [shown]]}
    if "\ud800" not in text:
        assert read_with_bytes(json.loads(strict_json(written)), "path") == text
        assert percent_encoded(text) == (exact or urllib.parse.quote(text))


def test_review_show_and_status_json_and_sarif_read_strictly(tmp_path: Path) -> None:
    """Before: `"caf\\udce9.txt"` in --json and show --json, and the repository's own path so
    in status --json."""
    repo = installed(tmp_path / os.fsdecode(b"shop\xff"))
    oid = repo.land("Add the menu", {PATH: "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    for command in (["review", oid, "--json"], ["show", oid, "--json"]):
        said = repo.landwatch(*command)
        assert said.returncode == 0, said.stderr
        [finding] = [f for f in strictly(said.stdout)["findings"] if f["rule"] == "P001"]
        assert finding["path"] == "caf\\xe9.txt" and exact_path(finding) == NAME
    for command in (["review", oid, "--sarif"], ["show", oid, "--sarif"]):
        assert uris(strictly(repo.landwatch(*command).stdout)) == [NAME]
    [repository] = strictly(repo.landwatch("status", "--json").stdout)["repositories"]
    assert repository["repository"].endswith("shop\\xff/.git")
    shop = urllib.parse.unquote_to_bytes(repository["repository_bytes"])
    assert shop == os.fsencode(repo.git_dir)


def test_ci_json_and_sarif_read_strictly_a_ref_not_utf8_too(tmp_path: Path) -> None:
    """The range named by a branch whose name is not UTF-8 (git allows it) as well."""
    repo = Repo(tmp_path / "shop")
    branch = os.fsdecode(b"topic-\xe9")
    repo.git("switch", "-q", "-c", branch)
    repo.land("Add the menu", {PATH: "trailing  \n"}, hooks=False)
    ran = repo.landwatch("ci", f"main..{branch}", "--json", "ci.json", "--sarif", "ci.sarif")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    data = strictly((repo.path / "ci.json").read_text())
    assert data["range"] == "main..topic-\\xe9"
    [finding] = data["commits"][0]["review"]["findings"]
    assert exact_path(finding) == NAME
    sarif = strictly((repo.path / "ci.sarif").read_text())
    assert uris(sarif) == [NAME] and sarif["runs"][0]["properties"]["range"] == data["range"]


def test_a_review_shared_and_taken_keeps_its_path_exact(tmp_path: Path) -> None:
    """A shares its review of a commit holding `caf\\xe9.txt`; the note reads strictly, and B,
    pulling, takes it with the finding on that very path."""
    remote = seeded_remote(tmp_path)
    a, b = (developer(tmp_path, name, remote) for name in ("a", "b"))
    for person in (a, b):
        person.landwatch("share", check=True)
    oid = a.commit("Add the menu", {PATH: "trailing  \n"})
    a.reviewer()
    a.git("push", "-q", "origin", "main")
    a.reviewer()
    [line] = remote_notes(remote, oid)
    [finding] = [f for f in strictly(line)["findings"] if f["rule"] == "P001"]
    assert exact_path(finding) == NAME
    b.git("pull", "-q")
    b.reviewer()
    taken = report_store.read(b.git_dir, oid)
    assert taken is not None and taken.reviewed_by == a.email
    assert [f.path for f in taken.findings if f.rule == "P001"] == [PATH]
    shown = b.landwatch("show", oid)
    assert "caf\\xe9.txt" in shown.stdout and f"shared by {a.email}" in shown.stdout


def test_a_kept_field_is_read_back_only_as_its_type() -> None:
    """What a kept file holds is data: a bool is no count, and a number past what the commands
    print (infinite, or an integer of thousands of digits) is no count either."""
    assert typed(3, int, "n") == 3 and typed(None, int | None, "n") is None
    assert typed(0, int | float, "t") == 0 and typed_list(["a"], str, "notes") == ["a"]
    for value, kind in ((True, int), (1e999, int | float), (2**64, int), ("1", int), (1, str)):
        with pytest.raises(ValueError, match="malformed n"):
            typed(value, kind, "n")
    with pytest.raises(ValueError, match="malformed notes"):
        typed_list(["a", 1], str, "notes")
