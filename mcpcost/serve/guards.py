"""What keeps the service's measuring bounded: slots, a per-client rate limit, a result cache.

Each takes a monotonic clock (seconds) and is used from the event loop's thread only, so none
needs a lock. Memory is bounded too: the rate limiter forgets idle clients and the cache its
oldest entries past their caps.

* ``Slots``: at most ``limit`` measurements at once; a refused caller is told when the soonest
  running one reaches its deadline (``retry_after``), the answer's ``Retry-After``.
* ``RateLimiter``: a token bucket per client, ``per_minute`` measurements started, refilled
  continuously; a burst of ``per_minute`` is allowed.
* ``ResultCache``: answers by target for ``ttl_s`` seconds.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

Clock = Callable[[], float]
MAX_CLIENTS: Final = 10_000
MAX_CACHED: Final = 2_048


def whole_seconds(seconds: float) -> int:
    """A ``Retry-After`` value: whole seconds, rounded up, at least 1."""
    return max(1, math.ceil(seconds))


class Slots:
    """At most ``limit`` measurements at once, each with its deadline."""

    def __init__(self, limit: int, clock: Clock) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self.limit = limit
        self._clock = clock
        self._ends: dict[int, float] = {}
        self._next = 0

    @property
    def busy(self) -> int:
        return len(self._ends)

    def take(self, deadline_s: float) -> int | None:
        """A slot's token, or None when every slot is taken."""
        if len(self._ends) >= self.limit:
            return None
        self._next += 1
        self._ends[self._next] = self._clock() + deadline_s
        return self._next

    def release(self, token: int) -> None:
        self._ends.pop(token, None)

    def retry_after(self) -> int:
        """Seconds until the soonest running measurement reaches its deadline."""
        if not self._ends:
            return 1
        return whole_seconds(min(self._ends.values()) - self._clock())


class _Bucket:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at


class RateLimiter:
    """``per_minute`` measurements per client (0: no limit)."""

    def __init__(self, per_minute: int, clock: Clock, *, max_clients: int = MAX_CLIENTS) -> None:
        if per_minute < 0:
            raise ValueError("per_minute must not be negative")
        self.per_minute = per_minute
        self._clock = clock
        self._max_clients = max_clients
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    @property
    def clients(self) -> int:
        return len(self._buckets)

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        rate = self.per_minute / 60.0
        return min(float(self.per_minute), bucket.tokens + (now - bucket.at) * rate)

    def take(self, client: str) -> int | None:
        """None when ``client`` may start a measurement now (one is counted), else the whole
        seconds until it may."""
        if self.per_minute == 0:
            return None
        now = self._clock()
        bucket = self._buckets.pop(client, None)
        if bucket is None:
            bucket = _Bucket(float(self.per_minute), now)
        bucket.tokens, bucket.at = self._refilled(bucket, now), now
        self._buckets[client] = bucket  # most recently seen last
        self._forget(now)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return whole_seconds((1.0 - bucket.tokens) * 60.0 / self.per_minute)

    def _forget(self, now: float) -> None:
        """Past the cap, drop the least recently seen clients: first those whose bucket has
        refilled (forgetting them changes nothing), then the oldest whatever their state."""
        if len(self._buckets) <= self._max_clients:
            return
        for name in [
            n for n, b in self._buckets.items() if self._refilled(b, now) >= self.per_minute
        ]:
            del self._buckets[name]
        while len(self._buckets) > self._max_clients:
            self._buckets.popitem(last=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CachedAnswer:
    """An answer kept for its target: HTTP status, body, when it was stored."""

    status: int
    body: bytes
    stored_at: float


class ResultCache:
    """Answers by key for ``ttl_s`` seconds (0: nothing is kept)."""

    def __init__(self, ttl_s: float, clock: Clock, *, max_entries: int = MAX_CACHED) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._max_entries = max_entries
        self._entries: OrderedDict[str, CachedAnswer] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> CachedAnswer | None:
        found = self._entries.get(key)
        if found is None:
            return None
        if self._clock() - found.stored_at >= self.ttl_s:
            del self._entries[key]
            return None
        return found

    def put(self, key: str, status: int, body: bytes, *, keep: bool = True) -> CachedAnswer:
        """The answer, kept under ``key`` unless ``keep`` is False or nothing is cached."""
        answer = CachedAnswer(status=status, body=body, stored_at=self._clock())
        if self.ttl_s <= 0 or not keep:
            return answer
        self._entries.pop(key, None)
        self._entries[key] = answer
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return answer

    def age(self, answer: CachedAnswer) -> float:
        return max(0.0, self._clock() - answer.stored_at)

    def remaining(self, answer: CachedAnswer) -> int:
        """Whole seconds the answer stays fresh (for ``Cache-Control: max-age``)."""
        return max(0, int(self.ttl_s - self.age(answer)))
