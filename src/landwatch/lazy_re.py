"""Regular expressions compiled at their first use rather than at import: a review by hand uses
about a tenth of the patterns the rule modules hold, and compiling the rest cost it ~16 ms.

`lazy_compile` takes what `re.compile` takes and answers the methods landwatch calls on a
pattern; `.pattern` and `.flags` are there without compiling, to build other patterns from.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """`re.compile(pattern, flags)`, done the first time it is matched (a race compiles it
    twice, harmlessly: the result is the same pattern)."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern, for an API that wants `re.Pattern` itself."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return (self._compiled or self.compiled).search(string, pos, endpos)

    def match(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return (self._compiled or self.compiled).match(string, pos, endpos)

    def fullmatch(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return (self._compiled or self.compiled).fullmatch(string, pos, endpos)

    def finditer(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[AnyStr]]:
        return (self._compiled or self.compiled).finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return (self._compiled or self.compiled).findall(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return (self._compiled or self.compiled).split(string, maxsplit)

    def sub(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> AnyStr:
        return (self._compiled or self.compiled).sub(repl, string, count)

    def subn(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> tuple[AnyStr, int]:
        return (self._compiled or self.compiled).subn(repl, string, count)


def lazy_compile(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """What `re.compile(pattern, flags)` gives, compiled when first matched."""
    return LazyPattern(pattern, flags)
