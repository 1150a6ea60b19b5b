"""Every syntax a value is written in after a secret-like name, as one table: where each is tried
(what stands before the name), the pattern read at the name's end, and whether its value stands
bare, as code could write a name or an expression there, or is a literal (quoted, an element's).

Every pattern here runs in time linear in the line (docs/security.md, "Every scan is linear"):
each is tried once, at the end of a name, with quantifiers possessive or stopped by a character
they cannot take, and a quoted value ends at its own quote. They match ASCII-lowered text
(review.secrets.scanning.ascii_lower): case-insensitive matching is several times slower.
"""

from __future__ import annotations

import enum
import functools
import re
from typing import NamedTuple

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.secrets.values import LONGEST_VALUE


class Place(enum.Enum):
    """Where a name must stand for a syntax to be tried at its end."""

    ANYWHERE = enum.auto()
    STATEMENT = enum.auto()  # it begins the line, maybe after one keyword (#define, SET, ENV)
    # It begins a declaration: after a keyword that declares (ENV, ARG, export, #define), or
    # first on a line of a file of settings (a .properties file's `api.token …`).
    DECLARATION = enum.auto()
    ARGUMENT = enum.auto()  # a call's argument: after `f(` or a comma
    ELEMENT = enum.auto()  # an XML element's name: after `<`
    ATTRIBUTE = enum.auto()  # the value of a `key="…"` or `name="…"` attribute
    KEY_ELEMENT = enum.auto()  # the text of a `<key>` or `<name>` element
    FLAG = enum.auto()  # a command-line option: the name starts with `-`
    QUERY = enum.auto()  # a URL's query parameter: after `?`, `&`, `;` or `%26`
    TEMPLATE = enum.auto()  # a shell or compose variable: after `${`
    HEADER = enum.auto()  # an HTTP header given to curl, httpie or wget: `-H "X-Api-Key: …"`
    PAIR = enum.auto()  # a label naming a user and a password: after `ID/`, `user&`, `ID(`
    SETTINGS = enum.auto()  # anywhere on a line of a file of settings (.env, INI, YAML, .conf)

    # Members are singletons compared by identity: hashed by it too, in C. Enum's own hash is
    # Python code, and every name on a line asks for several.
    __hash__ = object.__hash__


class Syntax(NamedTuple):
    """One way a value is given to a name: `tail` is matched at the name's end; its value is the
    `value` group (bare when `bare`) or, when that did not take part, the quoted one. When one
    `alone` matches, the syntaxes after it are not tried (they would read the same value)."""

    what: str
    place: Place
    tail: LazyPattern[str]
    bare: bool = False
    alone: bool = False


