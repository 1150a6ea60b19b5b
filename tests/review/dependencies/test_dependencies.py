"""What a manifest asks for and what its lockfile holds (review.dependencies): every reader takes a
file of the wrong shape and answers, never raising; Python's names compared in their normal form;
only the sections that are tables read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from landwatch.review.dependencies import entries, lockfiles, manifests, python_name


@pytest.mark.parametrize(
    ("odd", "odd_in_toml"),
    [
        (5, "5"),
        (True, "true"),
        ("text", '"text"'),
        (None, None),
        ([5, None, "x"], '[5, "x"]'),
        ({"a": 5}, "{a = 5}"),
        ({"a": {"version": 5, "name": 5}}, "{a = {version = 5, name = 5, package = 5}}"),
    ],
)
def test_every_reader_takes_a_file_of_the_wrong_shape_without_an_error(
    odd: Any, odd_in_toml: str | None
) -> None:
    sections = ("dependencies", "require", "packages", "packages-dev", "default", "develop")
    contents = [json.dumps(dict.fromkeys(sections, odd)).encode()]
    if odd_in_toml is not None:
        tables = ("dependencies", "package", "packages", "project", "tool", "target", "workspace")
        contents.append("".join(f"{key} = {odd_in_toml}\n" for key in tables).encode())
    for name, read in {**manifests.READERS, **lockfiles.READERS}.items():
        for content in contents:
            result = read(content)
            assert result is None or isinstance(result, dict), name


def test_python_names_are_compared_in_their_normal_form() -> None:
    assert python_name("Flask_SQLAlchemy") == python_name("flask-sqlalchemy") == "flask-sqlalchemy"
    assert python_name("zope.interface") == "zope-interface"
    assert python_name("a__b--c..d") == "a-b-c-d"


def test_only_the_sections_that_are_tables_are_read() -> None:
    data = {"dependencies": {"a": "1"}, "devDependencies": ["not", "a", "table"], "other": {"b": 2}}
    assert list(entries(data, ("dependencies", "devDependencies", "missing"))) == [("a", "1")]
