"""kinds.push_answer: what a failed `git push --porcelain` answered, read from its output as git
2.39 writes it: the remote's no, the gate's refusal in the hook, a hook's own words, or a remote
out of reach."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from landwatch.kinds.push_answer import Failed, RefusedInHook, Rejected, failed, holding
from landwatch.push_gate import REFUSAL
from landwatch.review.findings import Finding, Severity
from support.kinds import bare_remote
from support.repos import Repo
from support.tokens import random_text


def pushed(repo: Repo, *args: str, hook: str | None = None, **env: str) -> tuple[int, str, str]:
    """`git push --porcelain ARGS` in `repo` as the push kinds run it (no prompt), with `hook`
    as the only pre-push hook where one is given: its exit, stdout and stderr."""
    hooks = []
    if hook is not None:
        where = repo.path.parent / "persons-hooks"
        where.mkdir(exist_ok=True)
        (where / "pre-push").write_text(f"#!/bin/sh\ncat > /dev/null\n{hook}")
        (where / "pre-push").chmod(0o755)
        hooks = ["-c", f"core.hooksPath={where}"]
    ran = repo.run(*hooks, "push", "--porcelain", *args, GIT_TERMINAL_PROMPT="0", **env)
    return ran.returncode, ran.stdout, ran.stderr


def test_a_remote_s_no_is_rejected_behind_only_when_it_holds_what_was_not_fetched() -> None:
    out = "To /r.git\n!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)\nDone\n"
    err = "hint: Updates were rejected because the remote contains work\n"
    with pytest.raises(Rejected) as behind:
        failed("origin", "main", 1, out, err, False)
    assert behind.value.behind
    assert str(behind.value).startswith("origin rejected main: [rejected] (fetch first) (Updates")
    hook = "To /r.git\n!\trefs/heads/main:refs/heads/main\t[remote rejected] (pre-receive hook)\n"
    with pytest.raises(Rejected) as refused:
        failed("origin", "main", 1, hook, "", False)
    assert not refused.value.behind
    # Another push held the remote's ref at that moment (as git 2.39 says it, its lock taken).
    locked = "!\tHEAD:refs/notes/landwatch\t[remote rejected] (failed to update ref)\n"
    with pytest.raises(Rejected) as taking:
        failed("origin", "notes", 1, locked, "remote: error: cannot lock ref\n", False)
    assert taking.value.behind


def test_the_gate_s_refusal_in_the_hook_is_refused_in_hook() -> None:
    err = f"{REFUSAL} 1 commit holds a secret\nerror: failed to push some refs to '/r.git'\n"
    with pytest.raises(RefusedInHook) as refused:
        failed("origin", "main", 1, "", err, False)
    assert refused.value.said == err and "main" in str(refused.value)


def test_a_hook_s_own_words_are_the_reason_not_landwatch_s_nor_git_s_last_line() -> None:
    out = "check-wip.....Failed\n"
    err = "landwatch: pushing what was allowed\nerror: failed to push some refs to '/r.git'\n"
    with pytest.raises(RefusedInHook) as refused:
        failed("origin", "main", 1, out, err, False)
    assert not refused.value.gate and refused.value.words == "check-wip.....Failed"
    assert str(refused.value) == "a pre-push hook refused the push of main: check-wip.....Failed"


def test_a_push_git_began_to_send_is_no_hook_s_refusal() -> None:
    """git writes `To` once it sends; a pre-push hook refuses before it (git 2.39, exit 1)."""
    out = "To /r.git\ncheck-wip.....Failed\n"
    err = "error: failed to push some refs to '/r.git'\n"
    assert failed("origin", "main", 1, out, err, False) == Failed("check-wip.....Failed", False)
    silent = "error: failed to push some refs to '/r.git'\n"
    with pytest.raises(RefusedInHook, match="refused it, saying nothing"):
        failed("origin", "main", 1, "", silent, False)


@pytest.mark.parametrize(
    ("err", "timed_out", "unreachable"),
    [
        ("fatal: unable to access 'https://h/r.git/': Could not resolve host: h\n", False, True),
        ("ssh: connect to host h port 22: Connection refused\n", False, True),
        # git-lfs's pre-push hook, its upload out of reach: exit 1, no `To`, not a refusal.
        (
            'batch response: Post "https://h/info/lfs": dial tcp: lookup h: no such host\n',
            False,
            True,
        ),
        ("", True, True),
        ("fatal: the remote end hung up for another reason\n", False, False),
    ],
)
def test_a_remote_out_of_reach_mends_itself(err: str, timed_out: bool, unreachable: bool) -> None:
    said = failed("origin", "main", 1 if "lfs" in err else 128, "", err, timed_out)
    assert said.unreachable is unreachable
    assert said.message == ("no answer" if timed_out else err.strip())


def test_what_a_remote_git_or_a_hook_says_is_redacted_before_anyone_keeps_it() -> None:
    """Each answer is kept (the push state, the reviewer's state file and log) and shown
    (status, the hooks' line): a token a remote's or a hook's refusal names, or the password
    of a URL git names, was kept and shown whole."""
    token, password = "glpat-" + random_text("answer", 20), random_text("password", 16)
    rejected = f"To /r.git\n!\trefs/heads/main:refs/heads/main\t[remote rejected] ({token})\n"
    with pytest.raises(Rejected) as remote:
        failed("origin", "main", 1, rejected, "", False)
    with pytest.raises(RefusedInHook) as hook:
        failed("origin", "main", 1, f"scan: DEPLOY_TOKEN={token} found\n", "", False)
    err = f"fatal: unable to access 'https://bob:{password}@h/r.git/': Could not resolve host\n"
    unreachable = failed("origin", "main", 128, "", err, False)
    said = [str(remote.value), str(hook.value), hook.value.words, unreachable.message]
    assert [words for words in said if token[6:] in words or password in words] == []
    assert "(glpa…)" in said[0] and said[2] == "scan: DEPLOY_TOKEN=glpa… found", said
    assert unreachable.unreachable and "https://bob:…@h/r.git/" in said[3]  # its user info


def test_a_tag_is_named_by_its_name_escaped(repo: Repo) -> None:
    """A tag push.followTags took along was named by its object's id, which nobody knows it by;
    its name is the repository's text, escaped as all of it is."""
    repo.git("tag", "-a", "v1\u202egnp", "-m", "a release")
    tag = repo.git("rev-parse", "refs/tags/v1\u202egnp")
    repo.git("tag", "light")  # a lightweight tag names the commit, not a tag
    found = Finding("S002", "github-token", Severity.ERROR, "GitHub token")
    assert holding([(tag, found)], repo.git_dir).startswith("tag v1\\u202egnp holds S002 ")
    commit = repo.head()
    assert (
        holding([(commit, found)], repo.git_dir)
        == f"{commit[:10]} holds S002 GitHub token at message"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("refs/heads/gone:refs/heads/gone",), "error: src refspec refs/heads/gone does not match"),
        (("refs/heads/main:refs/heads/x:",), "fatal: invalid refspec 'refs/heads/main:refs/"),
    ],
    ids=["branch-gone", "invalid"],
)
def test_git_s_own_error_on_what_it_was_asked_is_quoted_not_blamed_on_a_hook(
    repo: Repo, tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """A refspec git cannot push (a branch deleted before its push ran): git says so before it
    runs any pre-push hook, exit 1 and no `To`, and that was told as a hook's refusal ("a
    pre-push hook refused the push of gone: error: src refspec ..."), held back, not failed."""
    remote = bare_remote(tmp_path / "remote.git")
    code, out, err = pushed(repo, "--", str(remote), *args, hook="exit 0\n")
    answer = failed("origin", "gone", code, out, err, False)
    assert answer.message.startswith(said) and not answer.unreachable, answer


@pytest.mark.parametrize(
    "words",
    [
        "psycopg.OperationalError: connection to 127.0.0.1:5432 failed: Connection refused",
        "requests.exceptions.ConnectionError: Could not resolve host: api.test",
        "fatal: unable to access 'https://h/x/': Could not resolve host: h",
    ],
)
def test_a_hook_s_failure_in_network_words_is_its_refusal_not_the_remote_out_of_reach(
    repo: Repo, tmp_path: Path, words: str
) -> None:
    """The person's pre-push tests failing to reach their own database: "Connection refused"
    anywhere in what git printed was taken for the remote out of reach, retried with back-off
    for ever. git ran the hook, so it had reached the remote: the hook refused, in its words."""
    remote = bare_remote(tmp_path / "remote.git")
    code, out, err = pushed(
        repo, "--", str(remote), "main", hook=f"echo {shlex.quote(words)} >&2\nexit 1\n"
    )
    with pytest.raises(RefusedInHook) as refused:
        failed("origin", "main", code, out, err, False)
    assert not refused.value.gate and refused.value.words == words


@pytest.mark.parametrize(
    "place", ["https://127.0.0.1:9/r.git", "ssh://127.0.0.1:9/r.git", "/nowhere/r.git"]
)
def test_git_s_own_lines_on_a_remote_out_of_reach_are_out_of_reach(repo: Repo, place: str) -> None:
    code, out, err = pushed(repo, "--", place, "main", GIT_SSH_COMMAND="ssh -o BatchMode=yes")
    assert failed("origin", "main", code, out, err, False).unreachable, (code, err)
