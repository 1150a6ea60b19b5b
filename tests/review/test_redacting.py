"""A secret the secret rules know only by its place (a Kubernetes Secret's data, a `value:` under
`- name: DB_PASSWORD`, a bare value in a settings file) is redacted in every finding that shows its
line or quotes it, not only in the secret's own (review.redacting): P001's snippet, a linter's
message, the commit message's findings, the project hooks' words and fix; and no fingerprint is
made over it."""

from __future__ import annotations

import base64
import json
import random
import textwrap
from collections.abc import Callable
from pathlib import Path

from landwatch import layout
from landwatch.review import output
from landwatch.review.findings import fingerprint
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import Found
from support.daemon import run_reviewer
from support.project_hooks import committed_and_trusted, drained, hooks_of, local_hooks, tools
from support.repos import Repo
from support.review import review
from support.timing import cpu_seconds

IN_DATA = base64.b64encode(b"Hunter2xyzQ9Lk").decode()  # SHVu…
IN_STRING_DATA = "Mk7pQz2LxW9v"
UNDER_A_NAME = "Xk9fQ2mZp7Lw3RtYv"
IN_SETTINGS = "k8(Tq]2v{9xZ)w$"
QUOTED = "Wq4LmZ2pXv9tRw4kJ"


def secret_manifest(**data: str) -> str:
    """A Kubernetes Secret of `data`, each line with a trailing space (P001's)."""
    entries = "".join(f"  {name}: {value} \n" for name, value in data.items())
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: admin\ndata:\n{entries}"


# The audit's commit: no detector knows any of these values on its line alone.
PLACES = {
    "k8s/admin.yaml": secret_manifest(ADMIN=IN_DATA) + f"stringData:\n  LOGIN: {IN_STRING_DATA} \n",
    "k8s/dep.yaml": f"env:\n  - name: DB_PASSWORD\n    value: {UNDER_A_NAME} \n",
    "app.cfg": f"[db]\ndb_pass: {IN_SETTINGS} \n",
}
VALUES = (IN_DATA, IN_STRING_DATA, UNDER_A_NAME, IN_SETTINGS, QUOTED)


def shown(report: Report, where: str = "/repo") -> str:
    """Everything a report is written as: its JSON (the stored review, the git note) and SARIF."""
    return json.dumps(report.as_dict()) + json.dumps(output.as_sarif([report], Path(where)))


def test_a_secret_known_by_its_place_is_shown_by_no_other_finding_on_its_line(
    repo: Repo,
) -> None:
    repo.land("config", PLACES, hooks=False)
    report = review(repo)
    secrets = {(f.rule, f.path, f.line) for f in report.findings if f.rule in ("S003", "S004")}
    assert secrets == {
        ("S004", "k8s/admin.yaml", 6),
        ("S004", "k8s/admin.yaml", 8),
        ("S003", "k8s/dep.yaml", 3),
        ("S003", "app.cfg", 2),
    }
    whitespace = {(f.path, f.line): f.snippet for f in report.findings if f.rule == "P001"}
    assert whitespace == {
        ("k8s/admin.yaml", 6): "  ADMIN: SHVu… ",
        ("k8s/admin.yaml", 8): "  LOGIN: Mk7p… ",
        ("k8s/dep.yaml", 3): "    value: Xk9f… ",
        ("app.cfg", 2): "db_pass: k8(T… ",
    }
    assert not [value for value in VALUES if value in shown(report)]


# A linter that quotes the line it flags, as grep-style linters do.
ECHO = textwrap.dedent("""\
    [[linters]]
    name = "echo"
    command = ["grep", "-n", "value", "-"]
    files = ["deploy/*.yaml"]
    format = "regex"
    severity = "error"
    pattern = '^(?P<line>\\d+):(?P<message>.*)$'
    """)
ENV = f"env:\n  - name: API_TOKEN\n    value: {QUOTED}\n"


def test_a_linter_quoting_a_line_shows_no_secret_known_by_its_place(repo: Repo) -> None:
    repo.land("linted", {".landwatch.toml": ECHO, "deploy/env.yaml": ENV}, hooks=False)
    report = review(repo, linters=True)
    [quoted] = [f for f in report.findings if f.rule == "echo"]
    assert (quoted.line, quoted.message, quoted.snippet) == (
        3,
        "value: Wq4L…",
        "    value: Wq4L…",
    )
    assert QUOTED not in shown(report)


