"""What the detectors share: the lines worth a look (those holding a detector's anchors), lower
case that keeps offsets, entropy, and what no real secret looks like (templates, runs, ellipses).
"""

from __future__ import annotations

import base64
import math
import operator
import string
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.checks import checksum_fails, checksum_holds

if TYPE_CHECKING:
    from landwatch.review.diffs import Line

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

# How docs cut a token short (`eyJhbGciOi...`, `sk_live_…`): never a usable one.
ELLIPSIS = ("...", "…")
# Templates and placeholders stand where a value will be: ${VAR}, {{ var }}, <your-token>, %(x)s.
# Each is whole (its closing brace too): a generated password may hold `${` or `{{` by chance.
# Every repeat stops at a brace, so a search costs one pass over the value.
PLACEHOLDER = lazy_compile(
    r"\$\{\s*+[A-Za-z_][\w.:-]*+(?:[:?+-][^{}]*+)?\}|\{\{[^{}]*+\}\}|\{%[^%]*+%\}|<%[^%]*+%>|#\{[^{}]*+\}|%\(\w++\)"
    r"|^\$[A-Za-z_({]|\$\([^()]*+\)|\{(?:[A-Za-z_][\w.]++|\d*+)\}|^<[^<>]++>$"
)
# A value encrypted for the repository, which is safe to commit: SOPS' `ENC[AES256_GCM,...]`,
# Jasypt's `ENC(...)`, HashiCorp Vault's transit `vault:v1:...`, Ansible Vault's header.
ENCRYPTED = lazy_compile(r"^(?:ENC\[|ENC\(|vault:v\d+:|\$ANSIBLE_VAULT;)")
# A Bitnami SealedSecret's value, wherever it is copied: base64 of the length of an RSA-wrapped
# session key (two bytes, big-endian: 256, 384 or 512 for RSA-2048/3072/4096), that key, then
# AES-GCM ciphertext and its 16-byte tag. Only the cluster's private key opens it.
_SEALED_KEY_SIZES = (256, 384, 512)
_GCM_TAG = 16
_BASE64 = lazy_compile(r"[A-Za-z0-9+/]++={0,2}")
# Six of one character in a row: a dummy (xxxxxx, 000000), not a generated secret.
REPEATED = lazy_compile(r"(.)\1{5}")
# What a person types where a token will go: a word saying so, as a person writes a word (`your`,
# `YOUR`, `Your`: a generated token holds `hErE` or `yoUR` by chance, 1 in 13,000 GitHub tokens
# did in any case: an audit), a run of a filler character (xxxxxx, ######), or six letters or
# digits in order (abcdef, 123456). Test-mode keys (sk_test_) are real credentials of a sandbox,
# and runs of other characters are real too (base64 of zero bytes: AAAAAAAA in Twitter's and
# Dropbox's tokens), unless they are half the token.
# Each as camel case spells it: every other spelling is made from it.
_WORDS = ["Example", "Sample", "Dummy", "PlaceHolder", "Fake", "Here", "Your", "ChangeMe"]
_WORDS += ["Redacted", "NotReal"]


def _camel(word: str) -> str:
    return word[0].lower() + word[1:]


_PLACEHOLDER_WORDS = lazy_compile(
    "|".join(
        spelt
        for word in _WORDS
        for spelt in dict.fromkeys((word.lower(), word.upper(), word.title(), word, _camel(word)))
    )
    + r"|([xX#*.])\1{5}"
)
# Six characters typed in order, either way: abcdef, 123456, 987654, zyxwvu. One search of
# their few dozen spellings, in C.
_ALPHABETS = ("abcdefghijklmnopqrstuvwxyz", "0123456789")
_ORDERED = lazy_compile(
    "|".join(
        alphabet[at : at + 6]
        for forward in _ALPHABETS
        for alphabet in (forward, forward[::-1])
        for at in range(len(alphabet) - 5)
    )
)
_RUN = lazy_compile(r"(.)\1{7,}")
# A stand-in written as a short unit again and again (`abcd1234abcd1234...`): no generator
# repeats itself three times over.
_LONGEST_UNIT = 8
# What hides the rest of a token a document shows: `xoxp-…####`, `ghp_****`.
MASKS = ("***", "###", "•••")


