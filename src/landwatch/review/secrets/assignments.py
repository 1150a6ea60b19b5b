"""Values given to secret-like names, in every syntax of the table in review.secrets.syntaxes
(assignments and keys of every language and file of settings, statements, call arguments, XML,
flags, URL query parameters, labels in prose and logs, defaults), literals compared with one, and
XML elements on three lines; each judged as its name asks (review.secrets.values).

A name is one run of name characters, found once and looked up by its words, never matched from
each of its letters; each syntax is tried only at its end (docs/security.md, "Every scan is
linear").
"""

from __future__ import annotations

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.names import SECRET_NAME_NEEDLES, name_kind
from landwatch.review.secrets.scanning import ascii_lower
from landwatch.review.secrets.syntaxes import (
    QUOTED,
    Place,
    Syntax,
    places,
    statement_start,
    tried,
    value_span,
)
from landwatch.review.secrets.values import secret_value

__all__ = ["SECRET_NAME_NEEDLES", "assignments", "element_value", "value_spans"]

_NAME_RUN = lazy_compile(r"[\w.-]++")
_OPENING_ELEMENT = lazy_compile(
    r"\s*+<(?P<name>[\w:.-]++)(?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+>\s*+$"
)


def value_spans(text: str, *, literal_file: bool) -> list[tuple[str, int, int, bool]]:
    """(name, start, end, bare in code) of every value given to a secret-like name on a line,
    judged by none yet; `literal_file`: a file of settings, where a bare value is a literal."""
    lowered = ascii_lower(text)
    found: list[tuple[str, int, int, bool]] = []
    statement = statement_start(lowered, literal_file=literal_file)
    for run in _NAME_RUN.finditer(lowered):
        start = run.start()
        if start and lowered.startswith("%26", start - 1):
            start += 2  # a URL-encoded `&` before the name: its digits are no part of it
        name = text[start : run.end()].strip(".-")
        if name_kind(name) is None:
            continue
        for syntax in tried(places(lowered, start, statement)):
            if match := syntax.tail.match(lowered, run.end()):
                start, end, bare = value_span(syntax, match)
                found.append((name, start, end, bare and not literal_file))
                if syntax.alone:
                    break
    found.extend(_compared_first(text, lowered))
    return found


_LITERAL = lazy_compile(QUOTED)
_COMPARED = Syntax("literal compared with a name", Place.ANYWHERE, _LITERAL)
_COMPARED_TAIL = lazy_compile(r"\s*+[!=]==?\s*+(?P<name>[\w.$-]++)")


def _compared_first(text: str, lowered: str) -> list[tuple[str, int, int, bool]]:
    """Literals compared with a secret-like name written after them: `"…" == password`. The
    line's literals are found in one pass, each tried where it ends."""
    if "==" not in lowered and "!=" not in lowered:
        return []
    found = []
    for literal in _LITERAL.finditer(lowered):
        compared = _COMPARED_TAIL.match(lowered, literal.end())
        if compared is None:
            continue
        name = text[compared.start("name") : compared.end("name")].lstrip("$")
        if name_kind(name) is not None:
            found.append((name, *value_span(_COMPARED, literal)[:2], False))
    return found


def assignments(text: str, *, unquoted: bool, min_entropy: float) -> list[tuple[str, int, int]]:
    """(name, start, end) of each secret a secret-like name is given on a line, in order.
    `unquoted`: the file is one of settings (.env, INI, YAML), where a bare value is a literal
    and judged as a quoted one is; elsewhere a bare value counts only when no code could be it."""
    kept: dict[tuple[int, int], str] = {}
    for name, start, end, in_code in value_spans(text, literal_file=unquoted):
        kind = name_kind(name)
        if kind is None or (start, end) in kept:
            continue
        if secret_value(text[start:end], kind, min_entropy=min_entropy, in_code=in_code):
            kept[(start, end)] = name
    return [(name, start, end) for (start, end), name in sorted(kept.items())]


def element_value(
    opening: str, line: str, closing: str, *, min_entropy: float
) -> tuple[str, int, int] | None:
    """(name, start, end) of an XML element's value written on a line of its own between its
    opening and closing tags (`<apiToken>` / `  value` / `</apiToken>`), when it is a secret."""
    element = _OPENING_ELEMENT.match(opening)
    if element is None or (kind := name_kind(element["name"])) is None:
        return None
    if closing.strip() != f"</{element['name']}>":
        return None
    value = line.strip()
    if not value or not secret_value(value, kind, min_entropy=min_entropy, in_code=False):
        return None
    start = line.find(value)
    return element["name"], start, start + len(value)


# A name and its value on the line below: Kubernetes' and CI's `- name: DB_PASSWORD` (or
# `- key: …`) then `value: …`, a YAML literal whichever file holds it; XML's `<key>password</key>`
# (or `<name>…</name>`) then `<value>…</value>` (or a plist's `<string>…</string>`).
_NAME_LINE = lazy_compile(
    r"\s*+(?:(?:-\s++)?(?:name|key)\s*+:\s*+[\"']?(?P<name>[\w.-]++)[\"']?"
    r"|<(?P<tag>name|key)>(?P<element>[\w.-]++)</(?P=tag)>)\s*+$"
)
# A plain value runs through a `#` with no space before it (`Wq9#rT4m`: YAML's, an audit).
_VALUE_LINE = lazy_compile(
    r"\s*+value\s*+:\s*+(?:" + QUOTED + r"|(?P<value>[^\s\"'#|>]\S*+))\s*+(?:#.*+)?$"
)
_VALUE_ELEMENT = lazy_compile(
    r"\s*+<(?P<tag>value|string)>\s*+(?P<value>[^<>\s]++(?:\s++[^<>\s]++)*+)\s*+</(?P=tag)>\s*+$"
)
_BELOW = Syntax("value on the line below its name", Place.ANYWHERE, _VALUE_LINE)


def named_value(name_line: str, line: str, *, min_entropy: float) -> tuple[str, int, int] | None:
    """(name, start, end) of the value a `name:` or `<key>` line's next line gives it
    (`- name: TOKEN` / `value: …`, `<key>password</key>` / `<value>…</value>`), when it is a
    secret."""
    named = _NAME_LINE.match(name_line)
    if named is None:
        return None
    name = named["name"] or named["element"]
    if (kind := name_kind(name)) is None:
        return None
    match = (_VALUE_LINE if named["name"] else _VALUE_ELEMENT).match(line)
    if match is None:
        return None
    start, end, _ = value_span(_BELOW, match)
    if not secret_value(line[start:end], kind, min_entropy=min_entropy, in_code=False):
        return None
    return name, start, end
