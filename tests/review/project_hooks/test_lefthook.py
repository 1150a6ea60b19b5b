"""lefthook's format as landwatch reads it (review.project_hooks.lefthook): every line lefthook
runs for the pre-commit hook, and what it makes of its templates; tested on documents, as
yaml would give them (the real lefthook runs in tests/wall/test_wall.py)."""

from __future__ import annotations

from landwatch.review.project_hooks.lefthook import (
    MAX_EXPANSIONS,
    Line,
    around,
    expanded,
    hooks,
    scripts,
    templates,
)

DOCUMENT = {
    "templates": {"checker": "tools/check.sh"},
    "pre-commit": {
        "setup": [{"run": "sh tools/setup.sh"}],
        "skip": [{"run": "sh tools/skip-all.sh"}],
        "commands": {
            "lint": {"run": "sh {checker}", "root": "web", "only": [{"run": "sh tools/only.sh"}]},
        },
        "scripts": {"fmt.sh": {"runner": "bash", "args": "-x"}},
        "jobs": [{"name": "types", "run": "mypy", "args": "--strict"}, {"script": "job.sh"}],
    },
}


def test_every_line_of_the_hook_is_read_with_its_directory_and_job() -> None:
    found = {hook.name: hook for hook in hooks(DOCUMENT)}
    assert set(found) == {"lint", "fmt.sh", "types", "job.sh"}
    assert found["lint"].lines == (
        Line("sh {checker}", "web", "lint"),
        Line("sh tools/only.sh", "", "lint"),  # a condition runs from the root
    )
    assert found["fmt.sh"].lines == (Line("bash -x", "", "fmt.sh"),)
    assert found["types"].lines == (Line("mypy --strict", "", "types"),)
    assert around(DOCUMENT) == [Line("sh tools/setup.sh"), Line("sh tools/skip-all.sh")]
    assert scripts(DOCUMENT) == ["fmt.sh", "job.sh"]


def test_a_document_of_another_shape_reads_as_nothing() -> None:
    for document in ({}, {"pre-commit": "run"}, {"pre-commit": {"commands": ["a"]}}):
        assert list(hooks(document)) == [] and scripts(document) == []
    assert templates({"templates": ["a"]}) == {} and around({"pre-commit": []}) == []


def test_templates_are_expanded_as_lefthook_expands_them() -> None:
    given = {"checker": ["tools/check.sh"]}
    line = Line("sh {checker} {lefthook_job_name} {unknown}", "", "my job")
    assert sorted(expanded(line, given, {}) or []) == [
        "sh tools/check.sh 'my job' {unknown}",
        "sh tools/check.sh {lefthook_job_name} {unknown}",
        "sh {checker} 'my job' {unknown}",
        "sh {checker} {lefthook_job_name} {unknown}",
    ]  # in every order lefthook may replace them; one it does not know is left as written
    assert expanded(Line("{cmd} --fix", "", "lint"), {}, {"lint": ["ruff"]}) == [
        "{cmd} --fix",
        "ruff --fix",
    ]


def test_templates_that_grow_without_end_are_no_expansion() -> None:
    given = {"a": ["{a}{a}", "x"]}
    assert expanded(Line("{a}"), given, {}) is None
    many = {f"t{n}": ["a", "b"] for n in range(8)}
    assert expanded(Line(" ".join(f"{{t{n}}}" for n in range(8))), many, {}) is None
    assert MAX_EXPANSIONS < 2**8
