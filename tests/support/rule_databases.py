"""kingfisher's compiled rule databases as an attacker plants them: a rule set of one rule that
matches nothing, compiled by kingfisher itself, its header made to claim the cache key and rule
count of the real database (and its own SHA-256, which kingfisher checks), so that kingfisher
loads it in the real one's place and finds nothing."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from kingfisher_sdk import Rules

MAGIC = b"KFRULEDB"  # then the header's length (4 bytes, little-endian), the header, the database
# A rule whose example is its only match: kingfisher will not compile a rule without one.
NEVER = """rules:
  - name: Never
    id: custom.never
    pattern: 'qqqneverqqq([0-9]{40})qqq'
    confidence: medium
    examples:
      - qqqneverqqq1234567890123456789012345678901234567890qqq
"""


def _parts(data: bytes) -> tuple[dict[str, Any], bytes]:
    """A cache entry's header and database."""
    assert data[: len(MAGIC)] == MAGIC, "not a kingfisher rule database"
    at = len(MAGIC) + 4
    size = int.from_bytes(data[len(MAGIC) : at], "little")
    return json.loads(data[at : at + size]), data[at + size :]


def rule_file(directory: Path, rule_id: str, pattern: str, example: str) -> Path:
    """A custom rule set of one rule, in `directory`."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / f"{rule_id}.yml"
    path.write_text(
        f"rules:\n  - name: {rule_id}\n    id: custom.{rule_id}\n    pattern: '{pattern}'\n"
        f"    confidence: medium\n    examples:\n      - {example}\n"
    )
    return path


def forged(real: bytes, scratch: Path) -> bytes:
    """A database kingfisher takes for `real` (its cache key, its rule count) that finds
    nothing; `scratch` is where the rule of nothing is compiled."""
    scratch.mkdir(mode=0o700, parents=True)
    rules = scratch / "never.yml"
    rules.write_text(NEVER)
    cache = scratch / "cache"
    cache.mkdir(mode=0o700)
    Rules([rules], builtins=False, cache_dir=cache)
    [compiled] = cache.iterdir()
    claimed, _ = _parts(real)
    header, database = _parts(compiled.read_bytes())
    header["cache_key"], header["rule_count"] = claimed["cache_key"], claimed["rule_count"]
    header["database_sha256"] = hashlib.sha256(database).hexdigest()
    text = json.dumps(header, separators=(",", ":")).encode()
    return MAGIC + len(text).to_bytes(4, "little") + text + database


def plant(path: Path, data: bytes) -> None:
    """`data` at `path` as kingfisher accepts a cache entry: the user's, 0600 in a 0700 directory
    (what a repository's code running as the user can write)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
