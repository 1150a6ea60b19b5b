"""What the engine knows of a rule is what the rule says of itself: its class attributes (how
many findings merge into one, what the history teaches it, which fixtures keep it quiet), never
its id written into a module that is no rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from landwatch.review.rules import builtin_rules
from landwatch.review.rules.base import Practice
from landwatch.review.standards import Standards
from support import ROOT

REVIEW = ROOT / "src" / "landwatch" / "review"
RULE_ID = re.compile(r"\b[PSMC][0-9]{3}\b")
# Where an id is the point: the header of docs/rules.md shows how rules are configured by id.
DOCUMENTED = {"rulesdoc.py": ("HEADER",)}


def rule_modules() -> set[Path]:
    """The modules that define rules (rules/base.py and the registry define none)."""
    return {
        path for path in (REVIEW / "rules").glob("*.py") if path.stem not in ("__init__", "base")
    }


def ids_outside_documented_places(path: Path, root: Path = REVIEW) -> list[str]:
    text = path.read_text()
    lines = text.splitlines()
    for node in ast.parse(text).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        names = {target.id for target in targets if isinstance(target, ast.Name)}
        if names & set(DOCUMENTED.get(path.name, ())):
            assert node.end_lineno is not None
            lines[node.lineno - 1 : node.end_lineno] = [""] * (node.end_lineno - node.lineno + 1)
    return [
        f"{path.relative_to(root)}:{number}: {match[0]}"
        for number, line in enumerate(lines, 1)
        for match in RULE_ID.finditer(line)
    ]


def test_no_module_but_a_rule_names_a_rule_by_its_id() -> None:
    others = sorted(set(REVIEW.rglob("*.py")) - rule_modules())
    assert len(others) > 20  # the engine, its helpers, rules/base.py: the scan sees them
    assert [hit for path in others for hit in ids_outside_documented_places(path)] == []


def test_the_check_would_see_an_id_in_code_or_a_comment(tmp_path: Path) -> None:
    module = tmp_path / "engine.py"
    module.write_text('BURSTS = {"P001": 3}  # S002 too\n')
    assert ids_outside_documented_places(module, tmp_path) == [
        "engine.py:1: P001",
        "engine.py:1: S002",
    ]


def test_the_built_in_rules_say_what_the_engine_knew_of_them_by_id() -> None:
    rules = builtin_rules()
    assert {rule.id: rule.merged_past for rule in rules if rule.merged_past} == {
        "P001": 3,
        "S001": 3,
        "S002": 3,
        "S003": 3,
        "S004": 3,
    }
    # No secret rule is ever quieted by what the history held (issue 23).
    assert {rule.id: rule.practice for rule in rules if rule.practice} == {
        "P001": Practice.KEPT_BEFORE,
        "P002": Practice.FIXTURE_BYTES,
        "P016": Practice.KEPT_BEFORE,
    }
    learned = {rule.id: rule.learned for rule in rules if rule.learned}
    assert {rule_id: (it.standard, it.option) for rule_id, it in learned.items()} == {
        "M001": ("subject_limit", "max_length"),
        "M005": ("writes_conventional_commits", None),
        "M006": ("signs_off", None),
    }
    for rule in rules:
        if rule.learned is not None:
            assert hasattr(Standards(), rule.learned.standard), rule.id
            assert rule.learned.option in (None, *(option.name for option in rule.options))
