"""The wall clock and the one timestamp format every report and record uses.

Timestamps are ISO-8601 in UTC with milliseconds and a ``Z`` (JavaScript's ``toISOString``
form), so reports written by this package and by the reference implementation sort and compare
alike.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current moment, timezone-aware in UTC."""
    return datetime.now(UTC)


def iso_utc(moment: datetime) -> str:
    """``moment`` as ``YYYY-MM-DDTHH:MM:SS.mmmZ`` in UTC (a naive moment is taken as local)."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
