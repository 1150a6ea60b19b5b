"""docs/rules.md is generated from the rules themselves."""

from __future__ import annotations

from support import ROOT


def test_docs_rules_md_is_generated_from_the_rules() -> None:
    from landwatch.review import rulesdoc

    page = (ROOT / "docs" / "rules.md").read_text()
    assert page == rulesdoc.markdown(), "regenerate: landwatch rules --markdown > docs/rules.md"
    for rule_id in ("P001", "P011", "S001", "S003", "M001", "M006", "C001", "C003"):
        assert f"### {rule_id} " in page