QUOTED = r"(?:\"(?P<dq>[^\"]*+)\"|'(?P<sq>[^']*+)'|`(?P<bq>[^`]*+)`)"
QUOTE_GROUPS = ("dq", "sq", "bq")
# Every way a value is given to a name: assignments of many languages, a typed one
# (`token: str =`, Go's `var token string =`), a C array (`secret[] =`), and comparisons
# (`password == "…"`: the literal is the password, hard-coded), and Scala's pair
# (`"token" -> "…"`).
_OPERATOR = (
    r"(?:=>|->|:::=|::=|:=|\?=|\.=|\+=|\|\|=|\?\?=|<-|[!=]==?|=(?!=)"
    r"|:(?!:)(?:\s*+[A-Za-z_][\w\[\]., |\t]{0,80}?=(?!=))?)"
)
_TYPE = r"(?:\s++[a-z_][\w.\[\]*]{0,40}+\s*+(?==))?"
# The most a bare value runs to before what ends it: one longer is no secret (LONGEST_VALUE), and
# unbounded, a value holding the next names (`token:token:…`, `;token=;token=…`) was read to the
# line's end from each of them, in time quadratic in the line.
_MOST = f"{{0,{LONGEST_VALUE}}}+"
# A bare value after an operator, up to what ends it in code or in a file of settings. It holds
# no `=` but base64's padding: `token=token=…` must not make every name read to the end; one
# opening with YAML's syntax (`!tag`, `&anchor`, `*alias`, `|`) or a sigil is no scalar; an escape
# (`\n` in a JSON string that holds a file) ends it, as does a closing tag
# (`<environment>TOKEN=…</environment>`).
_BARE = (
    r"(?P<value>[^\s\"'`,;()\[\]{}<>=!&*|%@\\][^\s\"'`,;()\[\]{}<>=\\]" + _MOST + r"={0,2})"
    r"(?=$|[\s,;)\]}#\\<])"
)
# A bare value in a file of settings is a literal to the end of its word: brackets, `$` and
# `!` inside it are its characters, not a call or a subscript (`db_pass: k8(Tq]2v{9xZ)`); its
# start still may not be YAML's syntax or a sigil, and it holds no `=` but base64's padding. A
# stray quote or a comma may end it.
_SETTINGS_VALUE = (
    r"(?:[\"'`]\]?)?\s*+(?:=|:(?!:))\s*+"
    r"(?P<value>[^\s\"'`,;()\[\]{}<>=!&*|%@\\][^\s\"'`,;=\\]"
    + _MOST
    + r"={0,2})(?=$|[\s,;#\\\"'`])"
)
# After a name: its key's closing quote or subscript, an operator, maybe a call's parenthesis or
# a string prefix, then the quoted value; else (an alternative tried second) a bare one.
_ASSIGNMENT = (
    r"(?:(?:[\"'`]\]?|\]|\[\])?" + _TYPE + r"\s*+" + _OPERATOR + r"\s*+\(?\s*+[rbuf]{0,2}"
    r"" + QUOTED + r"|(?:[\"'`]\]?)?" + _TYPE + r"\s*+(?:=>|:=|=(?!=)|:(?!:))\s*+" + _BARE + ")"
)
# A word of prose or a log after its label: up to a space or a sentence's punctuation, its last
# full stop the sentence's (`the password is Tr0ub4dor&3.`).
_WORD = r"[^\s\"'`,;()\[\]{}<>|.]"
_PROSE_VALUE = r"(?P<value>" + _WORD + r"++(?:\." + _WORD + r"++)*+)\.?(?=$|[\s,;)])"
# A label in prose or a log: `the password is: …`, `token - '…'`, `password for admin: …`.
_PROSE = (
    r"(?:\s++for\s++[\w.@-]{1,40}+\s*+[:=]\s*+|\s++(?:is|was)(?:\s*+:)?\s++"
    r"|\s++(?:-|\u2013|\u2014)\s++)(?:" + QUOTED + "|" + _PROSE_VALUE + ")"
)
# A string continued on the next line (`key = """…`, `token = "…\`): what this line holds of it;
# and Python's triple-quoted string closed on its line (`key = '''…'''`), which QUOTED reads as
# an empty string and the rest.
_CONTINUED = (
    r"(?:[\"'`]\]?)?\s*+(?:=|:=|:(?!:))\s*+(?:\"{3}|'{3}|[\"'`])(?P<value>[^\s\"'`\\]++)"
    r"(?:\\?\s*+$|\"{3}|'{3})"
)
# A user and a password after a label naming both: `ID/PW: admin/…`, `(ID&PWD):admin/…`,
# `id/pass: admin,…`, maybe after a host (`ID/Pass: db01:admin/…`).
_PAIR = r"\)?\s*+:\s*+(?:[^\s/,():]++:)?[^\s/,():]++[/,(](?P<value>[^\s/,()]++)\)?(?=$|[\s,.;])"
# A statement naming the secret first, its value last: `#define PASSWORD "…"`, `SET password
# "…"`; bare only in a declaration: a Dockerfile's `ENV API_TOKEN …`, a .properties file's
# `api.token …` (in prose, `did pass through:` is a sentence).
_STATEMENT = r"\s++" + QUOTED + r"\s*+[;,]?\s*+$"
_DECLARATION = r"\s++(?P<value>[^\s\"'`,;()\[\]{}<>=\\]++)\s*+$"
# A default given where a secret-like name is read: `getenv("TOKEN") or "…"`, `env.TOKEN || "…"`.
_DEFAULT = r"[\"'`]?\s*+[)\]]?(?:\s++or\s++|\s*+(?:\|\||\?\?)\s*+)" + QUOTED
# XML: `<token attr="…">value</token>` on one line, and `key="password" value="…"` attributes.
# Its value is words apart by spaces, each taken whole: a lazy run before `\s*+</` would try the
# spaces again from each of them.
_ELEMENT_VALUE = r">\s*+(?P<value>[^<>\s]++(?:\s++[^<>\s]++)*+)\s*+</"
_ELEMENT = r"(?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+" + _ELEMENT_VALUE
# An element its `key`, `name` or `id` attribute names: `<entry key="password">…</entry>`,
# Android's `<string name="api_key">…</string>`.
_NAMED_ELEMENT = r"[\"'](?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+" + _ELEMENT_VALUE
# XML's `key="password" value="…"`, JSON's `"name": "password", "value": "…"`.
_ATTRIBUTE = (
    r"[\"'](?:\s++(?:value|password)\s*+=|\s*+,\s*+\"value\"\s*+:)\s*+[\"'](?P<value>[^\"']*+)[\"']"
)
# A `<key>` or `<name>` element naming the `<value>` (or a plist's `<string>`) after it:
# `<key>password</key><value>…</value>`, Hadoop's `<name>fs.s3a.secret.key</name><value>…`.
_KEY_ELEMENT = (
    r"\s*+</(?:key|name)>\s*+<(?:value|string)(?:\s++[\w:.-]++\s*+=\s*+\"[^\"]*+\")*+\s*+"
    + _ELEMENT_VALUE
)
_FLAG = r"(?:=|\s++)(?:" + QUOTED + r"|(?P<value>[^\s\"'`-][^\s\"'`]" + _MOST + r")(?![^\s\"'`]))"
_QUERY = r"(?:=|%3d)(?P<value>[^&#\s\"'<>%]" + _MOST + r")(?![^&#\s\"'<>%])"
# An HTTP header's value, to the header's closing quote: `-H "Private-Token: …"`.
_HEADER = r"\s*+:\s*+(?P<value>[^\s\"']++)\s*+[\"']"
# A shell or compose default: `${DB_PASSWORD:-…}`, `${TOKEN=…}`.
_TEMPLATE_DEFAULT = r":?[-=](?P<value>[^{}\s\"'`$]++)\}"

