"""The patch rules through the whole review, true and false positives side by side."""

from __future__ import annotations

from support.changes import Changes, executable, submodule, symlink
from support.review import found, reviewed


def test_trailing_whitespace_and_markdown_line_breaks(changes: Changes) -> None:
    change = changes.change(
        {
            "code.py": "ok = 1\nbad = 2  \ntab = 3\t\n",
            "notes.md": "a hard break  \nthree is too many   \n  \n",
        }
    )
    assert found(reviewed(change), "P001") == [
        ("P001", "code.py", 2),
        ("P001", "code.py", 3),
        ("P001", "notes.md", 2),
        ("P001", "notes.md", 3),
    ]


def test_missing_final_newline_but_not_for_symlinks(changes: Changes) -> None:
    branch = changes.branch()
    text = branch.land({"a.txt": "one\ntwo"})
    link = branch.land({"link": symlink("a.txt")}, "link")
    assert found(reviewed(text), "P002") == [("P002", "a.txt", 2)]
    assert found(reviewed(link), "P002") == []


def test_mixed_line_endings_only_when_the_change_mixes_them(changes: Changes) -> None:
    branch = changes.branch()
    change = branch.land({"mixed.txt": b"a\r\nb\n", "crlf.txt": b"a\r\nb\r\n"})
    assert found(reviewed(change), "P003") == [("P003", "mixed.txt", None)]
    change = branch.land({"mixed.txt": b"a\r\nb\nc\n"})  # mixed before: not reported again
    assert found(reviewed(change), "P003") == []


def test_conflict_markers_and_rst_headings(changes: Changes) -> None:
    change = changes.change(
        {
            "conflicted.py": "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> topic\n",
            "doc.rst": "Title\n=======\n\nText\n",
        }
    )
    assert found(reviewed(change), "P004") == [
        ("P004", "conflicted.py", 1),
        ("P004", "conflicted.py", 3),
        ("P004", "conflicted.py", 5),
    ]


def test_large_files_added_or_grown_and_lfs_exempt(changes: Changes) -> None:
    big = b"x" * (600 * 1024)
    branch = changes.branch()
    change = branch.land(
        {
            ".gitattributes": "*.bin filter=lfs diff=lfs merge=lfs -text\n",
            "data.csv": big,
            "model.bin": big,
            "small.csv": b"x" * 1000,
        }
    )
    assert found(reviewed(change), "P005") == [("P005", "data.csv", None)]
    change = branch.land({"small.csv": big})  # grew past the limit
    assert found(reviewed(change), "P005") == [("P005", "small.csv", None)]


def test_syntax_errors_in_json_toml_yaml_python(changes: Changes) -> None:
    branch = changes.branch()
    change = branch.land(
        {
            "bad.json": '{"a": 1,}\n',
            "good.json": '{"a": 1}\n',
            "bad.toml": "a = \n",
            "good.toml": "a = 1\n",
            "bad.yaml": "a: [1, 2\nb: 3\n",
            "cloudformation.yaml": "Resources:\n  Bucket:\n    Name: !Ref BucketName\n",
            "bad.py": "def f(:\n    pass\n",
            "good.py": "def f():\n    pass\n",
        }
    )
    assert sorted(found(reviewed(change), "P006")) == [
        ("P006", "bad.json", 1),
        ("P006", "bad.py", 1),
        ("P006", "bad.toml", 1),
        ("P006", "bad.yaml", 2),
    ]
    change = branch.land({"bad.json": '{"a": 2,}\n'})  # broken before: not reported again
    assert found(reviewed(change), "P006") == []


def test_a_github_actions_file_takes_no_yaml_tags(changes: Changes) -> None:
    """psf/black's a180c83 wrote `if: !cancelled()`, valid YAML (a tag) that GitHub refuses,
    and fixed it the same day as `${{ !cancelled() }}`. Tags stay fine in other YAML."""
    workflow = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    if: {}\n"
    branch = changes.branch()
    branch.land({".github/workflows/ci.yml": workflow.format("always()")})
    change = branch.land(
        {
            ".github/workflows/ci.yml": workflow.format("!cancelled()"),
            "tools/action.yml": "runs:\n  using: composite\n  steps: !Ref x\n",
            "deploy/.github/workflows/not-read.yml": workflow.format("!cancelled()"),
            "template.yaml": "Name: !Ref BucketName\n",
        }
    )
    assert sorted(found(reviewed(change), "P006")) == [
        ("P006", ".github/workflows/ci.yml", 5),
        ("P006", "tools/action.yml", 3),
    ]
    message = next(f.message for f in reviewed(change).findings if f.rule == "P006")
    assert "'!cancelled()', which GitHub refuses" in message
    mended = branch.land({".github/workflows/ci.yml": workflow.format("${{ !cancelled() }}")})
    assert found(reviewed(mended), "P006") == []


