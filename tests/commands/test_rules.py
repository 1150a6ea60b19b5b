"""`landwatch rules`: --explain says what the history taught the rules, and what the committed
configuration overrides, as the review applies it."""

from __future__ import annotations

from support.history import history
from support.repos import Repo


def test_rules_explain_says_what_was_learned(repo: Repo) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    shown = repo.landwatch("rules", "--explain")
    assert shown.returncode == 0, shown.stderr
    assert "learned from 35 commits" in shown.stdout  # HEAD itself is not learned from
    assert (
        "Conventional Commits: 97% of the newest 35 subjects (a tool's left out); M005 on"
        in shown.stdout
    )


def test_rules_explain_names_what_the_configuration_overrides_as_the_review_applies_it(
    repo: Repo,
) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    config = '[rules]\nconventional-commits = "info"\nM001 = "error"\n'  # M001: no max_length
    repo.land("configured", {".landwatch.toml": config}, hooks=False)
    shown = repo.landwatch("rules", "--explain")
    assert "(.landwatch.toml) sets M005: it wins" in shown.stdout  # by its name
    assert "M001, " not in shown.stdout  # its severity only: the learned length still applies
