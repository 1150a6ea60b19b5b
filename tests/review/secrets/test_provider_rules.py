"""Credentials of the provider formats in kingfisher's maintained rule set
(review.secrets.provider_rules): found where landwatch's own formats know nothing, placed on
their line in the text the review shows, keys left to the private-key rule."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path

from landwatch.review.secrets import provider_rules
from landwatch.review.secrets.provider_rules import (
    ProviderToken,
    available,
    by_line,
    provider_spans,
    provider_tokens,
    text_spans,
)
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE, RECORD
from support.repos import Repo

CHOSEN = random.Random(7)


def made(size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A value made here, at random: no test holds a credential anyone issued."""
    return "".join(CHOSEN.choices(alphabet, k=size))


HUGGING_FACE = "hf_" + made(34, string.ascii_letters)
DIGITAL_OCEAN = "dop_v1_" + made(64, "0123456789abcdef")


def test_the_rule_set_is_installed_with_landwatch() -> None:
    assert available()


def test_a_provider_format_is_found_with_its_line_and_columns() -> None:
    lines = [b"import os", f'HF_TOKEN = "{HUGGING_FACE}"'.encode(), b"x = 1"]
    [token] = provider_tokens(lines)
    assert (token.line, token.start, token.end) == (1, 12, 12 + len(HUGGING_FACE))
    assert token.label == "huggingface-access-token" and token.confident


def test_a_format_the_rule_set_is_not_sure_of_says_so() -> None:
    [token] = provider_tokens([f"DO = '{DIGITAL_OCEAN}'".encode()])
    assert not token.confident


def test_a_token_coloured_for_a_terminal_is_found_between_its_escape_codes() -> None:
    # A log's colour codes (`ESC[93m` … `ESC[0m`) are no part of a token, nor a letter before it.
    line = f">>>\x1b[93m{HUGGING_FACE}\x1b[0m<<<".encode()
    [token] = provider_tokens([b"log:", line])
    assert (token.line, token.start, token.end) == (1, 8, 8 + len(HUGGING_FACE))
    assert provider_tokens([b"\x1b[93m\x1b[0m", b"\x1b[" + b"1;" * 5000]) == []


def test_private_keys_are_left_to_the_private_key_rule() -> None:
    body = base64.b64encode(CHOSEN.randbytes(180)).decode()
    pem = ["-----BEGIN " + "PRIVATE KEY-----", body[:64], body[64:128], body[128:]]
    pem.append("-----END PRIVATE KEY-----")
    assert provider_tokens([line.encode() for line in pem]) == []


def test_columns_are_the_texts_on_a_line_that_is_not_ascii() -> None:
    text = f'name = "café ☕"; token = "{HUGGING_FACE}"'
    [(start, end)] = provider_spans(text)
    assert text[start:end] == HUGGING_FACE


def test_many_tokens_on_a_line_are_placed_in_one_pass() -> None:
    raw = "é".join(["x"] * 3).encode()
    tokens = [ProviderToken(0, 0, 1, "a", True), ProviderToken(0, 3, 4, "b", True)]
    assert text_spans(raw, tokens) == [(0, 1), (2, 3)]


def test_overlapping_tokens_on_a_line_keep_the_first() -> None:
    tokens = [
        ProviderToken(0, 0, 10, "a", True),
        ProviderToken(0, 5, 12, "b", True),
        ProviderToken(1, 0, 3, "c", False),
    ]
    assert by_line(tokens) == {0: [tokens[0]], 1: [tokens[2]]}


# A review as `landwatch review HEAD` makes it, in a process of its own, then whether the rule
# set's package was ever imported there.
REVIEW_THEN_LOADED = (
    "import contextlib, io, sys\n"
    "from landwatch.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()) as said:\n"
    "    status = main(['review', 'HEAD', '--json'])\n"
    "print(said.getvalue())\n"
    "print('kingfisher_sdk' in sys.modules)\n"
)


def review_in_a_process(repo: Repo) -> tuple[bool, str]:
    ran = subprocess.run(
        [sys.executable, "-c", REVIEW_THEN_LOADED],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    assert ran.returncode == 0, ran.stderr
    said, loaded = ran.stdout.rstrip("\n").rsplit("\n", 1)
    return loaded == "True", said


def test_a_review_whose_lines_hold_no_anchor_loads_no_rules(repo: Repo) -> None:
    """Issue 40: 0.4 s of a one-line review was loading the rule set to scan its message."""
    repo.land("one line", {"notes.txt": "a line\n"}, hooks=False)
    loaded, _ = review_in_a_process(repo)
    assert not loaded


def test_a_line_holding_a_provider_s_token_loads_them_and_is_found(repo: Repo) -> None:
    repo.land("deploy", {"deploy.py": f'HUB = "{HUGGING_FACE}"\n'}, hooks=False)
    loaded, said = review_in_a_process(repo)
    assert loaded
    found = [f["message"] for f in json.loads(said)["findings"]]
    assert "huggingface-access-token (kingfisher's rules)" in found


def kept_copy(cache: Path, where: Path) -> Path:
    """A copy of the compiled rules and their anchors, pointed at for this process."""
    shutil.copytree(cache, where)
    os.environ[DIRECTORY_VARIABLE] = str(where)
    [annex] = where.glob("anchors-*.json")
    return annex


def rerecord(where: Path) -> None:
    lines = []
    for path in sorted(where.iterdir()):
        if path.name not in (RECORD, "lock"):
            lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n")
    (where / RECORD).write_text("".join(lines))


def test_anchors_not_as_recorded_are_not_used_and_the_token_is_found(
    repo: Repo, tmp_path: Path, _secret_rules_cache: Path
) -> None:
    """Anchors altered to hold nothing (the record not): the review loads the rules anyway."""
    annex = kept_copy(_secret_rules_cache, tmp_path / "rules")
    assert provider_rules.compiled()
    altered = json.loads(annex.read_bytes())
    altered["anchors"].update(literals=[], guarded=[], base64=10**6)
    annex.write_text(json.dumps(altered))
    assert not provider_rules.compiled()
    repo.land("deploy", {"deploy.py": f'HUB = "{HUGGING_FACE}"\n'}, hooks=False)
    loaded, said = review_in_a_process(repo)
    assert loaded
    assert "huggingface-access-token" in said


def test_anchors_of_another_rule_set_or_database_are_not_used(
    tmp_path: Path, _secret_rules_cache: Path
) -> None:
    """Derived for another kingfisher (its name is the rule set's), or beside another database
    than the one recorded: a stale list never decides."""
    annex = kept_copy(_secret_rules_cache, tmp_path / "rules")
    annex.rename(annex.with_name("anchors-0123456789abcdef0123456789abcdef.json"))
    rerecord(annex.parent)
    assert not provider_rules.compiled()
    annex = kept_copy(_secret_rules_cache, tmp_path / "other")
    altered = json.loads(annex.read_bytes())
    altered["database"] = {name: "0" * 64 for name in altered["database"]}
    annex.write_text(json.dumps(altered))
    rerecord(annex.parent)
    assert not provider_rules.compiled()
