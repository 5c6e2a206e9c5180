"""Deterministic slices of the catalog, one per matrix job or one per week.

``week_index`` counts whole 7-day blocks since the Unix epoch of the UTC calendar date (blocks
start on Thursdays), ``shard_index_for_date`` is that modulo N, and a shard is the round-robin
slice ``items[k], items[k + N], ...`` so heavy servers spread across shards.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TypeVar

from mcpcost.core.record import Record
from mcpcost.errors import UsageError

T = TypeVar("T")
_EPOCH = dt.date(1970, 1, 1)


class ShardChoice(Record, frozen=True):
    """Shard ``index`` of ``count``; ``from_date`` when the index was derived from the date."""

    index: int | None
    count: int

    def resolve(self, today: dt.date) -> int:
        return self.index if self.index is not None else shard_index_for_date(today, self.count)


def week_index(day: dt.date) -> int:
    """Whole weeks since 1970-01-01 (a Thursday)."""
    return (day - _EPOCH).days // 7


def shard_index_for_date(day: dt.date, count: int) -> int:
    """The shard a date-driven schedule sweeps on ``day``."""
    if count <= 0:
        raise UsageError(f"shard count must be a positive whole number, got {count}")
    return week_index(day) % count


def select_shard(items: Sequence[T], count: int, index: int) -> list[T]:
    """Items at positions ``i`` with ``i % count == index``."""
    if count <= 0:
        raise UsageError(f"shard count must be a positive whole number, got {count}")
    if not 0 <= index < count:
        raise UsageError(f"shard index must be in 0..{count - 1}, got {index}")
    return [item for i, item in enumerate(items) if i % count == index]


def parse_shard(text: str) -> ShardChoice:
    """``K/N`` (0-based K), or ``N`` / ``auto/N`` for the date-derived shard of N."""
    head, slash, tail = text.partition("/")
    try:
        if not slash:
            count, index = int(head), None
        else:
            count = int(tail)
            index = None if head in ("", "auto", "date") else int(head)
    except ValueError:
        raise UsageError(f"--shard must be K/N (e.g. 0/6) or N, got {text!r}") from None
    if count <= 0:
        raise UsageError(f"--shard count must be a positive whole number, got {text!r}")
    if index is not None and not 0 <= index < count:
        raise UsageError(f"--shard index must be in 0..{count - 1}, got {text!r}")
    return ShardChoice(index, count)
