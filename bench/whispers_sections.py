"""whispers' fixtures cut into labelled examples: a `compliant` section's units are not secrets,
a `noncompliant` one's planted values are, as its maintainers wrote them (bench/unseen_secrets.py).

A section opens at a line naming the label as a word of its own (`# Compliant`, `[noncompliant]`,
`<compliant>`, `"noncompliant": {`, `def compliant():`, `--- NONCOMPLIANT`). When the lines under
it are indented deeper it is a block and ends where the indentation comes back; otherwise it runs
to the next such line. Outside any section, a line whose own name holds the label
(`CompliantDBUser:`, `<noncompliantApiToken>`, `noncompliant1:x`) labels itself and the block
under it as one example.

Inside a section each unit is an example: a line, or the lines kept together (a private key from
BEGIN to END, lines continued by a backslash, a `key`/`value` pair, a value alone between an
element's opening and closing tags). Units that only open or close a structure, and those whose
every name only describes or stores a record (type, description, driver, table, column), are not.
A compliant unit is a negative as it stands; a noncompliant one is a secret only when it holds a
value the maintainers planted: one marked as theirs (`hardcoded`, `fake`, `h4rd`), a private key,
a number of twelve digits or more (accounts, cards, numeric keys), or a literal under a password,
secret or token name. Other noncompliant units (`auth = True` under an `if`) are left out, so no
label goes further than the maintainers' own."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

_LABEL = r"(non-?compliant|incompliant|compliant)"
# The label as a heading of its own: a comment, an INI header, a rule of dashes, an element, a
# key, a function or class of that name, or an element whose id it is.
SECTION = re.compile(
    r"^\s*(?:(?:#|//|;|<!--|-{3,}|\[|<|[\"'])\s*"
    r"|(?:(?:public|local|static|const|let|var|def|function|class|fun|func|void)\s+)+)?"
    + _LABEL
    + r"\s*(?:-->|\]|>|[\"']?\s*:\s*[\[{]?|\(\)\s*[{:]?|=.*|\{)?\s*$"
    r"|^\s*<[\w.:-]+\s+id=\"" + _LABEL + r"\">\s*$",
    re.IGNORECASE,
)
ITEM = re.compile(r"(non-?compliant|incompliant|compliant)", re.IGNORECASE)
# A marker written as a comment, an INI header or a rule of dashes: never a block of its own.
FLAT = re.compile(r"^\s*(#|//|;|<!--|\[|-{3,})")
PLANTED = re.compile(r"hardcoded|fake|h4rd", re.IGNORECASE)
LONG_NUMBER = re.compile(r"(?<![\w.])\d{12,}(?![\w.])")
CREDENTIAL_NAME = re.compile(r"pass|pwd|secret|token|credential", re.IGNORECASE)
LITERAL_AFTER = re.compile(r"[=:]\s*[\"']?(?!true\b|false\b|null\b|none\b)[^\s\"',;{}()]", re.I)
# Names that hold no credential: how a record is described or stored, never what unlocks it.
CONTEXT = re.compile(
    r"(?:[\w.-]*[_.-])?(?:description|type|info|driver(?:name)?|classname|realm|\w*table|\w*col|"
    r"image|adapter)\d*|c?l?s?u?id",
    re.IGNORECASE,
)
STRUCTURE = re.compile(
    r"""^\s*(?:[\]\[{}(),;]+|end|</?[\w.:-]+>|<[\w.:-]+(?:\s+[\w.:-]+="[^"]*")*>|"""
    r"""(?:-\s+)?["']?[\w.$ -]+["']?\s*:|.*[{\[(]|.*=>\s*\{)\s*[,;]?\s*$"""
)


@dataclass(frozen=True)
class Unit:
    """One example of a fixture: its first line (1-based), its text, and its label."""

    line: int
    text: str
    secret: bool


def indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def labelled_units(text: str) -> list[Unit]:
    """Every example of a fixture's `text`, labelled by the section or the name it sits under."""
    lines = text.splitlines()
    units: list[Unit] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        marker = SECTION.search(line)
        if marker is not None:
            end = _section_end(lines, number)
            secret = (marker[1] or marker[2]).lower() != "compliant"
            units.extend(_section_units(lines, number + 1, end, secret))
            number = end
            continue
        if ITEM.search(line) and line.strip():
            end = _block_end(lines, number)
            block = lines[number:end]
            if _has_value(block):
                label = ITEM.search(line)
                assert label is not None
                units.append(Unit(number + 1, _joined(block), label[1].lower() != "compliant"))
            number = end
            continue
        number += 1
    return units


def _next_text(lines: list[str], start: int) -> int:
    while start < len(lines) and not lines[start].strip():
        start += 1
    return start


