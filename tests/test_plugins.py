"""Entry points found as importlib.metadata finds them, and importlib.metadata left unimported
when no package on the path declares the group."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch import plugins

GROUP = "landwatch.example"


def metadata(site: Path, package: str, entry_points: str) -> Path:
    """A package's metadata as pip installs it, declaring `entry_points`."""
    dist = site / f"{package}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(entry_points)
    return dist


def names(group: str = GROUP) -> list[str]:
    return sorted(entry_point.name for entry_point in plugins.entry_points(group))


def test_a_declared_entry_point_is_found_as_importlib_metadata_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metadata(tmp_path, "one", f"[console_scripts]\none = one:main\n\n[{GROUP}]\nfirst = one:A\n")
    metadata(tmp_path / "egg", "two", f"[{GROUP}]\nsecond = two:B\n").rename(
        tmp_path / "egg" / "two.egg-info"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path / "egg"))
    assert names() == ["first", "second"]
    found = importlib.metadata.entry_points(group=GROUP)
    assert sorted(entry_point.name for entry_point in found) == names()


def test_another_groups_entry_point_is_not_taken_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metadata(tmp_path, "one", "[console_scripts]\nlandwatch.example = one:main\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert names() == []
    assert "landwatch.example" in names("console_scripts")


def test_with_nothing_declared_importlib_metadata_is_not_imported(tmp_path: Path) -> None:
    metadata(tmp_path, "one", "[console_scripts]\none = one:main\n")
    asked = (
        "import sys; from landwatch import plugins; "
        f"print(plugins.entry_points({GROUP!r}), 'importlib.metadata' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", asked],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    ).stdout
    assert shown == "[] False\n"


def test_a_zip_on_the_path_is_read_by_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as packages:
        packages.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        packages.writestr("zipped-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nz = zipped:Z\n")
    monkeypatch.syspath_prepend(str(archive))
    assert names() == ["z"]


class ElsewhereFinder:
    """A finder of distributions beside the standard one: metadata kept off sys.path."""

    def __init__(self, dist: Path) -> None:
        self.dist = dist

    def find_spec(self, *args: object) -> None:
        return None

    def find_distributions(self, *args: object) -> Iterator[importlib.metadata.Distribution]:
        yield importlib.metadata.PathDistribution(self.dist)


def test_another_finder_of_distributions_is_asked_through_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = metadata(tmp_path / "elsewhere", "far", f"[{GROUP}]\nfar = far:F\n")
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, ElsewhereFinder(dist)])
    assert names() == ["far"]


def test_a_vanished_or_unreadable_path_entry_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path / "gone"))
    (tmp_path / "broken-1.0.dist-info").mkdir()  # no entry_points.txt at all
    monkeypatch.syspath_prepend(str(tmp_path))
    assert names() == []
