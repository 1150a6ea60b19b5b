"""Where `landwatch ci` keeps the compiled secret rules (commands.ci_cache): the way to a cache
followed link by link, on real directories (the command's own cases are in test_ci)."""

from __future__ import annotations

from pathlib import Path

from landwatch.commands.ci_cache import _through_a_link


def test_a_link_in_the_checkout_is_found_however_the_way_is_spelt(tmp_path: Path) -> None:
    checkout, outside = tmp_path / "checkout", tmp_path / "outside"
    checkout.mkdir()
    outside.mkdir()
    (checkout / "link").symlink_to(outside)
    (tmp_path / "runner").symlink_to(checkout / "link")
    (tmp_path / "alias").symlink_to(checkout)
    for where in (
        checkout / "link" / "rules",
        tmp_path / "alias" / "link" / "rules",
        tmp_path / "runner" / "rules",
        Path("/" + str(checkout / "link" / "rules")),  # `//`: `/` to Linux
    ):
        assert _through_a_link(where, checkout), where
    assert not _through_a_link(outside / "rules", checkout)
    assert not _through_a_link(checkout / "plain" / "rules", checkout)
    assert not _through_a_link(checkout / "link" / "rules", None)  # no checkout: none in it


def test_a_loop_of_links_counts_as_one_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    assert _through_a_link(tmp_path / "a" / "rules", checkout)
