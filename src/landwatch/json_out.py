"""JSON for other programs (`--json`, `--sarif`, the notes shared with a team): every string valid
UTF-8, which strict parsers need, and a path's own bytes kept where they are not UTF-8.

A path git holds may be any bytes but NUL; landwatch reads one that is not UTF-8 with surrogate
escapes (os.fsdecode's), which JSON can write only as lone surrogates (`"\\udce9"`): Go's
encoding/json, jq and GitHub's SARIF upload refuse or mangle them, JavaScript's JSON.parse makes
an invalid string. Such a byte is written as landwatch shows it on a terminal (`\\xe9`), and
the path's exact bytes, percent-encoded (RFC 3986), beside it under `<key>_bytes`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from landwatch.text import well_formed


def strict_json(data: Any, *, exact: tuple[str, ...] = (), **options: Any) -> str:
    """`data` as JSON for other programs, whose strict parsers (Go's, jq, JavaScript's, GitHub's
    SARIF upload) refuse or mangle a lone surrogate: every string and key well_formed; a text
    under a key in `exact` (a path) with its own bytes beside it when it is not UTF-8."""
    return json.dumps(_well_formed_data(data, exact), **options)


def _well_formed_data(data: Any, exact: tuple[str, ...]) -> Any:
    if isinstance(data, str):
        return well_formed(data)
    if isinstance(data, list | tuple):
        return [_well_formed_data(item, exact) for item in data]
    if not isinstance(data, dict):
        return data
    formed: dict[Any, Any] = {}
    for key, value in data.items():
        if key in exact and isinstance(value, str):
            formed.update(with_bytes(key, value))
            continue
        name = well_formed(key) if isinstance(key, str) else key
        formed[name] = _well_formed_data(value, exact)
    return formed


# The key beside a text's that holds its own bytes, where they are not UTF-8 (with_bytes).
BYTES = "_bytes"


def with_bytes(name: str, text: str | None) -> dict[str, str | None]:
    """`text` under `name` for JSON: well_formed, and, when it is not UTF-8 (a path git allows,
    read with surrogate escapes), its own bytes percent-encoded under `name_bytes`."""
    shown = text if text is None else well_formed(text)
    if shown == text:
        return {name: text}
    return {name: shown, name + BYTES: percent_encoded(text or "")}


def read_with_bytes(data: dict[str, Any], name: str, most: int | None = None) -> str | None:
    """What `with_bytes` wrote under `name`, its own bytes again where `name_bytes` holds them.
    ValueError for anything else (what was stored is data): no text, longer than `most`
    characters, or with a lone surrogate no byte makes (a text read from bytes holds none)."""
    text, exact = data.get(name), data.get(name + BYTES)
    if exact is not None:  # then `name` is only what is shown
        if not (isinstance(exact, str) and exact.isascii() and isinstance(text, str)):
            raise ValueError(f"malformed {name}")
        from urllib.parse import unquote_to_bytes  # here: only a path not UTF-8 needs it

        text = unquote_to_bytes(exact).decode("utf-8", "surrogateescape")
    if text is None:
        return None
    if not isinstance(text, str) or (most is not None and len(text) > most):
        raise ValueError(f"malformed {name}")
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise ValueError(f"malformed {name}") from None
    return text


def typed(value: Any, kind: Any, name: str) -> Any:
    """`value`, read back from JSON kept as data, when it is a `kind` (a type or a union: `int |
    None`); ValueError naming `name` otherwise. A bool is no number; a number is finite, and
    an integer within 64 bits (a longer one is not even printed: Python's limit on digits)."""
    if (
        not isinstance(value, kind)
        or (isinstance(value, bool) and bool not in getattr(kind, "__args__", (kind,)))
        or (isinstance(value, float) and not math.isfinite(value))
        or (isinstance(value, int) and not -(2**63) <= value < 2**63)
    ):
        raise ValueError(f"malformed {name}")
    return value


def typed_list(value: Any, kind: Any, name: str) -> list[Any]:
    """`value` when it is a list of `kind`s (typed); ValueError naming `name` otherwise."""
    return [typed(each, kind, name) for each in typed(value, list, name)]


def percent_encoded(text: str) -> str:
    """`text`'s own bytes (a surrogate escape its byte) percent-encoded as RFC 3986 says, `/`
    kept: a URI's path (SARIF's artifactLocation.uri), or a path's bytes in JSON."""
    from urllib.parse import quote  # here: only SARIF and a path not UTF-8 need it

    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no byte makes: no path's, only data's
        raw = well_formed(text).encode("utf-8")
    return quote(raw, safe="/")
