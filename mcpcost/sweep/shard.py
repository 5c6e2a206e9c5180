"""Deterministic slices of the catalog, one per matrix job or one per week.

``week_index`` counts whole 7-day blocks since the Unix epoch of the UTC calendar date (blocks
start on Thursdays), ``shard_index_for_date`` is that modulo N, and a shard is the round-robin
slice ``items[k], items[k + N], ...`` so heavy servers spread across shards.

A registry is sharded by name instead (``name_in_shard``: the first 8 bytes of the name's
SHA-256 modulo N): the matrix jobs of one sweep each read the registry a few minutes apart, and
an entry published meanwhile would shift every position after it, so a slice by position could
sweep an entry twice and another never. A name's shard does not move.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from mcpcost.core.digest import sha256_digest
from mcpcost.errors import UsageError

T = TypeVar("T")
_EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class ShardChoice:
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


def _check(count: int, index: int) -> None:
    if count <= 0:
        raise UsageError(f"shard count must be a positive whole number, got {count}")
    if not 0 <= index < count:
        raise UsageError(f"shard index must be in 0..{count - 1}, got {index}")


def select_shard(items: Sequence[T], count: int, index: int) -> list[T]:
    """Items at positions ``i`` with ``i % count == index``."""
    return list(stream_shard(items, count, index))


def stream_shard(items: Iterable[T], count: int, index: int) -> Iterator[T]:
    """``select_shard`` as items arrive: none is held."""
    _check(count, index)
    return (item for i, item in enumerate(items) if i % count == index)


def name_shard(name: str, count: int) -> int:
    """The shard of ``count`` a registry entry named ``name`` belongs to (stable across reads)."""
    return int.from_bytes(sha256_digest(name.encode("utf-8"))[:8], "big") % count


def name_in_shard(name: str, count: int, index: int) -> bool:
    _check(count, index)
    return name_shard(name, count) == index


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
