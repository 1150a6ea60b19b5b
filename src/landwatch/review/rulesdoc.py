"""Every rule described from its own class: the `landwatch rules` listing and docs/rules.md.

Generating the page from the classes keeps it true; a test fails when it falls behind.
"""

from __future__ import annotations

from landwatch.review.rules import all_rules
from landwatch.review.rules.base import Rule, Scope

HEADER = """\
# Rules

Every built-in rule of the review, generated from the rules themselves
(`landwatch rules --markdown > docs/rules.md`). Configure them in `.landwatch.toml` or
`[tool.landwatch]` ([configuration.md](configuration.md)) by id or by name:

```toml
[rules]
P001 = "error"                                 # a severity: off, info, warning, error
large-file = { severity = "warning", max_kb = 2048 }
M005 = "warning"                               # turn on a rule that is off by default
```

Suppress a finding on its line with `landwatch: ignore[P001]` (several ids or names separated by
commas; `landwatch: ignore` alone for every rule), for a whole commit with a
`Landwatch-Ignore: P001, M003` trailer; secret rules also honour `gitleaks:allow` and
`pragma: allowlist secret` (and `pragma: allowlist nextline secret` on the line before), and
what the project declared to its secret scanners: `.gitleaks.toml`, `.gitleaksignore`,
`.secrets.baseline` and landwatch's own `[secrets]` allow-list
([review.md](review.md#what-a-project-declared-to-its-secret-scanners)).
"""


def _options(rule: type[Rule]) -> str:
    if not rule.options:
        return "none"
    parts = []
    for option in rule.options:
        default = option.default
        shown = (
            "[" + ", ".join(f'"{v}"' for v in default) + "]"
            if isinstance(default, tuple)
            else repr(default).replace("True", "true").replace("False", "false")
        )
        parts.append(f"`{option.name}` = `{shown}`: {option.description}")
    return "; ".join(parts)


def markdown() -> str:
    rules, _ = all_rules()
    lines = [HEADER]
    for scope in Scope:
        members = [rule for rule in rules if rule.scope is scope]
        if not members:
            continue
        lines.append(f"\n## {scope.value.capitalize()}\n")
        for rule in sorted(members, key=lambda r: r.id):
            doc = rule.doc().split("\n\n")
            lines.append(f"### {rule.id} {rule.name}\n")
            lines.append(
                f"Default severity: **{rule.severity.name.lower()}**. Options: {_options(rule)}.\n"
            )
            lines.extend(f"{' '.join(paragraph.split())}\n" for paragraph in doc if paragraph)
            if rule.certainty:
                lines.append("Told by certainty:\n")
                lines.extend(
                    f"- **{severity.name.lower()}**: {what}" for severity, what in rule.certainty
                )
                lines.append("")
            if rule.gitleaks_rules:
                named = ", ".join(f"`{name}`" for name in sorted(rule.gitleaks_rules))
                lines.append(
                    f"`.gitleaks.toml` allowlists scoped to gitleaks' {named} apply to its "
                    "findings of that kind.\n"
                )
            if rule.example:
                lines.append("Example of what it reports:\n")
                lines.append("```\n" + rule.example.rstrip("\n") + "\n```\n")
    return "\n".join(lines).rstrip("\n") + "\n"


def listing() -> list[tuple[str, str, str, str, str]]:
    """A row per rule: id, name, scope in a word (an 80-column listing leaves room for what a
    rule checks), default severity, the first sentence of its docs."""
    rules, _ = all_rules()
    return [
        (
            rule.id,
            rule.name,
            rule.scope.name.lower(),
            rule.severity.name.lower(),
            _first_sentence(rule.doc()),
        )
        for rule in sorted(rules, key=lambda r: r.id)
    ]


def _first_sentence(doc: str) -> str:
    """The docstring's first sentence, whole: a listing shows it, never a broken one."""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    for end in (". ", ": "):
        at = paragraph.find(end)
        if at > 0:
            return paragraph[: at + 1] if end == ". " else paragraph[:at] + "."
    return paragraph
