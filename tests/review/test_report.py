"""Reading a stored report: what `landwatch show`, the hooks' one line and notifications do, at
the cost of the report alone, with none of the detectors' patterns compiled."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from landwatch.review.findings import Finding, Severity, fingerprint
from landwatch.review.report import Report
from support.tokens import GITHUB_TOKEN

DETECTORS = {
    f"landwatch.review.secrets.{name}"
    for name in (
        "private_keys",
        "token_formats",
        "assignments",
        "credentials",
        "detectors",
        "scanning",
    )
}
READER = textwrap.dedent(f"""\
    import json, sys
    from landwatch.review.report import Report

    report = Report.from_dict(json.loads(sys.stdin.read()))
    loaded = sorted(name for name in sys.modules if name.startswith(("landwatch.", "pygit2")))
    from landwatch.review.secrets.redaction import redact_secrets

    redacted = redact_secrets('token = "{GITHUB_TOKEN}"')
    after = sorted(name for name in sys.modules if name.startswith("landwatch."))
    print(json.dumps([report.summary(), loaded, redacted, after]))
    """)


def test_reading_a_report_imports_the_redactor_but_no_detector() -> None:
    message = "GitHub personal access token"
    finding = Finding("S002", "token-format", Severity.ERROR, message, "ci.py", 1, None, "ghp_…")
    finding.fingerprint = fingerprint("S002", "ci.py", "ghp_…")
    stored = Report("0" * 40, None, "commit", "000000000000", ["S002"], [finding]).as_dict()
    shown = subprocess.run(
        [sys.executable, "-c", READER],
        input=json.dumps(stored),
        capture_output=True,
        text=True,
        check=True,
    )
    summary, loaded, redacted, after = json.loads(shown.stdout)
    assert summary == "1 error"
    assert "landwatch.review.secrets.redaction" in loaded  # findings hash with it
    assert not DETECTORS & set(loaded) and "pygit2" not in loaded
    # The first redaction brings the detectors in, and they find what they find.
    assert redacted == 'token = "ghp_…"' and set(after) >= DETECTORS
    assert Report.from_dict(stored).findings == [finding]
