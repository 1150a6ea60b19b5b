"""The whispers labeller of the unseen secret examples, on small fixtures written here in the
shapes whispers' maintainers label theirs (comment headings, XML elements, JSON objects, names)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from unseen_secrets import FIRST, UNTOUCHED, source_of, unseen_examples, whispers_examples
from whispers_sections import Unit, labelled_units


def labels(text: str) -> list[tuple[int, bool]]:
    return [(unit.line, unit.secret) for unit in labelled_units(text)]


def test_comment_headings_label_the_lines_under_them_until_the_next_heading() -> None:
    text = (
        "[server]\n"
        "# Compliant\n"
        "db.password=\n"
        "db.password=${DB_PASSWORD}\n"
        "\n"
        "# Noncompliant\n"
        "db.password=Plum7-hardcoded\n"
        "mail.token=Quince9-fake\n"
    )
    assert labels(text) == [(3, False), (4, False), (7, True), (8, True)]


def test_xml_sections_keep_a_key_block_and_a_key_value_pair_whole() -> None:
    text = (
        "<checks>\n"
        "  <compliant>\n"
        "    <token>{{ token }}</token>\n"
        "  </compliant>\n"
        "  <noncompliant>\n"
        "    <entry>\n"
        "      <key>db_password</key>\n"
        "      <value>Larch4-hardcoded</value>\n"
        "    </entry>\n"
        "    <signing>\n"
        "      -----BEGIN EC PRIVATE KEY-----\n"
        "      TWFkZUJ5SGFuZEZvclRoaXNUZXN0T25seQ==\n"
        "      -----END EC PRIVATE KEY-----\n"
        "    </signing>\n"
        "  </noncompliant>\n"
        "</checks>\n"
    )
    units = labelled_units(text)
    assert [(u.line, u.secret) for u in units] == [(3, False), (7, True), (10, True)]
    assert units[1].text == "<key>db_password</key>\n<value>Larch4-hardcoded</value>"
    assert units[2].text.splitlines()[0] == "<signing>"
    assert units[2].text.splitlines()[-1] == "</signing>"


def test_json_sections_end_where_their_object_closes() -> None:
    text = (
        "{\n"
        '  "compliant": {\n'
        '    "api_key": "API_KEY",\n'
        '    "hooks": [\n'
        '      "SECRET=${SECRET}"\n'
        "    ]\n"
        "  },\n"
        '  "noncompliant": {\n'
        '    "api_key": "Birch2-hardcoded",\n'
        '    "account": "424242424242"\n'
        "  },\n"
        '  "api_secret": "after-the-sections-hardcoded"\n'
        "}\n"
    )
    assert labels(text) == [(3, False), (5, False), (9, True), (10, True)]


def test_a_name_holding_the_label_labels_itself_and_its_block() -> None:
    text = (
        "Parameters:\n"
        "  CompliantAdminPassword:\n"
        "    Type: String\n"
        "    NoEcho: true\n"
        "  NoncompliantAdminPassword:\n"
        "    Type: String\n"
        "    Default: swordfish\n"
        "<noncompliantToken>Aspen8-fake</noncompliantToken>\n"
    )
    units = labelled_units(text)
    assert [(u.line, u.secret) for u in units] == [(2, False), (5, True), (8, True)]
    assert units[1].text == ("NoncompliantAdminPassword:\n  Type: String\n  Default: swordfish")


def test_structure_descriptions_and_unplanted_noncompliant_lines_are_no_examples() -> None:
    text = (
        "def compliant():\n"
        '    driver_type = "org.example.Driver"\n'
        '    key = get("API_KEY")\n'
        "    if ready:\n"
        "\n"
        "def noncompliant():\n"
        '    if secret == "Cedar3-hardcoded":\n'
        "        enabled = True\n"
        '    user = "admin"\n'
    )
    assert labelled_units(text) == [
        Unit(3, 'key = get("API_KEY")', False),
        Unit(7, 'if secret == "Cedar3-hardcoded":', True),
    ]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_a_whispers_clone_is_recognised_and_split_into_two_halves(tmp_path: Path) -> None:
    repo = tmp_path / "whispers"
    (repo / "whispers" / "rules").mkdir(parents=True)
    (repo / "whispers" / "rules" / "passwords.yml").write_text("password: {}\n")
    fixtures = repo / "tests" / "fixtures"
    fixtures.mkdir(parents=True)
    lines = "".join(f"pass{n} = Elm{n}-hardcoded\n" for n in range(40))
    (fixtures / "Dockerfile").write_text("# Compliant\nENV TOKEN $TOKEN\n# Noncompliant\n" + lines)
    (fixtures / "unlabelled.env").write_text("TOKEN=Fir1-hardcoded\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixtures")
    git_dir = repo / ".git"

    assert source_of(git_dir) == "whispers"
    examples = list(whispers_examples(git_dir))
    assert len(examples) == 41
    assert sum(e.secret for e in examples) == 40
    assert examples[0].path == "unseen/whispers/Dockerfile/2/Dockerfile"
    assert {e.rule for e in examples} == {"Dockerfile"}
    first, _ = unseen_examples([git_dir], FIRST)
    untouched, _ = unseen_examples([git_dir], UNTOUCHED)
    assert first and untouched
    assert sorted(e.id for e in first + untouched) == sorted(e.id for e in examples)
    assert all(e.half == FIRST for e in first)


def test_a_clone_of_no_known_source_is_said_in_one_line(tmp_path: Path) -> None:
    repo = tmp_path / "other"
    (repo / "tests" / "fixtures").mkdir(parents=True)
    (repo / "tests" / "fixtures" / "a.env").write_text("# Noncompliant\nTOKEN=x-hardcoded\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixtures")
    examples, problems = unseen_examples([repo / ".git"])
    assert examples == []
    assert problems == [f"{repo / '.git'}: not semgrep-rules, secretlint or whispers"]
