"""`landwatch trust`'s first screen (commands.trust_screen), in a repository set up as
pallets/click is (ruff, uv and pre-commit-hooks at commit ids, a pyproject.toml of many tool
tables): it fits 80 columns and 24 lines, what runs first and what is pinned after; it says what
of a pyproject.toml is pinned as it is; the rest is behind the pager (less -FRX, in tmux at
80x24) or `--show`; nothing of the repository shown raw."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from landwatch.text import cells
from landwatch.wall.project_hooks.revs import RevError, local_path
from support.project_hooks import local_hooks
from support.repos import Repo
from support.secret_examples import AWS_KEY_ID
from support.terminal import Terminal
from support.tokens import github_token

CLICK_HOOKS = """\
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: c60c980e561ed3e73101667fe8365c609d19a438  # frozen: v0.15.9
    hooks:
      - id: ruff
      - id: ruff-format
  - repo: https://github.com/astral-sh/uv-pre-commit
    rev: 0397b68f6f88c024f1d2b355a9818779f6336d16  # frozen: 0.11.3
    hooks:
      - id: uv-lock
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: 3e8a8703264a2f4a69428a0aa4dcb512790b2c8c  # frozen: v6.0.0
    hooks:
      - id: check-merge-conflict
      - id: debug-statements
      - id: fix-byte-order-marker
      - id: trailing-whitespace
      - id: end-of-file-fixer