def _section_end(lines: list[str], start: int) -> int:
    """Where the section opened at `start` ends: a block where its indentation comes back, a
    flat section at the next line naming a label."""
    first = _next_text(lines, start + 1)
    block = (
        not FLAT.match(lines[start])
        and first < len(lines)
        and indent(lines[first]) > indent(lines[start])
    )
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if not line.strip():
            continue
        if block and indent(line) <= indent(lines[start]):
            closer = STRUCTURE.match(line) and not SECTION.search(line)
            return number + 1 if closer else number
        if not block and SECTION.search(line):
            return number
    return len(lines)


def _block_end(lines: list[str], start: int) -> int:
    """The end of the block under a line that names its own label: where the indentation comes
    back (a closing line at the same depth included) or another labelled line begins."""
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if not line.strip():
            return number
        if ITEM.search(line):
            return number
        if indent(line) <= indent(lines[start]):
            closer = re.match(r"^\s*(</[\w.:-]+>|[}\]]+)[,;]?\s*$", line)
            return number + 1 if closer else number
    return len(lines)


def _joined(block: list[str]) -> str:
    return textwrap.dedent("\n".join(block)).strip("\n")


def _has_value(block: list[str]) -> bool:
    return any(LITERAL_AFTER.search(line) or re.search(r">[^<\s]", line) for line in block)


def names(line: str) -> list[str]:
    """The names a line gives its values: a key before `:` or `=`, an element, its attributes."""
    found = re.findall(r"([\w.:-]+)\s*=\s*[\"']", line)
    element = re.match(r"^\s*<([\w.:-]+)", line)
    if element:
        return [element[1], *found]
    key = re.match(
        r"""^\s*(?:-\s+)?(?:export\s+|ENV\s+|set\s+\$)?["']?([\w.$-]+)["']?\s*[:=\s]""", line
    )
    return [key[1], *found] if key else found


def _pair_name(first: str, second: str) -> str | None:
    """The name a `key`/`value` pair written over two lines gives its value."""
    if names(first)[:1] == ["key"] and names(second)[:1] == ["value"]:
        inner = re.search(r"""(?:key\s*:\s*|<key>)["']?([^"'<\s]+)""", first)
        return inner[1] if inner else ""
    return None


def _gather(lines: list[str], number: int, end: int) -> tuple[list[str], str | None]:
    """The lines of the unit that starts at `number`, and a pair's name if it is one."""
    line = lines[number]
    if "-----BEGIN" in line and "-----END" not in line:
        last = next((n for n in range(number, end) if "-----END" in lines[n]), end - 1)
        return lines[number : last + 1], None
    block = [line]
    while block[-1].rstrip().endswith("\\") and number + len(block) < end:
        block.append(lines[number + len(block)])
    if len(block) > 1:
        return block, None
    if number + 1 < end and (name := _pair_name(line, lines[number + 1])) is not None:
        return lines[number : number + 2], name
    opener = re.match(r"^\s*<([\w.:-]+)>\s*$", line)
    if opener and number + 2 < end:
        following = lines[number + 1 : number + 3]
        if "<" not in following[0] and following[1].strip() == f"</{opener[1]}>":
            return [line, *following], None
        if "-----BEGIN" in following[0]:
            inner, _ = _gather(lines, number + 1, end)
            after = number + 1 + len(inner)
            closing = [lines[after]] if after < end and f"</{opener[1]}>" in lines[after] else []
            return [line, *inner, *closing], None
    return block, None


def _section_units(lines: list[str], start: int, end: int, secret: bool) -> list[Unit]:
    units: list[Unit] = []
    number = start
    while number < end:
        if not lines[number].strip():
            number += 1
            continue
        block, pair = _gather(lines, number, end)
        text = _joined(block)
        if _is_example(block, pair) and (not secret or planted(text)):
            units.append(Unit(number + 1, text, secret))
        number += len(block)
    return units


def _is_example(block: list[str], pair: str | None) -> bool:
    """Whether a unit holds a value in a role a credential can have."""
    text = "\n".join(block)
    if PLANTED.search(text):
        return True
    if len(block) == 1 and STRUCTURE.match(block[0]):
        return False
    given = [pair] if pair is not None else [n for line in block for n in names(line)]
    return not given or not all(CONTEXT.fullmatch(name) for name in given)


def planted(text: str) -> bool:
    """A value the maintainers planted as a secret (see the module's docstring)."""
    if PLANTED.search(text) or LONG_NUMBER.search(text):
        return True
    if "-----BEGIN" in text and "PUBLIC" not in text:
        return True
    name = CREDENTIAL_NAME.search(text)
    return name is not None and LITERAL_AFTER.search(text, name.end()) is not None