def sealed_ciphertext(value: str) -> bool:
    """Whether `value` is a SealedSecret's ciphertext: its first two bytes the size of an RSA
    key's output, and long enough to hold that and an AES-GCM tag (a generated secret starts so
    by chance three times in 65,536, and is never that long)."""
    if len(value) < 4 or not _BASE64.fullmatch(value):
        return False
    size = int.from_bytes(base64.b64decode(value[:4])[:2], "big")
    return size in _SEALED_KEY_SIZES and len(value) * 3 // 4 >= 2 + size + _GCM_TAG


def masked(text: str, end: int) -> bool:
    """Whether a value ending at `end` is followed by a mask or an ellipsis: the start of a
    token shown, its rest hidden, never a usable one."""
    return text.startswith(ELLIPSIS, end) or text.startswith(MASKS, end)


def periodic(value: str) -> bool:
    """Whether most of `value` is one short unit repeated three times or more, in any case."""
    folded = value.lower()
    size = len(folded)
    if len(set(folded)) > _LONGEST_UNIT + size // 3:
        return False  # too many different characters for a unit repeated over most of it
    for unit in range(1, _LONGEST_UNIT + 1):
        if size < unit * 3:
            break
        # The longest stretch where each character equals the one a unit before it (compared
        # by map in C: one byte a character, 1 where equal).
        equal = bytes(map(operator.eq, folded[unit:], folded))
        longest = max(map(len, equal.split(b"\x00")))
        if longest + unit >= max(unit * 3, size * 2 // 3):
            return True
    return False


def placeholder_token(value: str) -> bool:
    """Whether a token-shaped value is a stand-in, not a credential: `AKIA...EXAMPLE`,
    `xoxp-...####`, `sk_abcdefghijklmnop`, `dapi123456789...`, `abcd1234abcd1234...`, or one
    of a format with a checksum or a structure that fails it (review.secrets.checks). One whose
    checksum holds is the service's, whatever it holds by chance."""
    if checksum_holds(value):
        return False
    if _PLACEHOLDER_WORDS.search(value) or periodic(value) or checksum_fails(value):
        return True
    if any(len(run[0]) * 2 >= len(value) for run in _RUN.finditer(value)):
        return True
    return _ORDERED.search(value.lower()) is not None


def ascii_lower(text: str) -> str:
    """Lower case that keeps every offset: str.lower lengthens some non-ASCII characters."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def shannon_entropy(value: str) -> float:
    """Bits per character of `value` as its own character frequencies make it."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in Counter(value).values())


def lines_with(
    lines: Sequence[Line], needles: Iterable[bytes] = (), folded: Iterable[bytes] = ()
) -> dict[int, set[bytes]]:
    """The lines holding any of `needles`, or of `folded` ignoring case, by index: which ones."""
    # One substring scan of a joined buffer per needle is far cheaper than any per-line work,
    # and ordinary code seldom holds the needles.
    if not lines:
        return {}
    raws = [line.raw for line in lines]
    blob = b"\n".join(raws)
    folded = tuple(folded)
    lowered = blob.lower() if folded else b""
    lowered_raws: list[bytes] | None = None
    starts: list[int] | None = None
    hits: defaultdict[int, set[bytes]] = defaultdict(set)
    for haystack, needle in [*((blob, n) for n in needles), *((lowered, n) for n in folded)]:
        count = haystack.count(needle)
        if not count:
            continue
        if count * 16 > len(lines):
            # A needle on many lines (`token` in an auth module): testing each line costs
            # less than locating each occurrence in the buffer.
            if haystack is blob:
                per_line = raws
            else:
                lowered_raws = lowered_raws or lowered.split(b"\n")
                per_line = lowered_raws
            for index in [index for index, raw in enumerate(per_line) if needle in raw]:
                hits[index].add(needle)
            continue
        if starts is None:
            starts = [0, *accumulate(len(raw) + 1 for raw in raws)]
        at = haystack.find(needle)
        while at >= 0:
            index = bisect_right(starts, at) - 1
            hits[index].add(needle)
            at = haystack.find(needle, starts[index + 1])
    return hits
