"""A commit cannot loosen the secret rules for itself (review.rules_came_to): where its own
configuration or declarations let its secrets through, they are judged by the rules it came to
as well, in its review and so its blocking marker; the rest of its review is by the rules it
brings, and the commits after it come to them."""

from __future__ import annotations

import json

import pytest

from landwatch.review import blocking
from landwatch.review.findings import Severity
from landwatch.review.rules_came_to import BY_THE_RULES_IT_CAME_TO
from support.repos import Repo
from support.review import found, review
from support.tokens import github_token

# What a commit may bring to let its own secrets in deploy/ through, each what `landwatch ci`
# calls an error of the rules changed.
LOOSENING = {
    "excluded": {".landwatch.toml": 'exclude = ["deploy/**"]\n'},
    "turned-off": {".landwatch.toml": '[rules]\nS002 = "off"\n'},
    "lowered": {".landwatch.toml": '[rules]\nS002 = "warning"\n'},
    "allowed-paths": {".landwatch.toml": '[secrets]\nallow_paths = ["deploy/**"]\n'},
    "gitleaks": {".gitleaks.toml": "[allowlist]\npaths = ['''^deploy/''']\n"},
}


@pytest.mark.parametrize("how", LOOSENING)
def test_a_commit_s_own_configuration_lets_none_of_its_own_secrets_through(
    repo: Repo, how: str
) -> None:
    """A commit adding `exclude = ["deploy/**"]` (or turning S002 off, lowering it, allowing the
    path) beside a token in deploy/: its review said "no findings", no blocking marker was
    made, and the push gate's quick path sent it, while `landwatch ci` told the token."""
    token = github_token("Lw7c")
    files = {**LOOSENING[how], "deploy/settings.py": f'token = "{token}"  \n'}
    repo.land("Deploy settings", files, hooks=False)
    report = review(repo)
    [secret] = [finding for finding in report.findings if finding.rule == "S002"]
    assert (secret.path, secret.severity) == ("deploy/settings.py", Severity.ERROR)
    assert secret.message.endswith(BY_THE_RULES_IT_CAME_TO)
    assert blocking.marker(report.findings, whole=not report.truncated) == blocking.SECRETS
    [note] = [note for note in report.notes if "judged by the rules it came to" in note]
    assert note.startswith("1 secret finding judged by the rules it came to (those of ")
    assert token not in json.dumps(report.as_dict())
    # The other rules go by the configuration it brings: an excluded file is not theirs.
    assert bool(found(report, "P001")) == (how != "excluded")
    # The commits after it come to the rules it brought, as in CI once it is on the base.
    more = {"deploy/more.py": f'token = "{github_token("Mx2d")}"\n'}
    repo.land("More settings", more, hooks=False)
    later = [finding for finding in review(repo).findings if finding.rule == "S002"]
    assert all(finding.severity < Severity.ERROR for finding in later)


def test_a_commit_that_loosens_nothing_is_reviewed_once_by_its_own_rules(repo: Repo) -> None:
    """Raising a rule, or a change to the configuration that lets nothing more through, costs no
    second look: its own configuration's finding stands as it is."""
    token = github_token("Qa4e")
    files = {".landwatch.toml": '[rules]\nS002 = "error"\n', "a.py": f'token = "{token}"\n'}
    repo.land("Stricter", files, hooks=False)
    report = review(repo)
    [secret] = [finding for finding in report.findings if finding.rule == "S002"]
    assert BY_THE_RULES_IT_CAME_TO not in secret.message
    assert not any("judged by the rules it came to" in note for note in report.notes)
