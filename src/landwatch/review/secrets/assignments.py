"""Values given to secret-like names, in the syntaxes projects write them: assignments of every
language (`=`, `:`, `:=`, `=>`, Makefile's `?=` `::=`, PHP's `.=`, Go's `var x string =`),
comparisons, keys of JSON, YAML and TOML, statements (`#define`, `SET`), call arguments
(`define('TOKEN', …)`, `setopt(curl, CURLOPT_PASSWORD, …)`), XML elements and key/value
attributes, command-line flags, URL query parameters, and bare values; each judged as its name
asks (review.secrets.values).

Every pattern here runs in time linear in the line (docs/security.md, "Every scan is linear"):
a name is one run of name characters, found once and looked up by its words, never matched
from each of its letters; each syntax is tried only at the end of a secret-like name, its
quantifiers possessive or stopped by a character they cannot take, and a quoted value ends at
its own quote.
"""

from __future__ import annotations

import re

from landwatch.review.secrets.names import SECRET_NAME_NEEDLES, name_kind
from landwatch.review.secrets.scanning import ascii_lower
from landwatch.review.secrets.values import secret_value

__all__ = ["SECRET_NAME_NEEDLES", "assignments", "element_value", "value_spans"]

_NAME_RUN = re.compile(r"[\w.-]++")
_QUOTED = r"(?:\"(?P<dq>[^\"]*+)\"|'(?P<sq>[^']*+)'|`(?P<bq>[^`]*+)`)"
_QUOTE_GROUPS = ("dq", "sq", "bq")
# Every way a value is given to a name: assignments of many languages, a typed one
# (`token: str =`, Go's `var token string =`), a C array (`secret[] =`), and comparisons
# (`password == "…"`: the literal is the password, hard-coded).
_OPERATOR = (
    r"(?:=>|:::=|::=|:=|\?=|\.=|\+=|\|\|=|\?\?=|<-|[!=]==?|=(?!=)"
    r"|:(?!:)(?:\s*+[A-Za-z_][\w\[\]., |\t]{0,80}?=(?!=))?)"
)
_TYPE = r"(?:\s++[a-z_][\w.\[\]*]{0,40}+\s*+(?==))?"
# After a name: its key's closing quote or subscript, an operator, maybe a call's parenthesis
# or a string prefix, then the quoted value. These match ASCII-lowered text (see ascii_lower):
# case-insensitive matching is several times slower.
_QUOTED_TAIL = re.compile(
    r"(?:[\"'`]\]?|\]|\[\])?" + _TYPE + r"\s*+" + _OPERATOR + r"\s*+\(?\s*+[rbuf]{0,2}" + _QUOTED
)
# A bare value after an operator, up to what ends it in code or in a file of settings. It
# holds no `=` but base64's padding: `token=token=…` must not make every name read to the end;
# one opening with YAML's syntax (`!tag`, `&anchor`, `*alias`, `|`) or a sigil is no scalar; an
# escape (`\n` in a JSON string that holds a file) ends it.
_BARE_TAIL = re.compile(
    r"(?:[\"'`]\]?)?" + _TYPE + r"\s*+(?:=>|:=|=(?!=)|:(?!:))\s*+"
    r"(?P<value>[^\s\"'`,;()\[\]{}<>=!&*|%@\\][^\s\"'`,;()\[\]{}<>=\\]*+={0,2})"
    r"(?=$|[\s,;)\]}#\\])"
)
# A statement naming the secret first: `#define PASSWORD "…"`, `SET password "…"`, `secret "…";`.
_STATEMENT_HEAD = re.compile(r"\s*+(?:[#%]?[a-z]++\s++)?")
_STATEMENT_TAIL = re.compile(r"\s++" + _QUOTED + r"\s*+[;,]?\s*+$")
# A call's argument naming the secret, then its value: `("TOKEN", "…")`, `(curl, CURLOPT_X, "…")`.
_ARGUMENT_TAIL = re.compile(r"[\"'`]?\s*+,\s*+" + _QUOTED)
# XML: `<token attr="…">value</token>` on one line, and `key="password" value="…"` attributes.
_ELEMENT_TAIL = re.compile(
    r"(?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+>\s*+(?P<value>[^<>\s][^<>]*?)\s*+</"
)
_ATTRIBUTE_HEAD = re.compile(r"(?:key|name)\s*+=\s*+[\"']$")
_ATTRIBUTE_TAIL = re.compile(r"[\"']\s++(?:value|password)\s*+=\s*+[\"'](?P<value>[^\"']*+)[\"']")
# A command-line flag's value: `--token=…`, `-secret …`, `--api-key "…"`.
_FLAG_TAIL = re.compile(r"(?:=|\s++)(?:" + _QUOTED + r"|(?P<value>[^\s\"'`-][^\s\"'`]*+))")
# A URL's query parameter: `?key=…&`, `&token%3D…%26` (URL-encoded).
_QUERY_HEAD = ("?", "&", ";", "%26")
_QUERY_TAIL = re.compile(r"(?:=|%3d)(?P<value>[^&#\s\"'<>%]++)")
_OPENING_ELEMENT = re.compile(
    r"\s*+<(?P<name>[\w:.-]++)(?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+>\s*+$"
)


