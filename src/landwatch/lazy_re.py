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

# The methods the compiled pattern answers itself once it exists.
_MATCHING = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


class LazyPattern(Generic[AnyStr]):
    """`re.compile(pattern, flags)`, done the first time it is matched (a race compiles it
    twice, harmlessly: the result is the same pattern)."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern, for an API that wants `re.Pattern` itself."""
        compiled: re.Pattern[AnyStr] | None = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            # From now on the pattern's own methods answer, found on the instance before the
            # class's: a scan's millions of matches make no call through this class.
            methods = {name: getattr(compiled, name) for name in _MATCHING}
            self.__dict__.update(methods, _compiled=compiled)
        return compiled

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.search(string, pos, endpos)

    def match(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> AnyStr:
        return self.compiled.sub(repl, string, count)

    def subn(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> tuple[AnyStr, int]:
        return self.compiled.subn(repl, string, count)


def lazy_compile(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """What `re.compile(pattern, flags)` gives, compiled when first matched."""
    return LazyPattern(pattern, flags)
