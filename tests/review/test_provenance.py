"""What makes two reviews of one commit the same: the rules version, the same in every process
of one landwatch; the configuration hash, which follows the commit's landwatch configuration,
which linters run and how, and nothing else."""

from __future__ import annotations

import subprocess
import sys

from landwatch.review import provenance
from landwatch.review.change import open_repository, resolve
from landwatch.review.config import LinterConfig
from landwatch.review.linters import LinterPolicy
from support.repos import Repo

LINTER = '[[linters]]\nname = "lint"\ncommand = ["true"]\nformat = "ruff-json"\n'


def hash_of(repo: Repo, revision: str, policy: LinterPolicy | None = None) -> str:
    opened = open_repository(repo.git_dir)
    return provenance.config_hash(opened, resolve(opened, revision), policy or LinterPolicy())


def test_the_rules_version_is_one_landwatch_s_in_every_process() -> None:
    here = provenance.rules_version()
    there = subprocess.run(
        [
            sys.executable,
            "-c",
            "from landwatch.review import provenance as p; print(p.rules_version())",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert here == there and len(here) == 64


def test_the_configuration_hash_follows_what_decides_a_review(repo: Repo) -> None:
    first = repo.land("Add a", {"a.txt": "a\n"}, hooks=False)
    second = repo.land("Add b", {"b.txt": "b\n"}, hooks=False)
    assert hash_of(repo, first) == hash_of(repo, second)  # the same configuration
    configured = repo.land("Configure", {".landwatch.toml": "max_added_lines = 10\n"}, hooks=False)
    assert hash_of(repo, configured) != hash_of(repo, second)
    own = LinterPolicy(own=(LinterConfig("mine", ("true",), "ruff-json"),))
    assert hash_of(repo, configured, own) != hash_of(repo, configured)
