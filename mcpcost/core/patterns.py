"""Regular expressions compiled when first used rather than when their module is imported.

Compiling a pattern costs 0.1 to 1 ms. A module-level ``re.compile`` is paid by every command
that imports the module, before its first line runs; an audit imports a dozen such modules before
it can start its first server, and most of their patterns are for input it may never see (a
comment in a config, a ``${VAR}``, a secret to mask). ``LazyPattern`` has the methods the package
uses of ``re.Pattern`` and compiles on the first call; after that a call costs one attribute
read more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    """``re.compile(source, flags)``, done on first use. Thread-safe: a race compiles twice and
    both threads get equal patterns (``re`` caches them too)."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, self.flags)
        return compiled

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled.sub(replacement, text)

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos)

    def findall(self, text: str) -> list[Any]:
        """Strings, or tuples of groups when the pattern has several, as ``re`` gives them."""
        return self.compiled.findall(text)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self.compiled.split(text, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self.source!r}, {self.flags!r})"
