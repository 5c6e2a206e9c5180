"""A count with its noun in the right number: "1 tool", "2 tools", "1 token", "0 servers".

Every sentence that puts a number before a noun builds it here, so no output says "1 tools".
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``word`` for a count of exactly one, else its plural (``many``, default ``word + "s"``)."""
    if count == 1:
        return word
    return many if many is not None else word + "s"


def counted(count: int, word: str, many: str | None = None, *, grouped: bool = True) -> str:
    """``count`` and its noun: ``2,378 tokens`` (``grouped=False``: ``2378 tokens``)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {plural(count, word, many)}"
