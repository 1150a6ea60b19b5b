"""landwatch.user_dirs: the person's directories as platformdirs resolves them, kept in
landwatch's own environment and read back without it; asked again when what they came from
changes; a kept file that is garbage, another key's or a link is neither used nor written through.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from landwatch import layout, user_dirs


def test_each_root_is_platformdirs_own() -> None:
    found = user_dirs.directories()
    for root, name in user_dirs.ROOTS.items():
        assert found[root] == getattr(platformdirs, name)("landwatch")
    assert layout.state_dir() == Path(platformdirs.user_state_dir("landwatch"))


def resolved_in_a_process(**env: str) -> tuple[dict[str, str], bool]:
    """What a new process resolves, and whether it imported platformdirs to."""
    asked = "from landwatch import user_dirs; print(repr(user_dirs.directories()))"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", asked],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    imported = {line.rpartition("|")[2].strip() for line in result.stderr.splitlines()}
    return ast.literal_eval(result.stdout), "platformdirs" in imported


def test_kept_once_and_read_back_without_platformdirs(tmp_path: Path) -> None:
    kept = user_dirs.kept_at(user_dirs.key())
    assert kept is not None and Path(kept).parent == layout.USER_DIRECTORIES.path()
    assert Path(kept).parent.parent == Path(sys.prefix)
    Path(kept).unlink(missing_ok=True)
    first, asked = resolved_in_a_process()
    assert asked and first == user_dirs.directories()
    assert Path(kept).stat().st_mode & 0o777 == 0o600
    assert Path(kept).parent.stat().st_mode & 0o777 == 0o700
    again, asked = resolved_in_a_process()
    assert again == first and not asked
    elsewhere = str(tmp_path / "elsewhere")
    moved, asked = resolved_in_a_process(XDG_CONFIG_HOME=elsewhere)
    assert asked and moved["<config>"] == os.path.join(elsewhere, "landwatch")


@pytest.mark.parametrize(
    "garbage", [b"", b"\xff\n\n\n\n\n\n", b"another key\n/a\n/b\n/c\n/d\n", b"more\n" * 100]
)
def test_a_kept_file_that_is_not_this_key_s_is_asked_again(garbage: bytes) -> None:
    kept = user_dirs.kept_at(user_dirs.key())
    assert kept is not None
    resolved_in_a_process()
    Path(kept).write_bytes(garbage)
    found, asked = resolved_in_a_process()
    assert asked and found == user_dirs.directories()


def test_a_link_at_the_kept_file_is_neither_read_nor_written_through(tmp_path: Path) -> None:
    kept = user_dirs.kept_at(user_dirs.key())
    assert kept is not None
    resolved_in_a_process()
    target = tmp_path / "elsewhere"
    target.write_text(Path(kept).read_text().replace("/landwatch\n", "/planted\n"))
    Path(kept).unlink()
    Path(kept).symlink_to(target)
    found, asked = resolved_in_a_process()
    assert asked and found == user_dirs.directories()
    assert "/planted" in target.read_text()  # not written through
    assert not Path(kept).is_symlink()  # replaced by what was asked


def test_nothing_is_kept_outside_a_virtual_environment() -> None:
    # As a system's Python runs it: sys.prefix is its base, which no person's landwatch owns.
    base = [sys.executable, "-c", "import sys; print(sys.prefix == sys.base_prefix)"]
    assert subprocess.run(base, capture_output=True, text=True).stdout == "False\n"
    asked = "import sys; sys.prefix = sys.base_prefix; from landwatch import user_dirs; "
    asked += "print(user_dirs.kept_at(user_dirs.key()))"
    result = subprocess.run([sys.executable, "-c", asked], capture_output=True, text=True)
    assert result.stdout == "None\n", result.stderr