"""
TOOLS = ("flit", "pytest", "coverage", "mypy", "pyright", "ruff", "tox")
CLICK_PYPROJECT = '[project]\nname = "click"\nversion = "8.3.dev"\n\n' + "".join(
    f'[tool.{tool}]\nsetting = "{tool}"\nlisted = [\n    "a",\n    "b",\n]\n\n' for tool in TOOLS
)
ORDER = (
    "ruff, ruff-format",
    "uv-lock",
    "check-merge-conflict",
    "debug-statements",
    "fix-byte-order-marker",
    "trailing-whitespace",
    "end-of-file-fixer",
)


def click_like(repo: Repo) -> None:
    files = {
        ".pre-commit-config.yaml": CLICK_HOOKS,
        "pyproject.toml": CLICK_PYPROJECT,
        ".editorconfig": "root = true\n",
        "setup.cfg": "[flake8]\nmax-line-length = 88\n",
        "tox.ini": "[tox]\n",
        "src/click/__init__.py": "x = 1\n",
    }
    repo.land("as click is", files, hooks=False)


def unwrapped(text: str) -> str:
    """`text` without its spaces: a long path (a test's own directory) wraps where it must."""
    return "".join(text.split())


def fits(text: str) -> list[str]:
    """The rows of `text`, each asserted to fit 80 columns."""
    rows = text.splitlines()
    assert [row for row in rows if cells(row) > 80] == []
    return rows


def test_the_first_screen_fits_80_by_24_what_runs_first_what_is_pinned_after(repo: Repo) -> None:
    click_like(repo)
    refused = repo.landwatch("trust")  # no terminal: the first screen, not paged
    assert refused.returncode == 1 and "--yes" in refused.stderr
    rows = fits(refused.stdout)
    assert len(rows) + 1 <= 24  # and the question's row
    shown = refused.stdout
    at = [shown.index(ids) for ids in ORDER]
    assert at == sorted(at)  # in the order they run
    assert "github.com/astral-sh/ruff-pre-commit at c60c980e561e: ruff, ruff-format" in shown
    pinned = shown.index("then pinned by content (a change to any asks again): 5 files")
    assert pinned > at[-1]
    assert "  .editorconfig, .pre-commit-config.yaml, setup.cfg, tox.ini\n" in shown
    # What of pyproject.toml is pinned, said as it is: its [tool] tables, every one of them.
    assert (
        "  pyproject.toml: its [tool] tables, all 7 (whichever tool reads them): a change\n"
        in shown
    )
    assert "    to one asks again, not to [project]\n" in shown
    assert "nothing was trusted here before: 5 files, " in shown
    assert shown.endswith("every file and the diff: `landwatch trust --show`\n")
    assert "+[flake8]" not in shown  # the diff is behind --show
    whole = repo.landwatch("trust", "--show").stdout
    assert whole.startswith("landwatch: nothing is trusted in this repository\n")
    assert "+[flake8]" in whole and "+max-line-length = 88" in whole
    assert (
        "https://github.com/astral-sh/ruff-pre-commit at c60c980e561ed3e73101667fe8365c609d19a438"
        in whole
    )


def test_a_version_bump_asks_nothing_and_a_pyproject_too_large_to_read_is_pinned_whole(
    repo: Repo,
) -> None:
    click_like(repo)
    assert repo.landwatch("trust", "--yes").returncode == 0
    bumped = CLICK_PYPROJECT.replace('version = "8.3.dev"', 'version = "8.3.0"')
    repo.land("release", {"pyproject.toml": bumped}, hooks=False)
    assert "HEAD's project hooks are trusted here" in repo.landwatch("trust").stdout
    # Too large to read: pinned by its blob, whole, and said so.
    big = bumped + "[tool.big]\n" + "".join(f'k{n} = "{"x" * 100}"\n' for n in range(11000))
    repo.land("a big one", {"pyproject.toml": big}, hooks=False)
    shown = repo.landwatch("trust").stdout
    fits(shown)
    assert "  pyproject.toml: pinned whole (1,2" in shown
    assert "pinned by\n    its blob): any change to it asks again\n" in shown
    assert "trusted " in shown and "; changed since: " in shown


def test_many_hooks_are_cut_to_the_screen_and_nothing_is_shown_raw(repo: Repo) -> None:
    hooks = [f"id: check-{n}\nname: check\nlanguage: system\nentry: echo {n}" for n in range(40)]
    hooks[3] = 'id: "\\e]0;pwned\\a\\e[2J"\nname: x\nlanguage: system\nentry: "echo \\u202e"'
    repo.land("hooks", {".pre-commit-config.yaml": local_hooks(*hooks)}, hooks=False)
    shown = repo.landwatch("trust").stdout
    rows = fits(shown)
    assert len(rows) + 1 <= 24
    assert "  check-0: echo 0  [local; system]\n" in shown
    assert "... and " in shown and " more: `landwatch trust --show`" in shown
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "\\x1b]0;pwned\\x07\\x1b[2J: echo \\u202e" in shown
    whole = repo.landwatch("trust", "--show").stdout
    assert "check-39: echo 39" in whole and "\x1b" not in whole


def test_on_a_terminal_the_whole_is_paged_after_the_first_screen(
    tmp_path: Path, repo: Repo
) -> None:
    tmux, less = shutil.which("tmux"), shutil.which("less")
    if tmux is None or less is None:
        pytest.skip("tmux and less are Debian's packages: apt-get install tmux less")
    click_like(repo)
    # The repository's own configuration names no pager of ours: a copied .git could.
    planted = tmp_path / "planted"
    repo.git("config", "core.pager", f"touch {planted}; cat")
    terminal = Terminal(tmux, "sh", width=80, height=24)
    try:
        command = f"env -u GIT_PAGER -u LESS PAGER=less {sys.executable} -m landwatch trust"
        terminal.write(f"cd {repo.path} && clear && {command}")
        terminal.press("Enter")
        screen = terminal.shows(lambda shown: shown.rstrip().endswith(":"), "less's prompt")
        rows = screen.rstrip("\n").split("\n")[-24:]  # the window, without what scrolled out
        assert rows[0].startswith("landwatch: HEAD's project hooks")
        assert "ruff-pre-commit at c60c980e561e: ruff, ruff-format" in screen
        assert "pyproject.toml: its [tool] tables, all 7" in "\n".join(rows)
        assert "--show`" not in screen  # the whole follows, in the pager
        terminal.press("G")
        terminal.shows(lambda shown: "+[flake8]" in shown, "the end of the diff")
        terminal.press("q")
        terminal.shows(lambda shown: "[y/N]" in shown, "the question")
        terminal.write("n")
        terminal.press("Enter")
        terminal.shows(lambda shown: "landwatch: nothing trusted" in shown, "the answer")
    finally:
        terminal.close()
    assert not planted.exists()


def test_no_secret_a_repository_holds_is_shown_whole(repo: Repo) -> None:
    """What `trust` shows of a repository is redacted as every other output is: a key in a
    pinned configuration's text or diff, a token in a hook's command or its repository's URL."""
    token = github_token("Tr5t")
    hooks = [f'id: deploy\nname: deploy\nlanguage: system\nentry: "curl -H {token}"']
    files = {
        ".pre-commit-config.yaml": local_hooks(*hooks),
        "setup.cfg": f"[flake8]\nmax-line-length = 88\naws_access_key_id = {AWS_KEY_ID}\n",
        ".landwatch.toml": '[[linters]]\nname = "x"\ncommand = ["true"]\nformat = "regex"\n'
        'pattern = "^(?P<line>[0-9]+):(?P<message>.*)$"\n',
    }
    repo.land("with secrets", files, hooks=False)
    for args in (("trust",), ("trust", "--show"), ("trust", "--hooks", "--show")):
        shown = repo.landwatch(*args).stdout
        assert token not in shown and AWS_KEY_ID not in shown, args
    shown = (
        repo.landwatch("trust", "--show").stdout
        + repo.landwatch("trust", "--hooks", "--show").stdout
    )
    assert "AKIA…" in shown and "ghp_…" in shown


def test_no_secret_known_by_its_place_is_shown_whole(repo: Repo) -> None:
    """A value the secret rules know only by its place in a pinned file (a bare value in a
    settings file, a `value:` under `- name: DB_PASSWORD`), as committed and as trusted before,
    is redacted in what `trust` shows, as the review's findings redact it."""
    first, second, under_a_name = "k8(Tq]2v{9xZ)w$", "k8(TzP4r!Lw7qN", "Xk9fQ2mZp7Lw3RtYv"
    linter = '[[linters]]\nname = "x"\ncommand = ["true"]\nformat = "regex"\n'
    linter += 'pattern = "^(?P<line>[0-9]+):(?P<message>.*)$"\nfiles = ["*.py"]\n'
    files = {
        ".landwatch.toml": linter,
        "setup.cfg": f"[db]\ndb_pass: {first}\n\n[flake8]\nmax-line-length = 100\n",
        ".yamllint": f"env:\n  - name: DB_PASSWORD\n    value: {under_a_name}\n",
    }
    repo.land("with secrets", files, hooks=False)
    shown = repo.landwatch("trust", "--show").stdout
    assert "  +db_pass: k8(T…" in shown and "  +    value: Xk9f…" in shown
    assert first not in shown and under_a_name not in shown
    assert repo.landwatch("trust", "--yes").returncode == 0
    repo.land("another", {"setup.cfg": files["setup.cfg"].replace(first, second)}, hooks=False)
    shown = repo.landwatch("trust", "--show").stdout + repo.landwatch("trust").stdout
    assert "  -db_pass: k8(T…" in shown and "  +db_pass: k8(T…" in shown
    assert first not in shown and second not in shown


def test_a_hook_repository_the_build_is_not_shown_is_said_before_the_question(
    tmp_path: Path, repo: Repo
) -> None:
    """A person approved, and only a later report said the hooks did not run: a hook repository
    on this machine the build is not shown is said at trust, as the report would say it."""
    hooks = Repo(tmp_path / "hooks")  # a git repository, in /tmp all the same

    def naming(place: str) -> str:
        return f"repos:\n- repo: {place}\n  rev: HEAD\n  hooks: [{{id: x}}]\n"

    files = {
        ".pre-commit-config.yaml": naming(str(hooks.path)),
        "sub/.pre-commit-config.yaml": naming("/var/tmp"),  # prek reads it, pre-commit not
        ".pre-commit-config.yml": naming("/proc"),  # neither reads it: it refuses nothing
    }
    repo.land("hooks", files, hooks=False)
    said = []
    for place, tools in ((str(hooks.path), ""), ("/var/tmp", " with prek")):
        with pytest.raises(RevError) as raised:
            local_path(place, repo.path)
        said.append(f"landwatch: the hooks of .pre-commit-config.yaml will not run{tools}: ")
        said[-1] += str(raised.value)
    assert said[0].endswith(
        f"{hooks.path} is not shown to the environment build: it is in /tmp, "
        "never in the wall's sight"
    )
    asked = repo.landwatch("trust")  # no terminal: the first screen, then how to say yes
    assert asked.returncode == 1
    rows = fits(asked.stdout)
    assert len(rows) + 1 <= 24
    joined = " ".join(row.strip() for row in rows)
    assert all(unwrapped(line) in unwrapped(joined) for line in said), joined
    assert "the hook repository /proc" not in joined  # its hooks are listed, as what runs
    shown = repo.landwatch("trust", "--show").stdout.splitlines()
    assert all(line in shown for line in said)
    assert not any("the hook repository /proc" in row for row in shown)
    trusted = repo.landwatch("trust", "--yes").stdout.splitlines()
    assert all(unwrapped(line) in unwrapped("".join(trusted)) for line in said)
    # Trusted since: asked again, it still says which will not run.
    again = repo.landwatch("trust").stdout.splitlines()
    assert again[0].startswith("landwatch: HEAD's project hooks are trusted here")
    assert again[1:] == said