SYNTAXES: tuple[Syntax, ...] = (
    # `ID/PW: admin/…`: the password alone, not `admin/…` as an assignment would read it.
    Syntax(
        "user and password after a label naming both", Place.PAIR, lazy_compile(_PAIR), alone=True
    ),
    Syntax("assignment or key", Place.ANYWHERE, lazy_compile(_ASSIGNMENT), bare=True),
    Syntax(
        "bare literal in a file of settings",
        Place.SETTINGS,
        lazy_compile(_SETTINGS_VALUE),
        bare=True,
    ),
    Syntax("label in prose or a log", Place.ANYWHERE, lazy_compile(_PROSE), bare=True),
    Syntax("default where it is read", Place.ANYWHERE, lazy_compile(_DEFAULT)),
    Syntax("statement", Place.STATEMENT, lazy_compile(_STATEMENT)),
    Syntax("declaration", Place.DECLARATION, lazy_compile(_DECLARATION), bare=True),
    Syntax("call argument", Place.ARGUMENT, lazy_compile(r"[\"'`]?\s*+,\s*+" + QUOTED)),
    Syntax("XML element", Place.ELEMENT, lazy_compile(_ELEMENT)),
    Syntax("key and value attributes", Place.ATTRIBUTE, lazy_compile(_ATTRIBUTE)),
    Syntax("XML element its attribute names", Place.ATTRIBUTE, lazy_compile(_NAMED_ELEMENT)),
    Syntax("XML key and value elements", Place.KEY_ELEMENT, lazy_compile(_KEY_ELEMENT)),
    Syntax("command-line flag", Place.FLAG, lazy_compile(_FLAG), bare=True),
    Syntax("URL query parameter", Place.QUERY, lazy_compile(_QUERY)),
    Syntax("HTTP header on a command line", Place.HEADER, lazy_compile(_HEADER)),
    Syntax("default of a variable", Place.TEMPLATE, lazy_compile(_TEMPLATE_DEFAULT)),
    Syntax(
        "string continued on the next line, or triple-quoted",
        Place.ANYWHERE,
        lazy_compile(_CONTINUED),
    ),
)


