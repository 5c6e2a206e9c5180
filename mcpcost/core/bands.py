"""The frozen colour bands (2026-08-16) that a badge, a page or a dashboard paints a number with.

This is the only place they are defined.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Band:
    """One band: numbers ``lower <= n < upper`` get this colour and label."""

    lower: int
    upper: int | None
    color: str
    label: str
    range_text: str


BANDS: tuple[Band, ...] = (
    Band(0, 1_000, "brightgreen", "lean", "< 1K"),
    Band(1_000, 5_000, "green", "light", "1–5K"),
    Band(5_000, 15_000, "yellow", "moderate", "5–15K"),
    Band(15_000, 30_000, "orange", "heavy", "15–30K"),
    Band(30_000, None, "red", "very heavy", "≥ 30K"),
)
BANDS_FROZEN_ON = "2026-08-16"
UNKNOWN_COLOR = "lightgrey"


def band_for(tokens: int) -> Band:
    """The band a token count falls in."""
    for band in BANDS:
        if tokens >= band.lower and (band.upper is None or tokens < band.upper):
            return band
    return BANDS[0]  # negative numbers do not occur; paint them lean rather than fail
