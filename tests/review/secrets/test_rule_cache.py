"""The compiled secret rules in landwatch's own directory (review.secrets.rule_cache): recorded
when compiled, loaded only as recorded, compiled again when anything there differs, no link
followed; never kingfisher's own cache, which a repository's environment build could write
(issue 37, attack 8). Real kingfisher throughout, on a rule set of one rule (milliseconds to
compile) but in the attack, which reviews a commit with the whole rule set."""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kingfisher_sdk import Rules, Scanner

from landwatch import cli, layout
from landwatch.review.secrets import rule_cache
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE, RECORD, load
from support.queue import fill, read_only_view, tmpfs
from support.repos import Repo
from support.rule_databases import forged, plant, rule_file
from support.tokens import hugging_face_token, random_text

TOKEN = "lwtest_" + random_text("rule cache", 32, "0123456789abcdef")
Build = Callable[[str | None], Rules]


@pytest.fixture
def build(tmp_path: Path) -> Build:
    """kingfisher's rules of one format of our own, kept in the cache directory given."""
    rules = rule_file(tmp_path / "rules", "lwtest", "lwtest_([0-9a-f]{32})", TOKEN)
    return lambda where: Rules([rules], builtins=False, cache=where is not None, cache_dir=where)


def finds(rules: Rules) -> bool:
    scanner = Scanner(rules, base64=False, dedup=False, redact=False)
    return bool(scanner.scan(f'KEY = "{TOKEN}"'.encode()))


def database(where: Path) -> Path:
    [compiled] = [path for path in where.iterdir() if path.suffix == ".vscdb"]
    return compiled


def recorded(where: Path) -> dict[str, str]:
    lines = (where / RECORD).read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ") for line in lines)}


def assert_kept(where: Path) -> None:
    """Every file private, and the record the digest of the database there (and of the annex
    made beside it, when there is one)."""
    assert stat.S_IMODE(where.stat().st_mode) == 0o700
    for path in where.iterdir():
        assert not path.is_symlink() and path.is_file()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = [database(where), *where.glob("anchors-*.json")]
    assert recorded(where) == {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in kept
    }


def test_rules_compiled_into_landwatch_s_directory_are_recorded_then_loaded(
    build: Build, tmp_path: Path
) -> None:
    where = tmp_path / "state" / "landwatch" / "secret-rules"  # none of it there yet
    first = load(build, str(where))
    assert first.cache_status == "stored" and finds(first)
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
    assert_kept(where)
    again = load(build, str(where))
    assert again.cache_status == "loaded" and finds(again)


def test_a_database_kingfisher_would_load_is_compiled_again_when_not_as_recorded(
    build: Build, tmp_path: Path
) -> None:
    where = tmp_path / "secret-rules"
    load(build, str(where))
    compiled = database(where)
    real = compiled.read_bytes()
    plant(compiled, forged(real, tmp_path / "forging"))
    planted = build(str(where))  # what kingfisher makes of it, asked alone: it finds nothing
    assert planted.cache_status == "loaded" and not finds(planted)
    rules = load(build, str(where))
    assert rules.cache_status == "stored" and finds(rules)
    assert compiled.read_bytes() == real
    assert_kept(where)


def _changed(where: Path, elsewhere: Path) -> None:
    compiled = database(where)
    data = bytearray(compiled.read_bytes())
    data[-1] ^= 1
    plant(compiled, bytes(data))


def _linked(where: Path, elsewhere: Path) -> None:
    compiled = database(where)
    plant(elsewhere / compiled.name, compiled.read_bytes())  # the same bytes, but not ours here
    compiled.unlink()
    compiled.symlink_to(elsewhere / compiled.name)


def _beside(where: Path, elsewhere: Path) -> None:
    plant(where / ("0" * 32 + ".vscdb"), database(where).read_bytes())


def _link_record(where: Path, elsewhere: Path) -> None:
    plant(elsewhere / RECORD, (where / RECORD).read_bytes())
    (where / RECORD).unlink()
    (where / RECORD).symlink_to(elsewhere / RECORD)


HOW: dict[str, Callable[[Path, Path], object]] = {
    "bytes changed": _changed,
    "database removed": lambda where, _: database(where).unlink(),
    "a link in its place": _linked,
    "a file beside it": _beside,
    "readable by others": lambda where, _: database(where).chmod(0o644),
    "record removed": lambda where, _: (where / RECORD).unlink(),
    "record not ours": lambda where, _: plant(where / RECORD, b"not a record\n"),
    "record a link": _link_record,
}