@functools.cache
def tried(held: frozenset[Place]) -> tuple[Syntax, ...]:
    """The syntaxes tried at the end of a name standing where `held` says (places), in the
    table's order."""
    return tuple(syntax for syntax in SYNTAXES if syntax.place in held)


_STATEMENT_HEAD = lazy_compile(r"\s*+(?:(?P<keyword>[#%]?[a-z]++)\s++)?")
_DECLARING = frozenset(
    {"env", "arg", "export", "set", "setenv", "declare", "#define", "%define", "%global"}
)
_ATTRIBUTE_HEAD = lazy_compile(r"(?:(?:key|name|id)\s*+=|\"(?:name|key)\"\s*+:)\s*+[\"']$")
_QUERY_HEAD = ("?", "&", ";", "%26")
_HEADER_HEAD = lazy_compile(r"(?:-h|--header)\s*+[\"']$")
_PAIR_HEAD = lazy_compile(r"(?:id|user|name|login|account)\s*+[/&(]\s*+$")
_PAIR_MARKS = ("/", "&", "(")


def statement_start(lowered: str, *, literal_file: bool) -> tuple[int, int, bool, bool]:
    """Where a line's statement starts (after its indentation), where a name after its first
    word starts (`#define`, `set`, `env`: a keyword), whether that keyword declares, and whether
    a name first on the line declares (on a line of a file of settings)."""
    head = _STATEMENT_HEAD.match(lowered)
    if head is None or head["keyword"] is None:
        end = head.end() if head is not None else 0
        return end, end, False, literal_file
    return head.start("keyword"), head.end(), head["keyword"] in _DECLARING, literal_file


def places(lowered: str, start: int, statement: tuple[int, int, bool, bool]) -> frozenset[Place]:
    """Where a name starting at `start` of an ASCII-lowered line stands; `statement`: where the
    line's statement starts and what declares there (statement_start)."""
    before = lowered[max(0, start - 16) : start]
    if before.endswith("${"):
        return frozenset({Place.TEMPLATE})  # `${NAME:-…}` gives a default, no assignment
    held = {Place.ANYWHERE}
    first, after_keyword, keyword_declares, first_declares = statement
    if first_declares:
        held.add(Place.SETTINGS)
    if start in (first, after_keyword):  # `password "…"` (Gradle's), `#define PASSWORD "…"`
        held.add(Place.STATEMENT)
        if (start == first and first_declares) or (start == after_keyword and keyword_declares):
            held.add(Place.DECLARATION)
    # A call's argument: after `f(` (a tuple's parenthesis follows no name) or after a comma.
    opened = before.rstrip(" \"'`")
    if opened.endswith(",") or (opened.endswith("(") and opened[-2:-1].isalnum()):
        held.add(Place.ARGUMENT)
    if before.endswith("<"):
        held.add(Place.ELEMENT)
    # The heads below end with a quote, or a pair's mark and spaces: a line's names mostly
    # follow neither, and are spared the searches.
    if before.endswith(('"', "'")):
        if _ATTRIBUTE_HEAD.search(before):
            held.add(Place.ATTRIBUTE)
        if _HEADER_HEAD.search(before):
            held.add(Place.HEADER)
    if before.endswith(("<key>", "<name>")):
        held.add(Place.KEY_ELEMENT)
    if lowered.startswith("-", start):
        held.add(Place.FLAG)
    if before.endswith(_QUERY_HEAD):
        held.add(Place.QUERY)
    if before.rstrip().endswith(_PAIR_MARKS) and _PAIR_HEAD.search(before):
        held.add(Place.PAIR)
    return frozenset(held)


def value_span(syntax: Syntax, match: re.Match[str]) -> tuple[int, int, bool]:
    """(start, end, bare) of the value a syntax's match gives."""
    if "value" in match.re.groupindex and match["value"] is not None:
        return (*match.span("value"), syntax.bare)
    group = next(g for g in QUOTE_GROUPS if match[g] is not None)
    return (*match.span(group), False)