def test_debug_statements_in_python_only(changes: Changes) -> None:
    change = changes.change(
        {
            "app.py": "import pdb\npdb_helper = 1\nbreakpoint()\nfrom ipdb import set_trace\n"
            "import pydevd\n# import pdb\nx = 'import pdb'\n",
            "notes.txt": "import pdb\n",
        }
    )
    assert found(reviewed(change), "P007") == [
        ("P007", "app.py", 1),
        ("P007", "app.py", 3),
        ("P007", "app.py", 4),
        ("P007", "app.py", 5),
    ]


JAVASCRIPT = """\
debugger;
if (broken) debugger
  debugger // look here
// debugger;
/* debugger; */ run();
 * debugger;
log("debugger;");
const options = { debugger: true };
options.debugger = false;
const text = `debugger`;
function f() { debugger }
"""
RUBY = """\
binding.pry
  byebug
debugger
# binding.pry
puts "binding.pry"
debugger = Debugger.new
binding.irb if ENV["DEBUG"]
binding.break
@byebug.run
"""
PHP = """\
<?php
xdebug_break();
// xdebug_break();
# xdebug_break();
echo 'xdebug_break()';
$this->xdebug_break();
function xdebug_break() {}
  \\xdebug_break();
"""


def test_debug_statements_per_language_not_in_comments_or_strings(changes: Changes) -> None:
    change = changes.change(
        {
            "web/app.js": JAVASCRIPT,
            "web/types.ts": "  debugger;\n",
            "web/view.tsx": 'const label = "debugger";\n',
            "lib/task.rb": RUBY,
            "public/index.php": PHP,
            "README.md": "debugger;\nbinding.pry\nxdebug_break();\n",
            "tools/debug.go": "debugger;\n",
        }
    )
    assert sorted(found(reviewed(change), "P007")) == [
        ("P007", "lib/task.rb", 1),
        ("P007", "lib/task.rb", 2),
        ("P007", "lib/task.rb", 3),
        ("P007", "lib/task.rb", 7),
        ("P007", "lib/task.rb", 8),
        ("P007", "public/index.php", 2),
        ("P007", "public/index.php", 8),
        ("P007", "web/app.js", 1),
        ("P007", "web/app.js", 2),
        ("P007", "web/app.js", 3),
        ("P007", "web/app.js", 11),
        ("P007", "web/types.ts", 1),
    ]


def test_paths_that_clash_by_case_or_windows_cannot_hold(changes: Changes) -> None:
    change = changes.change(
        {"Readme.md": "y\n", "aux.c": "int x;\n", "docs/guide.md": "y\n", "ok.c": "x\n"},
        before={"README.md": "x\n", "docs/Guide.md": "x\n"},
    )
    assert sorted((path, rule) for rule, path, _ in found(reviewed(change), "P008")) == [
        ("Readme.md", "P008"),
        ("aux.c", "P008"),
        ("docs/guide.md", "P008"),
    ]


def test_executable_bit_versus_shebang(changes: Changes) -> None:
    change = changes.change(
        {
            "script.sh": "#!/bin/sh\necho hi\n",
            "tool": executable("echo no shebang\n"),
            "plain.sh": "#!/bin/sh\n",
            "run.sh": executable("#!/bin/sh\n"),
        }
    )
    assert sorted(found(reviewed(change), "P009")) == [
        ("P009", "plain.sh", None),
        ("P009", "script.sh", None),
        ("P009", "tool", None),
    ]