def test_show_its_forms_the_note_and_the_prompt_hold_no_secret_known_by_its_place(
    repo: Repo,
) -> None:
    """The audit's case end to end: the person's own linter quoting the line, the reviews
    written as git notes (shared with teammates), the one line in the prompt."""
    own = layout.OWN_CONFIG.path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(ECHO)
    repo.git("config", "landwatch.notes", "true")
    oid = repo.land("config", {**PLACES, "deploy/env.yaml": ENV})
    assert run_reviewer("--once").returncode == 0
    prompt = repo.landwatch("prompt").stdout
    assert prompt.startswith("landwatch: echo value: Wq4L… in deploy/env.yaml:3, +")
    said = [prompt, repo.git("notes", "--ref=landwatch", "show", oid)]
    said += [repo.landwatch("show", oid, *form).stdout for form in ((), ("--json",), ("--sarif",))]
    assert "  6 warning P001 trailing-whitespace: trailing whitespace" in said[2]
    assert "    │   ADMIN: SHVu… " in said[2]
    assert not [value for value in VALUES if any(value in out for out in said)]


TRIM = "id: trim\nname: trim line ends\nlanguage: script\nentry: scripts/trim.sh\n"
TRIM_SCRIPT = "#!/bin/sh\nfor f; do sed -i 's/[[:space:]]*$//' \"$f\"; done\n"
QUOTE = """\
id: quote
name: quote the values
language: system
entry: sh -c 'grep -Hn "value:" "$@" && exit 1; exit 0' --
"""


def test_the_project_hooks_words_and_fix_hold_no_secret_known_by_its_place(
    tmp_path: Path, repo: Repo
) -> None:
    """A fixing hook's finding and its patch (`show --patch`), and a hook that quotes the
    line, redact what the secret rules found on it, as the review's own findings do."""
    hooks = {".pre-commit-config.yaml": local_hooks(TRIM, QUOTE), "scripts/trim.sh": TRIM_SCRIPT}
    committed_and_trusted(repo, hooks)
    oid = repo.land("config", PLACES)
    drained(tools(tmp_path, "pre-commit"))
    result = hooks_of(repo, oid)
    quoted = {(f.path, f.line): f.message for f in result.findings if f.rule == "hook:quote"}
    assert quoted == {("k8s/dep.yaml", 3): "value: Xk9f…"}
    fixed = {(f.path, f.line): f.snippet for f in result.findings if f.rule == "hook:trim"}
    assert fixed["k8s/admin.yaml", 6] == "  ADMIN: SHVu… "
    assert "-  ADMIN: SHVu… \n+  ADMIN: SHVu…\n" in result.patch
    said = [json.dumps(result.as_dict()), repo.landwatch("show", oid, "--patch").stdout]
    said += [repo.landwatch("show", oid, *form).stdout for form in ((), ("--json",), ("--sarif",))]
    assert not [value for value in VALUES if any(value in out for out in said)]


def test_a_fingerprint_on_a_secret_s_line_confirms_no_guess(repo: Repo) -> None:
    """Two values alike in their first four characters (all a redaction shows) give P001 the
    same identity, alone or in a burst: it is made over the line as shown, run after run."""
    other = base64.b64encode(b"HunB7pXq4mZ9wK").decode()
    assert other[:4] == IN_DATA[:4] and other != IN_DATA
    identities = []
    base = repo.head()
    for admin in (IN_DATA, other, IN_DATA):
        repo.git("reset", "-q", "--hard", base)  # each one a commit adding both files whole
        single = secret_manifest(ADMIN=admin)
        burst = secret_manifest(A=IN_STRING_DATA, B=UNDER_A_NAME, ADMIN=admin, C=QUOTED)
        repo.land("secrets", {"one/s.yaml": single, "many/s.yaml": burst}, hooks=False)
        report = review(repo)
        assert admin not in shown(report)
        identities.append(
            sorted((f.path, f.line, f.fingerprint) for f in report.findings if f.rule == "P001")
        )
    assert identities[0] == identities[1] == identities[2]
    lines = [(path, line) for path, line, _ in identities[0]]
    assert lines == [("many/s.yaml", 6), ("one/s.yaml", 6)]  # the burst is one finding
    raw = fingerprint("P001", "one/s.yaml", f"  ADMIN: {IN_DATA} ")
    assert raw not in [identity for _, _, identity in identities[0]]


def test_a_value_found_in_one_file_is_hidden_in_every_other(repo: Repo) -> None:
    """Past the values searched one by one (16), each is still found in one pass over a text."""
    chosen = random.Random(5)
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
    values = {
        f"K{n}": base64.b64encode("".join(chosen.choices(alphabet, k=15)).encode()).decode()
        for n in range(40)
    }
    readme = "".join(f"{value} \n" for value in values.values())  # copies, none a finding's
    repo.land("many", {"k8s/s.yaml": secret_manifest(**values), "README": readme}, hooks=False)
    report = review(repo)
    assert len([f for f in report.findings if f.rule == "S004"]) >= 1
    text = shown(report)
    assert not [value for value in values.values() if value in text]
    [readme_burst] = [f for f in report.findings if f.path == "README"]
    first = next(iter(values.values()))
    assert readme_burst.snippet == first[:4] + "… "


