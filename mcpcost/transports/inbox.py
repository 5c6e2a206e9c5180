"""Waiting on a transport's queue of incoming items with a bound: the one place that turns an
empty wait into ``TransportTimeout``."""

from __future__ import annotations

import queue
import time
from typing import TypeVar

from mcpcost.transports.failures import TransportTimeout

T = TypeVar("T")


def take(items: queue.Queue[T], timeout_s: float) -> T:
    """The next item, or TransportTimeout after ``timeout_s`` seconds (negative means 0)."""
    started = time.monotonic()
    try:
        return items.get(timeout=max(timeout_s, 0.0))
    except queue.Empty:
        waited = int((time.monotonic() - started) * 1000)
        raise TransportTimeout(waited, "a message from the server") from None
