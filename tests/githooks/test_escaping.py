"""The hook's one line shows a repository's text as text.safe shows it: bidirectional controls,
line separators and characters that take no room as escapes, spelled as text.safe spells them,
under any shell and locale; é and 日本 as they are (C0 and C1 controls: test_hook.py). The hook's
list of what hides is held equal to text.safe's decision for every code point."""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from landwatch.text import safe
from support.hook_script import HOOK, hook_functions
from support.repos import Repo

# A copied repository's `.git/config`: a right-to-left override turning the rest around, a
# zero-width space, a line separator, an invisible tag letter, joiners between ASCII letters
# (hidden) and inside a word of another script (kept), printable letters past ASCII.
HIDDEN = "\u202e006\u200b\u2028\U000e0041a\u200db é日\u200d本"
SHOWN = "\\u202e006\\u200b\\u2028\\U000e0041a\\u200db é日\u200d本"


def test_bidi_controls_and_invisible_characters_in_a_setting_are_escaped_in_the_line(
    repo: Repo,
) -> None:
    """A setting's text reorders or hides nothing of the line at the person's next commit."""
    repo.git("config", "landwatch.staleAfter", HIDDEN)
    repo.land("one")
    assert repo.said == (
        f"landwatch: git config landwatch.staleAfter = '{SHOWN}' is not a whole number of "
        "seconds (1 to 9 digits, no leading zero); landwatch uses 600\n"
    )


def code_points(hook: str, name: str) -> list[range]:
    """The hook's list `name` (lw_hidden, lw_joiners): hex code points and `lo-hi` ranges."""
    (listed,) = re.findall(rf"^{name}='([^']*)'$", hook, re.MULTILINE)
    ranges = []
    for each in listed.split():
        low, _, high = each.partition("-")
        ranges.append(range(int(low, 16), int(high or low, 16) + 1))
    return ranges


# Every code point UTF-8 spells (a surrogate is bytes that are not UTF-8 to the hook: \xNN).
CODE_POINTS = [code for code in range(0x110000) if not 0xD800 <= code < 0xE000]


@functools.cache
def hidden_by_safe(before: str) -> frozenset[int]:
    """The code points text.safe shows as an escape after the character `before`."""
    return frozenset(code for code in CODE_POINTS if safe(before + chr(code))[1:] != chr(code))


def later(code: int) -> bool:
    """Whether `code` is unassigned in this Python's Unicode and text.safe shows it as it is: a
    later Unicode's format character, which the hook may hide first."""
    return unicodedata.category(chr(code)) == "Cn" and safe(chr(code)) == chr(code)


def test_the_hook_hides_what_text_safe_hides_for_every_code_point() -> None:
    """After an ASCII letter and inside a word of another script (where a joiner is kept): the
    hook's controls, its lw_hidden and lw_joiners agree with text.safe. The hook may hide more
    only what this Python's Unicode has not assigned yet (a later one's format characters)."""
    hook = HOOK.read_text()
    hidden, joiners = code_points(hook, "lw_hidden"), code_points(hook, "lw_joiners")
    assert all(one.stop <= after.start for one, after in itertools.pairwise(hidden))  # in order
    listed = {code for each in hidden for code in each}
    joining = {code for each in joiners for code in each}
    for before in ("a", "日"):
        by_the_hook = listed | {code for code in range(0xA0) if code < 0x20 or code >= 0x7F}
        by_the_hook |= joining if ord(before) <= 0xFF else set()
        by_safe = hidden_by_safe(before)
        missed = sorted(by_safe - by_the_hook)
        more = [code for code in sorted(by_the_hook - by_safe) if not later(code)]
        assert ([f"{code:x}" for code in missed], [f"{code:x}" for code in more]) == ([], [])


def said_by_the_hook(shell: str, locale: str, text: str, tmp_path: Path) -> str:
    """What the hook's lw_say writes to the terminal of `text`, the hook run by `shell`."""
    functions = tmp_path / "hook-functions.sh"
    functions.write_text(hook_functions(HOOK.read_text()))
    said = subprocess.run(
        [shell, "-c", '. "$1" && lw_say "$2" 3>&1', "hook", str(functions), text],
        env={"PATH": "/usr/bin:/bin", "LC_ALL": locale},
        capture_output=True,
        check=True,
    )
    return said.stdout.decode()


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_hook_s_escaper_shows_each_range_s_edges_as_text_safe_does(
    shell: str, locale: str, tmp_path: Path
) -> None:
    """Run by the shell git runs it with, and by bash, whose [:print:] takes U+202E for
    printable under UTF-8 (a line of such characters went out as it was): the first and last
    code point of each run text.safe escapes and those beside them (C0 and C1 controls, the
    joiners after a space among them), joiners in a word, a byte that is not UTF-8."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    hidden = hidden_by_safe(" ")
    edges = {code for code in hidden if code - 1 not in hidden or code + 1 not in hidden}
    edges |= {near for code in edges for near in (code - 1, code + 1) if near not in hidden}
    shown = (code for code in sorted(edges - {0}) if code in CODE_POINTS and not later(code))
    text = " ".join(map(chr, shown))  # NUL no argument can hold
    text += " 日\u200d本 \U0001f468\u200d\U0001f469 \u2764\ufe0f \x1b[2J\x85 caf\udce9 é"
    text += " \u202e\u200d \U000e0041\u200c caf\udce9\u200d"  # a joiner after an escape
    assert said_by_the_hook(shell, locale, text, tmp_path) == f"landwatch: {safe(text)}\n"
    # With no control beside them (which alone took a line to the escaper).
    assert said_by_the_hook(shell, locale, "\u202e\u200b\U000e0041 é日本", tmp_path) == (
        "landwatch: \\u202e\\u200b\\U000e0041 é日本\n"
    )
    # A joiner after what is shown as an escape stands between ASCII characters: hidden.
    assert said_by_the_hook(shell, locale, "caf\udce9\u200d \u202e\u200d", tmp_path) == (
        "landwatch: caf\\xe9\\u200d \\u202e\\u200d\n"
    )