def test_a_secret_in_the_message_is_shown_by_no_message_finding(repo: Repo) -> None:
    long_value = UNDER_A_NAME * 7  # a body line past M003's 100 characters
    message = (
        "Deploy the database\n\nThe env we used:\n"
        f"- name: DB_PASSWORD\n  value: {long_value}\n\nThat is all.\n"
    )
    repo.land(message, {"a.txt": "a\n"}, hooks=False)
    report = review(repo)
    found = {(f.rule, f.line): f.snippet for f in report.findings if f.path is None}
    assert found == {("S003", 5): "  value: Xk9f…", ("M003", 5): "  value: Xk9f…"}
    assert long_value not in shown(report)


def reading(found: Found, size: int) -> Callable[[], object]:
    """A read of a new text of `size` by `found` each time (it remembers each text's)."""
    chosen = random.Random(size)
    texts = iter(["".join(chosen.choices("ab", k=size)) for _ in range(TRIES)])
    return lambda: found.spans(next(texts))


TRIES = 2


def test_finding_the_values_takes_time_linear_in_the_text_however_many_there_are() -> None:
    """Each text is read once whatever the values (here 2,000, each one a prefix away from
    others): ten times the text takes about ten times as long, ten times the values not (each
    searched alone, ten times as long). Ten times the automaton's states cost cache misses
    alone: 1.9 times idle, 3.3 times in a clean clone's CI beside the other worker (stop 66),
    so the bound is 5, not 3: a test must not depend on the machine's caches."""
    chosen = random.Random(7)
    values = ["".join(chosen.choices("ab", k=24)) for _ in range(2000)]
    many, fewer = Found(values), Found(values[:200])
    long_time = cpu_seconds(reading(many, 200_000), TRIES)
    longer = long_time / max(cpu_seconds(reading(many, 20_000), TRIES), 1e-4)
    more = long_time / max(cpu_seconds(reading(fewer, 200_000), TRIES), 1e-4)
    assert longer < 30 and more < 5, (longer, more)
    text = "x" + values[0] + "y" + values[1][:-1] + "z" + values[2]
    assert [text[start:end] for start, end in many.spans(text)] == [values[0], values[2]]


def test_a_secret_continued_on_the_next_lines_is_shown_by_no_finding_there(repo: Repo) -> None:
    """An audit: S003 told (and hid) the first line's part of a password continued on the next
    line, by implicit concatenation or in a triple-quoted string; P001 on that next line showed
    the other half whole."""
    source = (
        'DB_PASSWORD = ("Aq1Bw2Ce3Dr4"\n'
        '               "Ft5Gy6Hu7Ji8")   \n'
        'API_TOKEN = """aB3xK9mQ2pL7\n'
        'vN4wR8sT6yU1"""   \n'
        'NAME = ("plain"\n'
        '        "words")   \n'
    )
    more = {
        "more.py": 'SECRET_KEY = "Pk7Lm2Nq9Rs4\\\nTv6Wx8Yz1Ab3"   \n',  # a backslash in it
        "more.js": 'const dbPassword = "Cd5Ef7Gh9Ij2"\n  + "Kl4Mn6Op8Qr1";   \n',
        "join.py": 'API_SECRET = "Uv3Wx5Yz7Ab9" \\\n    "Cd2Ef4Gh6Ij8"   \n',  # joined (round 3)
    }
    repo.land("continued", {"app.py": source, **more}, hooks=False)
    report = review(repo)
    told = {(f.rule, f.line) for f in report.findings}
    assert {("S003", 1), ("S003", 3), ("P001", 2), ("P001", 4), ("P001", 6)} <= told
    everything = shown(report)
    halves = ("Aq1Bw2Ce3Dr4", "Ft5Gy6Hu7Ji8", "aB3xK9mQ2pL7", "vN4wR8sT6yU1", "Tv6Wx8Yz1Ab3")
    for half in (*halves, "Kl4Mn6Op8Qr1", "Cd2Ef4Gh6Ij8"):
        assert half not in everything, half
    [plain] = [f for f in report.findings if (f.path, f.rule, f.line) == ("app.py", "P001", 6)]
    assert plain.snippet is not None and '"words")' in plain.snippet  # no secret continues
    # Nor is what follows a shell's `"…" \\`, another word, or a configuration in a string.
    repo.land(
        "not continued",
        {
            "run.sh": 'docker run -e DB_PASSWORD="Aq1Bw2Ce3Dr4" \\\n  "postgres" \\\n  x\n'
            + "export DB_PASS=Qz8Xw6Vu4Ts2\\\n  --network hostnet\n",
            "app.py": 'CONFIG = """password = Aq1Bw2Ce3Dr4x\nhost = db.example.com\n"""\n',
            "notes.txt": "run postgres at host = db.example.com --network hostnet   \n",
        },
        hooks=False,
    )
    [notes] = [f for f in review(repo).findings if f.path == "notes.txt"]
    assert notes.snippet == "run postgres at host = db.example.com --network hostnet   "
