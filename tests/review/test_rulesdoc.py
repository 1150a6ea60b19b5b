"""docs/rules.md is generated from the rules themselves."""

from __future__ import annotations

from landwatch.review.rules.secrets import RULES
from landwatch.review.rulesdoc import markdown
from support import ROOT


def test_docs_rules_md_is_generated_from_the_rules() -> None:
    from landwatch.review import rulesdoc

    page = (ROOT / "docs" / "rules.md").read_text()
    assert page == rulesdoc.markdown(), "regenerate: landwatch rules --markdown > docs/rules.md"
    for rule_id in ("P001", "P011", "S001", "S003", "M001", "M006", "C001", "C003"):
        assert f"### {rule_id} " in page


def test_every_secret_rule_lists_what_it_tells_at_each_severity() -> None:
    page = markdown()
    for rule in RULES:
        assert rule.certainty, rule.id
        section = page.split(f"### {rule.id} ", 1)[1].split("\n### ", 1)[0]
        assert "Told by certainty:" in section
        for severity, what in rule.certainty:
            assert f"- **{severity.name.lower()}**: {what}" in section