def test_new_submodule_and_symlink_turned_into_a_file(changes: Changes) -> None:
    library = changes.commit({"lib.c": "int x;\n"}, message="library\n")
    branch = changes.branch()
    added = branch.land(
        {
            ".gitmodules": '[submodule "lib"]\n\tpath = lib\n\turl = ../library\n',
            "lib": submodule(library),
            "link": symlink("target.txt"),
            "target.txt": "t\n",
        },
        "submodule and link",
    )
    assert found(reviewed(added), "P010") == [("P010", "lib", None)]
    unlinked = branch.land({"link": "target.txt"}, "a checkout without symlinks")
    report = reviewed(unlinked)
    assert found(report, "P011") == [("P011", "link", None)]
    assert "holding its old target" in report.findings[0].message


def test_json_with_comments_is_read_as_such(changes: Changes) -> None:
    jsonc = '{\n  // the compiler\n  "compilerOptions": { "strict": true, },\n  /* done */\n}\n'
    change = changes.change(
        {
            "tsconfig.json": jsonc,
            ".vscode/settings.json": jsonc,
            ".devcontainer/devcontainer.json": jsonc,
            "data.json": jsonc,  # plain JSON stays plain
            "broken.jsonc": '{\n  "a": 1\n  "b": 2\n}\n',
        }
    )
    assert found(reviewed(change), "P006") == [
        ("P006", "broken.jsonc", 3),
        ("P006", "data.json", 2),
    ]


def test_duplicate_keys_in_json_and_yaml(changes: Changes) -> None:
    ci = (
        "jobs:\n  test:\n    matrix:\n      python: [3.11]\n    steps: []\n"
        "    matrix:\n      python: [3.12]\nanchors: &a {k: 1}\nalias: *a\nmerged:\n  <<: *a\n"
    )
    branch = changes.branch()
    change = branch.land(
        {
            ".github/workflows/ci.yml": ci,
            "package.json": '{"name": "a",\n "scripts": {},\n "name": "b"}\n',
            "fine.yaml": "a: 1\nb:\n  a: 2\n",
            "settings.toml": "a = 1\na = 2\n",
        }
    )
    report = reviewed(change)
    assert found(report, "P012") == [
        ("P012", ".github/workflows/ci.yml", 6),
        ("P012", "package.json", 3),
    ]
    assert "'matrix' given twice" in next(f.message for f in report.findings if f.rule == "P012")
    assert found(report, "P006") == [("P006", "settings.toml", 2)]  # TOML forbids it outright
    # Already there before the change: not said again.
    again = branch.land({".github/workflows/ci.yml": ci + "more: 1\n"}, "again")
    assert found(reviewed(again), "P012") == []


def test_documents_nested_past_pythons_stack_are_reviewed_not_a_crash(changes: Changes) -> None:
    deep = "[" * 50_000 + "]" * 50_000 + "\n"
    lockfile = {"package-lock.json": '{"packages": {}}\n', "package.json": "{}\n"}
    files = {"package.json": deep, "settings.json": deep, "Cargo.toml": "x = " + deep}
    change = changes.change({**files, "a.txt": "x  \n"}, before=lockfile, message="deep\n")
    report = reviewed(change)
    assert [(rule, path) for rule, path, _ in found(report)] == [("P001", "a.txt")]


def test_documents_python_cannot_nest_or_convert_are_reviewed_not_a_crash(
    changes: Changes,
) -> None:
    long_number = "1" * 5_000  # past the 4300 digits Python converts from text
    lockfiles = {
        "package-lock.json": '{"packages": {}}\n',
        "package.json": "{}\n",
        "Cargo.lock": "\n",
    }
    files = {
        "deep.py": "x = a" + ".b" * 200_000 + "\n",  # RecursionError in the parser
        "unary.py": "x = " + "-" * 200_000 + "1\n",  # MemoryError in the parser
        "numbers.json": long_number + "\n",
        "numbers.toml": f"x = {long_number}\n",
        "package.json": f'{{"dependencies": {{"a": "1"}}, "n": {long_number}}}\n',
        "Cargo.toml": f'[dependencies]\na = "1"\n[package]\nn = {long_number}\n',
    }
    change = changes.change({**files, "a.txt": "x  \n"}, before=lockfiles, message="numbers\n")
    report = reviewed(change)
    assert [(rule, path) for rule, path, _ in found(report)] == [("P001", "a.txt")]
