"""The one timestamp format: ISO-8601, UTC, milliseconds, ``Z``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from mcpcost.runtime.clock import iso_utc, utc_now


def test_milliseconds_are_kept_not_rounded() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678_901, tzinfo=UTC)
    assert iso_utc(moment) == "2026-01-02T03:04:05.678Z"


def test_another_offset_is_converted_to_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    moment = datetime(2026, 1, 1, 1, 0, 0, 5_000, tzinfo=plus_two)
    assert iso_utc(moment) == "2025-12-31T23:00:00.005Z"


def test_now_is_aware_and_formats_in_the_reference_shape() -> None:
    now = utc_now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", iso_utc(now))