@pytest.mark.parametrize("how", HOW)
def test_anything_not_as_recorded_is_compiled_again(build: Build, tmp_path: Path, how: str) -> None:
    where, elsewhere = tmp_path / "secret-rules", tmp_path / "elsewhere"
    load(build, str(where))
    HOW[how](where, elsewhere)
    outside = {path.name: path.read_bytes() for path in elsewhere.glob("*")}
    rules = load(build, str(where))
    assert rules.cache_status == "stored" and finds(rules)
    assert_kept(where)
    assert {path.name: path.read_bytes() for path in elsewhere.glob("*")} == outside


def test_a_link_in_place_of_the_directory_is_not_followed(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A directory a link leads to is another's to write, its record too: the rules are compiled
    in memory, and nothing there is read or written."""
    elsewhere = tmp_path / "elsewhere"
    load(build, str(elsewhere))
    compiled = database(elsewhere)
    plant(compiled, forged(compiled.read_bytes(), tmp_path / "forging"))
    digest = hashlib.sha256(compiled.read_bytes()).hexdigest()
    plant(elsewhere / RECORD, f"{digest}  {compiled.name}\n".encode())
    (elsewhere / "lock").unlink()
    before = {path.name: path.read_bytes() for path in elsewhere.iterdir()}
    where = tmp_path / "secret-rules"
    where.symlink_to(elsewhere)
    with caplog.at_level(logging.WARNING):
        rules = load(build, str(where))
    assert rules.cache_status == "bypassed" and finds(rules)
    assert {path.name: path.read_bytes() for path in elsewhere.iterdir()} == before
    [said] = caplog.messages
    assert said == f"the secret rules are not kept in {where}: a link or a file, not followed"


def test_a_full_disk_under_the_directory_is_named_and_the_rules_still_load(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Where the reviewer's state directory is full, kingfisher keeps nothing there and the
    rules are compiled in memory; the warning says so. Before, it blamed a directory on the way
    being another user's or open to others."""
    disk = tmp_path / "state"
    with tmpfs(disk, "1m"):
        where = disk / "secret-rules"
        where.mkdir(mode=0o700)
        fill(disk)
        with caplog.at_level(logging.WARNING):
            rules = load(build, str(where))
        assert rules.cache_status == "bypassed" and finds(rules)
        assert [m for m in caplog.messages if "compiled in every process" in m] == [
            f"kingfisher did not keep compiled rules in {where}: its disk is full (0 KiB "
            "free); they are compiled in every process"
        ]


def test_without_a_directory_kingfisher_s_own_cache_is_never_read(
    build: Build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / "kf-rule-cache"
    load(build, str(planted))
    compiled = database(planted)
    plant(compiled, forged(compiled.read_bytes(), tmp_path / "forging"))
    monkeypatch.setenv("KF_RULE_CACHE_DIR", str(planted))
    rules = load(build, None)
    assert rules.cache_status == "bypassed" and finds(rules)


def test_the_directory_is_the_one_the_front_door_names_in_landwatch_s_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DIRECTORY_VARIABLE)
    assert rule_cache.directory() is None
    cli.keep_secret_rules()
    assert rule_cache.directory() == str(layout.SECRET_RULES.path())
    assert layout.SECRET_RULES.path().is_relative_to(layout.state_dir())
    monkeypatch.setenv(DIRECTORY_VARIABLE, "relative/secret-rules")
    assert rule_cache.directory() is None  # it would move with the working directory


def test_a_rule_database_planted_in_any_cache_blinds_no_review(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _secret_rules_cache: Path
) -> None:
    """Attack 8: kingfisher's database, forged to find nothing, planted where kingfisher keeps it
    (a repository's environment build could write all of ~/.cache) and in landwatch's own
    directory behind its record: a review of a commit adding a provider's token still finds it."""
    token = hugging_face_token("attack 8")
    oid = repo.land("deploy", {"deploy.py": f'HUB = "{token}"\n'}, hooks=False)
    [real] = sorted(_secret_rules_cache.glob("*.vscdb"))
    fake = forged(real.read_bytes(), tmp_path / "forging")
    kingfisher_default = Path(os.environ["XDG_CACHE_HOME"]) / "kingfisher" / "rule-cache"
    named = tmp_path / "kf-rule-cache"
    for place in (kingfisher_default, named):
        plant(place / real.name, fake)
    monkeypatch.setenv("KF_RULE_CACHE_DIR", str(named))
    own = layout.SECRET_RULES.path()  # where the front door keeps them, when nobody said
    shutil.copytree(_secret_rules_cache, own)
    plant(own / real.name, fake)
    monkeypatch.delenv(DIRECTORY_VARIABLE)
    shown = repo.landwatch("review", oid, "--json")
    assert shown.returncode == 1, shown.stderr  # an error found
    found = [(f["rule"], f["line"], f["message"]) for f in json.loads(shown.stdout)["findings"]]
    assert ("S002", 1, "huggingface-access-token (kingfisher's rules)") in found, found
    assert token not in shown.stdout + shown.stderr
    assert_kept(own)
    assert (own / real.name).read_bytes() != fake
    for place in (kingfisher_default, named):
        assert (place / real.name).read_bytes() == fake  # never read, never written


def annex(name: str = "anchors-1.json") -> rule_cache.Annex[Rules]:
    """An annex naming the database it was made beside, as provider_rules' anchors do."""
    return name, lambda rules, digests: json.dumps(sorted(digests)).encode()


def test_an_annex_is_made_and_recorded_when_the_rules_are_compiled_and_read_back(
    build: Build, tmp_path: Path
) -> None:
    where = tmp_path / "secret-rules"
    assert rule_cache.kept(str(where), "anchors-1.json") is None  # nothing compiled yet
    load(build, str(where), annex())
    assert_kept(where)
    found = rule_cache.kept(str(where), "anchors-1.json")
    assert found is not None and json.loads(found[0]) == [database(where).name]
    (where / "anchors-1.json").write_text("[]")  # altered, the record not
    assert rule_cache.kept(str(where), "anchors-1.json") is None


def test_rules_kept_without_their_annex_get_it_and_a_stale_one_is_removed(
    build: Build, tmp_path: Path
) -> None:
    """Rules compiled before anchors were kept get them at their next load; anchors of another
    rule set (another name) are removed when the new ones are written."""
    where = tmp_path / "secret-rules"
    load(build, str(where))
    assert not list(where.glob("anchors-*"))
    assert load(build, str(where), annex()).cache_status == "loaded"
    assert rule_cache.kept(str(where), "anchors-1.json") is not None
    load(build, str(where), annex("anchors-2.json"))
    assert [path.name for path in where.glob("anchors-*")] == ["anchors-2.json"]
    assert_kept(where)


def test_a_place_whose_lock_cannot_be_made_is_unusable(tmp_path: Path) -> None:
    """An audit: a cache restored on a read-only mount opened as a directory, and ci then said
    the rules were cached there while each run compiled them in memory (the lock is opened to
    write first). Asked as load asks: the directory, then its lock."""
    place = tmp_path / "ro" / "secret-rules"
    place.mkdir(parents=True, mode=0o700)
    asked = "import sys\nfrom landwatch.review.secrets import rule_cache\n"
    asked += "print(rule_cache.unusable(sys.argv[1]))\n"
    command = read_only_view(tmp_path / "ro", sys.executable, "-c", asked, str(place))
    said = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert said.stdout == "Read-only file system\n", said.stderr
    assert rule_cache.unusable(str(place)) is None  # writable here


def test_a_cache_another_process_holds_is_usable_at_once(tmp_path: Path) -> None:
    """An audit: asking whether a place is usable took its flock, and `landwatch ci` waited at
    its start, silent, behind a compile elsewhere or a stuck holder. A held lock is busy, not
    unusable, and never waited on there."""
    place = tmp_path / "secret-rules"
    place.mkdir(mode=0o700)
    held = os.open(place / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        asked = "import sys\nfrom landwatch.review.secrets import rule_cache\n"
        asked += "print(rule_cache.unusable(sys.argv[1]))\n"
        said = subprocess.run(
            [sys.executable, "-c", asked, str(place)], capture_output=True, text=True, timeout=60
        )
    finally:
        os.close(held)
    assert said.stdout == "None\n", said.stderr
