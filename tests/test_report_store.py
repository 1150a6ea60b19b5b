"""Where reviews are kept (report_store): each report whole, durably, read back as written and
only under its own commit's name; unread markers for the reviews with something to say, newest
first, a rewritten commit's review told only for what its reader has not seen."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout, line_markers, report_store
from landwatch.review.findings import Finding, Severity, fingerprint, identity
from landwatch.review.project_hooks.results import HooksResult
from landwatch.review.report import Report
from support.queue import oid

T = 1_800_000_000  # an arbitrary injected "now", whole seconds


def finding(rule: str = "P001", severity: Severity = Severity.WARNING, line: int = 1) -> Finding:
    found = Finding(rule, "a-rule", severity, "something to fix", "a.py", line, None, "x = 1  ")
    found.fingerprint = fingerprint(rule, "a.py", f"x = {line}  ")
    return found


def report(number: int, *findings: Finding) -> Report:
    return Report(
        oid(number),
        None,
        "commit",
        oid(number)[:12],
        rules=["P001", "S002"],
        findings=list(findings),
        lines_checked=3,
        notes=["a note"],
        linters=[{"linter": "ruff", "path": "a.py", "status": "ok", "detail": ""}],
        started=float(T),
        duration=0.25,
    )


def test_a_report_is_kept_whole_and_read_back_as_written(git_dir: Path) -> None:
    first = report(1, finding(), finding("S002", Severity.ERROR, 2))
    path = report_store.write(git_dir, first)
    assert path == layout.report_file(git_dir, oid(1))
    assert report_store.read(git_dir, oid(1)) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    smaller = report(1)  # a repeat run overwrites it: the whole file is the new report
    report_store.write(git_dir, smaller)
    assert report_store.read(git_dir, oid(1)) == smaller
    assert json.loads(path.read_text()) == smaller.as_dict()
    assert sorted(os.listdir(path.parent)) == [f"{oid(1)}.json"]  # no temp file left


def test_a_report_filed_under_another_commits_name_is_not_its(git_dir: Path) -> None:
    report_store.write(git_dir, report(1, finding()))
    stolen = layout.report_file(git_dir, oid(2))
    stolen.write_bytes(layout.report_file(git_dir, oid(1)).read_bytes())
    assert report_store.stored(git_dir, oid(2))
    assert report_store.read(git_dir, oid(2)) is None
    for broken in (b"", b"{", b"[]", b'{"format": 1}', b'{"commit": null}'):
        stolen.write_bytes(broken)
        assert report_store.read(git_dir, oid(2)) is None, broken
    assert report_store.read(git_dir, oid(3)) is None and not report_store.stored(git_dir, oid(3))


def test_only_a_review_with_something_to_say_is_unread(git_dir: Path) -> None:
    report_store.write(git_dir, report(1))
    report_store.write(git_dir, report(2, finding("C002", Severity.INFO)))
    assert line_markers.unread(git_dir) == []
    report_store.write(git_dir, report(3, finding()))
    assert line_markers.unread(git_dir) == [oid(3)] and line_markers.is_unread(git_dir, oid(3))
    line_markers.mark_read(git_dir, oid(3))
    line_markers.mark_read(git_dir, oid(3))  # twice: nothing to do
    assert line_markers.unread(git_dir) == [] and not line_markers.is_unread(git_dir, oid(3))


# A report kept, then spoilt, each way a hand or a planted file could: each read as no report
# of ours (show says it cannot be read), never a traceback in show, its JSON or its SARIF.
SPOILT: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "a number past any count": lambda data: {**data, "lines_checked": 1e999},
    "a duration past any": lambda data: {**data, "duration": 1e999},
    "a finding at off": lambda data: {
        **data,
        "findings": [{**data["findings"][0], "severity": "off"}],
    },
    "a finding at no severity": lambda data: {
        **data,
        "findings": [{**data["findings"][0], "severity": 3}],
    },
    "a line that is text": lambda data: {
        **data,
        "findings": [{**data["findings"][0], "line": "1"}],
    },
    "a note that is a number": lambda data: {**data, "notes": [1]},
    "a label that is a number": lambda data: {**data, "label": 5},
    "a linter run with no linter": lambda data: {**data, "linters": [{"status": "x"}]},
    "a linter run that is text": lambda data: {**data, "linters": ["x"]},
    "findings that are no list": lambda data: {**data, "findings": {"a": 1}},
}
# Written as text: neither is made by json.dumps.
DEEP, LONG = "[" * 100_000 + "]" * 100_000, "1" + "0" * 5000


@pytest.mark.parametrize("spoilt", [*SPOILT, "nested past the stack", "a count too long to print"])
def test_a_report_spoilt_in_any_field_is_no_report_of_ours(git_dir: Path, spoilt: str) -> None:
    """An audit: a report truncated is read as none (show: "cannot be read"), but one whose
    fields were of another type, or nested past the stack, raised in show (RecursionError,
    OverflowError, KeyError, TypeError, AttributeError): a traceback for the commit, and for
    every other unread review in `show --unread`."""
    report_store.write(git_dir, report(1, finding()))
    kept = layout.report_file(git_dir, oid(1))
    text = kept.read_text()
    if spoilt == "nested past the stack":
        spoiled = text.replace('"notes": [', f'"notes": [{DEEP}, ', 1)
    elif spoilt == "a count too long to print":
        spoiled = text.replace('"lines_checked": 3', f'"lines_checked": {LONG}', 1)
    else:
        spoiled = json.dumps(SPOILT[spoilt](json.loads(text)))
    assert spoiled != text
    kept.write_text(spoiled)
    assert report_store.read(git_dir, oid(1)) is None and report_store.stored(git_dir, oid(1))


def test_the_unread_are_newest_first(git_dir: Path) -> None:
    for number in (1, 2, 3, 4):
        report_store.write(git_dir, report(number, finding()))
    unread = layout.UNREAD.path(git_dir)
    for number, written in ((1, T + 20), (2, T), (3, T + 30), (4, T + 20)):
        os.utime(unread / oid(number), (written, written))
    # The same moment: the later name first, as the one line lists them.
    assert line_markers.unread(git_dir) == [oid(3), oid(4), oid(1), oid(2)]
    assert [found.commit for found in report_store.unread_reports(git_dir)[0]] == [
        oid(3),
        oid(4),
        oid(1),
        oid(2),
    ]


def test_markers_of_reviews_that_say_nothing_are_dropped(git_dir: Path) -> None:
    report_store.write(git_dir, report(1, finding()))
    report_store.write(git_dir, report(2, finding()))
    line_markers.mark_unread(git_dir, oid(3))  # its report never written
    layout.report_file(git_dir, oid(2)).write_text(json.dumps(report(2).as_dict()))
    assert report_store.unread_reports(git_dir) == ([report_store.read(git_dir, oid(1))], [])
    assert line_markers.unread(git_dir) == [oid(1)]


def test_a_review_that_cannot_be_read_stays_unread_to_be_told(git_dir: Path) -> None:
    """An audit: a kept review truncated (or a FIFO in its place) was taken for one with no
    findings, and its marker dropped: `show --unread` said there were none, and the one line
    stopped telling a review that had findings (a secret's, maybe)."""
    report_store.write(git_dir, report(1, finding()))
    report_store.write(git_dir, report(2, finding()))
    layout.report_file(git_dir, oid(2)).write_text('{"commit": "')
    assert report_store.unread_reports(git_dir) == ([report_store.read(git_dir, oid(1))], [oid(2)])
    assert sorted(line_markers.unread(git_dir)) == sorted([oid(1), oid(2)])


def test_a_rewritten_commit_tells_only_what_was_not_seen(git_dir: Path) -> None:
    seen = report(1, finding())
    report_store.write(git_dir, seen)
    line_markers.mark_read(git_dir, oid(1))  # the one line told of it
    report_store.write(git_dir, report(2, finding()), replaces=[seen])
    assert line_markers.unread(git_dir) == []  # nothing new
    report_store.write(git_dir, report(3, finding(), finding(line=2)), replaces=[seen])
    assert line_markers.unread(git_dir) == [oid(3)]  # one finding is new
    not_told = report(4, finding("S002", Severity.ERROR))
    report_store.write(git_dir, not_told)
    report_store.write(git_dir, report(5, finding("S002", Severity.ERROR)), replaces=[not_told])
    assert not line_markers.is_unread(git_dir, oid(4))  # said once, for the one that replaced it
    assert line_markers.is_unread(git_dir, oid(5))


def test_a_squash_tells_only_what_none_of_the_reviews_it_replaced_told(git_dir: Path) -> None:
    """Of the several commits a squash replaced, each review read counts as seen; what one still
    unread held is told, once, naming the commit it replaced."""
    first, second = report(1), report(2, finding(line=2))
    for each in (first, second):
        report_store.write(git_dir, each)
    line_markers.mark_read(git_dir, oid(2))  # the one line told of the second
    report_store.write(git_dir, report(3, finding(line=2)), replaces=[first, second])
    assert line_markers.unread(git_dir) == []  # the first held none of it, the second told it
    unread = report(4, finding("S002", Severity.ERROR, 4))
    report_store.write(git_dir, unread)
    squash = report(5, finding(line=2), finding("S002", Severity.ERROR, 4))
    report_store.write(git_dir, squash, replaces=[second, unread])
    [told] = report_store.unread_told(git_dir)
    assert (told.commit, told.rule, told.replaces) == (oid(5), "S002", oid(4))
    assert not line_markers.is_unread(git_dir, oid(4))  # said once, for the squash
    # The project hooks' results of the commits a squash replaced, the same.
    seen = finding("hook:x", Severity.ERROR)
    report_store.write_hooks(git_dir, hooks_of(1))
    report_store.write_hooks(git_dir, hooks_of(2, seen))
    for told_of in (2, 5):
        line_markers.mark_read(git_dir, oid(told_of))
    report_store.write(git_dir, report(6))
    report_store.write_hooks(git_dir, hooks_of(6, seen), replaces=(oid(1), oid(2)))
    assert line_markers.unread(git_dir) == []


def test_the_line_names_the_worst_finding_not_seen_yet(git_dir: Path) -> None:
    seen = report(1, finding("S002", Severity.ERROR, 2))
    report_store.write(git_dir, seen)
    line_markers.mark_read(git_dir, oid(1))  # the one line told of it
    rewritten = report(2, finding("S002", Severity.ERROR, 2), finding(line=3))
    report_store.write(git_dir, rewritten, replaces=[seen])
    [told] = report_store.unread_told(git_dir)
    assert (told.commit, told.rule, told.path, told.line) == (oid(2), "P001", "a.py", 3)
    assert told.rest == "1 error"  # the error was told before: it is counted, not named
    report_store.write(git_dir, report(3, finding(line=1), finding("S002", Severity.ERROR, 4)))
    assert [(each.commit, each.rule) for each in report_store.unread_told(git_dir)] == [
        (oid(3), "S002"),
        (oid(2), "P001"),
    ]


def hooks_of(number: int, *findings: Finding) -> HooksResult:
    return HooksResult(oid(number), "ran", ["pre-commit 4.0.1"], list(findings), ["hooks ran"])


def test_the_hooks_result_joins_its_review_and_tells_once_what_is_new(git_dir: Path) -> None:
    report_store.write(git_dir, report(1, finding()))
    line_markers.mark_read(git_dir, oid(1))  # the review was told before the hooks were done
    hook = finding("hook:ruff", Severity.ERROR, 2)
    report_store.write_hooks(git_dir, hooks_of(1, hook))
    joined = report_store.read(git_dir, oid(1))
    assert joined is not None and joined.summary() == "1 error, 1 warning"
    assert joined.notes == ["a note", "hooks ran"]
    assert report_store.read_review(git_dir, oid(1)) == report(1, finding())
    [told] = report_store.unread_told(git_dir)
    assert (told.rule, told.line, told.rest) == ("hook:ruff", 2, "1 warning")
    assert sorted(os.listdir(layout.REPORTS.path(git_dir))) == [
        f"{oid(1)}.hooks.json",
        f"{oid(1)}.json",
    ]


def test_a_hooks_result_of_thousands_of_findings_is_joined_without_comparing_each_pair(
    git_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each finding was looked for in a list of the others: 20,000 of a hook's findings held the
    reviewer for over a minute. Findings are compared by a hashable identity instead."""
    review = [finding("P001", Severity.WARNING, line) for line in range(1, 3001)]
    hooks = [finding("hook:todo", Severity.ERROR, line) for line in range(1, 3001)]
    report_store.write(git_dir, report(1, *review))
    compared = []
    equal = Finding.__eq__

    def counted(one: Finding, other: object) -> bool:
        compared.append(1)
        return equal(one, other)

    monkeypatch.setattr(Finding, "__eq__", counted)
    report_store.write_hooks(git_dir, hooks_of(1, *hooks))
    assert len(compared) < 10 * (len(review) + len(hooks))
    [told] = report_store.unread_told(git_dir)
    assert (told.rule, told.line) == ("hook:todo", 1)


def test_findings_equal_as_the_dataclass_compares_them_have_one_identity() -> None:
    one, same = finding("P001", Severity.WARNING, 3), finding("P001", Severity.WARNING, 3)
    same.span, same.covers = (0, 4), ("a.txt",)  # not compared
    assert one == same and identity(one) == identity(same)
    for other in (finding("P002"), finding(severity=Severity.ERROR), finding(line=4)):
        assert one != other and identity(one) != identity(other)


def test_hooks_that_found_nothing_new_say_nothing(git_dir: Path) -> None:
    report_store.write(git_dir, report(1))
    report_store.write_hooks(git_dir, hooks_of(1, finding("hook:x", Severity.INFO)))
    assert line_markers.unread(git_dir) == []
    # A rebased commit whose hooks say what was seen of the commit it replaced: nothing.
    seen = finding("hook:x", Severity.ERROR)
    report_store.write_hooks(git_dir, hooks_of(1, seen))
    line_markers.mark_read(git_dir, oid(1))
    report_store.write(git_dir, report(2))
    report_store.write_hooks(git_dir, hooks_of(2, seen), replaces=(oid(1),))
    assert line_markers.unread(git_dir) == []
    # A teammate's commits by pull: told at error only.
    report_store.write(git_dir, report(3))
    report_store.write_hooks(git_dir, hooks_of(3, finding()), least=Severity.ERROR)
    assert line_markers.unread(git_dir) == []
    # No review (yet): the hooks join nothing, and say nothing.
    report_store.write_hooks(git_dir, hooks_of(4, seen))
    assert report_store.read(git_dir, oid(4)) is None and line_markers.unread(git_dir) == []


def test_a_review_or_hooks_result_kept_again_tells_only_what_was_not_seen(git_dir: Path) -> None:
    """An item run again (the queue runs each at least once) keeps its result again: what the
    line told of the first is not told again; what it did not tell yet, or what is new, is."""
    report_store.write(git_dir, report(1, finding()))
    line_markers.mark_read(git_dir, oid(1))  # told
    report_store.write(git_dir, report(1, finding()))
    assert line_markers.unread(git_dir) == []
    report_store.write(git_dir, report(1, finding(), finding("P004", Severity.ERROR, 2)))
    assert [told.rule for told in report_store.unread_told(git_dir)] == ["P004"]
    report_store.write(git_dir, report(1, finding(), finding("P004", Severity.ERROR, 2)))
    assert line_markers.unread(git_dir) == [oid(1)]  # not told yet: still to tell
    line_markers.mark_read(git_dir, oid(1))
    hook = finding("hook:x", Severity.ERROR, 3)
    report_store.write_hooks(git_dir, hooks_of(1, hook))
    line_markers.mark_read(git_dir, oid(1))
    report_store.write_hooks(git_dir, hooks_of(1, hook))
    assert line_markers.unread(git_dir) == []


def blocking_marker(git_dir: Path, number: int) -> str | None:
    marker = layout.BLOCKING.path(git_dir) / oid(number)
    return marker.read_text() if marker.exists() else None


def test_a_review_that_refuses_a_push_is_marked_for_the_gate_until_it_no_longer_does(
    git_dir: Path,
) -> None:
    report_store.write(git_dir, report(1, finding()))
    assert blocking_marker(git_dir, 1) is None  # a warning refuses nothing
    report_store.write(git_dir, report(1, finding("P010", Severity.ERROR)))
    assert blocking_marker(git_dir, 1) == "errors\n"  # only `landwatch.push.block errors`
    report_store.write(git_dir, report(1, finding("S002", Severity.ERROR)))
    assert blocking_marker(git_dir, 1) == "secrets\n"
    assert stat.S_IMODE((layout.BLOCKING.path(git_dir) / oid(1)).stat().st_mode) == 0o600
    report_store.write(git_dir, report(1, finding("S002", Severity.INFO)))  # moved, not new
    assert blocking_marker(git_dir, 1) is None
    # What the project's hooks said joins the review's marker, whichever is written last.
    report_store.write_hooks(git_dir, hooks_of(1, finding("hook:x", Severity.ERROR)))
    assert blocking_marker(git_dir, 1) == "errors\n"
    report_store.write(git_dir, report(1))
    assert blocking_marker(git_dir, 1) == "errors\n"
    report_store.write_hooks(git_dir, hooks_of(1))
    assert blocking_marker(git_dir, 1) is None
    # A review that did not read its whole change: the gate reads on before it lets it go.
    cut = report(1, finding())
    cut.truncated = True
    report_store.write(git_dir, cut)
    assert blocking_marker(git_dir, 1) == "unchecked\n"
    report_store.write_hooks(git_dir, hooks_of(1, finding("hook:x", Severity.ERROR)))
    assert blocking_marker(git_dir, 1) == "errors\n"
    report_store.write_hooks(git_dir, hooks_of(1))
    assert blocking_marker(git_dir, 1) == "unchecked\n"


def test_a_review_whose_hooks_have_not_said_is_marked_awaiting_until_they_do(
    git_dir: Path,
) -> None:
    def awaiting(number: int) -> bool:
        return (layout.AWAITING.path(git_dir) / oid(number)).is_file()

    report_store.write(git_dir, report(1, finding()), hold=True)  # the hooks run next
    assert awaiting(1)
    report_store.write_hooks(git_dir, HooksResult(oid(1), "waiting", notes=["no network"]))
    assert awaiting(1)  # they wait for their environments: still not said
    report_store.write_hooks(git_dir, hooks_of(1))
    assert not awaiting(1)
    report_store.write(git_dir, report(1, finding()), hold=True)  # reviewed again: they said
    assert not awaiting(1)
    report_store.write(git_dir, report(2), hold=True)
    report_store.release_held(git_dir, oid(2))  # they will not run on it
    assert not awaiting(2)
    report_store.write(git_dir, report(3))  # no hooks to run
    assert not awaiting(3)


def test_reviews_kept_before_the_gate_are_marked_at_install(git_dir: Path) -> None:
    for number, found in ((1, finding("P004", Severity.ERROR)), (2, finding()), (3, None)):
        report_store.write(git_dir, report(number, *([found] if found else [])))
    cut = report(5)
    cut.truncated = True
    report_store.write(git_dir, cut)
    for marker in layout.BLOCKING.path(git_dir).iterdir():
        marker.unlink()  # as an older landwatch kept them: no markers, none for a cut review
    layout.report_file(git_dir, oid(4)).write_text("{")  # a corrupt one is passed by
    assert report_store.mark_every_blocking(git_dir) == 2
    assert [blocking_marker(git_dir, n) for n in (1, 2, 3, 4, 5)] == [
        "secrets\n",
        None,
        None,
        None,
        "unchecked\n",
    ]