def _quoted_span(match: re.Match[str]) -> tuple[int, int]:
    group = next(g for g in _QUOTE_GROUPS if match[g] is not None)
    return match.span(group)


def value_spans(text: str, *, literal_file: bool) -> list[tuple[str, int, int, bool]]:
    """(name, start, end, bare in code) of every value given to a secret-like name on a line,
    judged by none yet; `literal_file`: a file of settings, where a bare value is a literal."""
    lowered = ascii_lower(text)
    found: list[tuple[str, int, int, bool]] = []
    head = _STATEMENT_HEAD.match(lowered)
    statement_start = head.end() if head is not None else 0
    for run in _NAME_RUN.finditer(lowered):
        name = text[run.start() : run.end()].strip(".-")
        if name_kind(name) is None:
            continue
        found.extend(_after_name(text, lowered, run, name, literal_file, statement_start))
    found.extend(_compared_first(text, lowered))
    return found


def _after_name(
    text: str,
    lowered: str,
    run: re.Match[str],
    name: str,
    literal_file: bool,
    statement_start: int,
) -> list[tuple[str, int, int, bool]]:
    """The values a name found at `run` is given, in each syntax tried at its end."""
    end = run.end()
    found: list[tuple[str, int, int, bool]] = []
    if (quoted := _QUOTED_TAIL.match(lowered, end)) is not None:
        found.append((name, *_quoted_span(quoted), False))
    elif (bare := _BARE_TAIL.match(lowered, end)) is not None:
        found.append((name, *bare.span("value"), not literal_file))
    before = lowered[max(0, run.start() - 16) : run.start()]
    statement = _STATEMENT_TAIL.match(lowered, end) if statement_start == run.start() else None
    if statement is not None:
        found.append((name, *_quoted_span(statement), False))
    # A call's argument: after `f(` (a tuple's parenthesis follows no name) or after a comma.
    opened = before.rstrip(" \"'`")
    called = opened.endswith(",") or (opened.endswith("(") and opened[-2:-1].isalnum())
    if called and (argument := _ARGUMENT_TAIL.match(lowered, end)) is not None:
        found.append((name, *_quoted_span(argument), False))
    if before.endswith("<") and (element := _ELEMENT_TAIL.match(lowered, end)) is not None:
        found.append((name, *element.span("value"), False))
    if _ATTRIBUTE_HEAD.search(before) and (pair := _ATTRIBUTE_TAIL.match(lowered, end)):
        found.append((name, *pair.span("value"), False))
    if lowered.startswith("-", run.start()) and (flag := _FLAG_TAIL.match(lowered, end)):
        span = flag.span("value") if flag["value"] is not None else _quoted_span(flag)
        found.append((name, *span, flag["value"] is not None and not literal_file))
    if before.endswith(_QUERY_HEAD) and (query := _QUERY_TAIL.match(lowered, end)) is not None:
        found.append((name, *query.span("value"), False))
    return found


_LITERAL = re.compile(_QUOTED)
_COMPARED_TAIL = re.compile(r"\s*+[!=]==?\s*+(?P<name>[\w.$-]++)")


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
            found.append((name, *_quoted_span(literal), False))
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
